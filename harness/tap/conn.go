package tap

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// closeGrace is how long the tap waits for the other side to answer a close it forwarded
// before it closes both sides itself.
const closeGrace = 2 * time.Second

// conn is one proxied connection: the client's side and the host's.
type conn struct {
	id     int
	path   string
	client *websocket.Conn
	host   *websocket.Conn
	done   chan struct{} // closed once the close is recorded
	ended  chan struct{} // closed when end closes both sides

	once  sync.Once
	whyMu sync.Mutex
	why   string // how it ended: the first close forwarded, or what ended it
}

// run pumps both ways until both pumps have stopped, then closes both sides. Each side has
// one reader (the pump from it) and one writer (the pump to it); control frames are written
// with WriteControl, which gorilla allows beside the writer.
func (c *conn) run(p *Proxy) {
	c.forwardControl(p, c.client, c.host, ClientToHost)
	c.forwardControl(p, c.host, c.client, HostToClient)
	var wg sync.WaitGroup
	wg.Go(func() { c.pump(p, c.host, c.client, HostToClient) })
	c.pump(p, c.client, c.host, ClientToHost)
	wg.Wait()
	c.end("", nil)
}

// forwardControl makes src's pings and pongs travel on to dst, recorded, instead of being
// answered by the tap: a peer that stops answering pings is then visible, as it is without
// the tap. Closes are forwarded by pump (the close handler only keeps gorilla from
// answering a close itself).
func (c *conn) forwardControl(p *Proxy, src, dst *websocket.Conn, dir Direction) {
	forward := func(kind string, mt int) func(string) error {
		return func(data string) error {
			p.frame(c, dir, mt, []byte(data), kind)
			err := dst.WriteControl(mt, []byte(data), time.Now().Add(closeTimeout))
			if errors.Is(err, websocket.ErrCloseSent) {
				return nil
			}
			return err
		}
	}
	src.SetPingHandler(forward(ControlPing, websocket.PingMessage))
	src.SetPongHandler(forward(ControlPong, websocket.PongMessage))
	src.SetCloseHandler(func(int, string) error { return nil })
}

// pump forwards messages from src to dst, recording each one first. A close from src is
// forwarded with its code and reason; dst's answer comes back through the other pump, which
// is given closeGrace to see it.
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
				msg := websocket.FormatCloseMessage(ce.Code, ce.Text)
				p.frame(c, dir, websocket.CloseMessage, msg, ControlClose)
				c.because(fmt.Sprintf("%s closed: %d %s", from, ce.Code, ce.Text))
				writeClose(dst, ce.Code, ce.Text)
				_ = dst.SetReadDeadline(time.Now().Add(closeGrace))
				return
			}
			c.end(readError(from, err), nil)
			return
		}
		if h := p.hold(dir); h != nil { // a slow reader (Hold): this message waits, and so does src
			select {
			case <-h:
			case <-c.ended:
				return
			case <-p.ctx.Done():
				return
			}
		}
		data = p.message(c, dir, mt, data)
		if err := dst.WriteMessage(mt, data); err != nil {
			c.end(fmt.Sprintf("write to %s: %v", to, err), nil)
			return
		}
	}
}

// because records why the connection ends, unless a reason is already known.
func (c *conn) because(why string) {
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	if c.why == "" {
		c.why = why
	}
}

func (c *conn) reason() string {
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	return c.why
}

// end ends the connection for reason why (unless one is known), once: it runs before (if
// not nil) and closes both sides, which stops both pumps. It reports whether this call was
// the one that ended it.
func (c *conn) end(why string, before func()) bool {
	first := false
	c.once.Do(func() {
		first = true
		if why != "" {
			c.because(why)
		}
		if before != nil {
			before()
		}
		c.client.Close()
		c.host.Close()
		close(c.ended)
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
