package tap

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gorilla/websocket"
)

// conn is one proxied connection: the client's side and the host's.
type conn struct {
	id     int
	path   string
	client *websocket.Conn
	host   *websocket.Conn
	done   chan struct{} // closed once the close is recorded

	once sync.Once
	why  string // how it ended; set by the first end
}

// run pumps both ways until both pumps have stopped. Each side has one
// reader (the pump from it) and one writer (the pump to it).
func (c *conn) run(p *Proxy) {
	var wg sync.WaitGroup
	wg.Go(func() { c.pump(p, c.host, c.client, HostToClient) })
	c.pump(p, c.client, c.host, ClientToHost)
	wg.Wait()
}

// pump forwards messages from src to dst, recording each one first.
func (c *conn) pump(p *Proxy, src, dst *websocket.Conn, dir Direction) {
	from, to := "client", "host"
	if dir == HostToClient {
		from, to = to, from
	}
	for {
		mt, data, err := src.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
				// A close frame: pass it on. (1005 goes on as an empty one.)
				c.end(fmt.Sprintf("%s closed: %d %s", from, ce.Code, ce.Text), func() {
					writeClose(dst, ce.Code, ce.Text)
				})
				return
			}
			c.end(readError(from, err), nil)
			return
		}
		p.frame(c, dir, mt, data)
		if err := dst.WriteMessage(mt, data); err != nil {
			c.end(fmt.Sprintf("write to %s: %v", to, err), nil)
			return
		}
	}
}

// end ends the connection for reason why, once: it runs before (if not
// nil) and closes both sides, which stops both pumps. It reports whether
// this call was the one that ended it.
func (c *conn) end(why string, before func()) bool {
	first := false
	c.once.Do(func() {
		first = true
		c.why = why
		if before != nil {
			before()
		}
		c.client.Close()
		c.host.Close()
	})
	return first
}

// goAway tells both sides the tap is going away.
func (c *conn) goAway() {
	writeClose(c.client, websocket.CloseGoingAway, "tap closed")
	writeClose(c.host, websocket.CloseGoingAway, "tap closed")
}

func readError(side string, err error) string {
	var ce *websocket.CloseError
	if errors.As(err, &ce) { // 1006: the connection ended without a close frame
		return fmt.Sprintf("%s transport closed: %s", side, ce.Text)
	}
	return fmt.Sprintf("%s: %v", side, err)
}
