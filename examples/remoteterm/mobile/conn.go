package mobile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// conn is one connection to the host. Its maps and flags are guarded by Client.mu; wmu
// serializes writes. Its reader goroutine is waited for by Client.closeConn.
type conn struct {
	ws   *websocket.Conn
	path string
	wmu  sync.Mutex
	wto  time.Duration

	ready     chan struct{}
	readyOnce sync.Once
	done      chan struct{}
	wg        sync.WaitGroup

	streams    map[uint32]*stream
	byTerminal map[string]*stream
	nextStream uint32
	dead       bool
	closing    bool
}

func (c *Client) connection(ctx context.Context, path string) (*conn, error) {
	c.mu.Lock()
	cn := c.conn
	if cn != nil && !cn.dead {
		c.mu.Unlock()
		if cn.path != path {
			return nil, fmt.Errorf("connect %s: already connected on %s", path, cn.path)
		}
		return cn, nil
	}
	c.conn = nil
	c.mu.Unlock()
	if cn != nil {
		c.closeConn(cn)
	}

	ctx, cancel := context.WithTimeout(ctx, c.opts.ReadyTimeout)
	defer cancel()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, c.opts.BaseURL+path, nil)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", path, err)
	}
	ws.SetReadLimit(maxReadBytes)
	cn = &conn{
		ws:         ws,
		path:       path,
		wto:        c.opts.WriteTimeout,
		ready:      make(chan struct{}),
		done:       make(chan struct{}),
		streams:    map[uint32]*stream{},
		byTerminal: map[string]*stream{},
	}
	c.opts.Sink.Observe(observe.Connected{Path: path})
	cn.wg.Add(1)
	go func() {
		defer cn.wg.Done()
		c.readLoop(cn)
	}()
	select {
	case <-cn.ready:
	case <-cn.done:
		c.closeConn(cn)
		return nil, fmt.Errorf("connect %s: connection closed before ready", path)
	case <-ctx.Done():
		c.closeConn(cn)
		return nil, fmt.Errorf("connect %s: wait for ready: %w", path, ctx.Err())
	}
	c.mu.Lock()
	c.conn = cn
	c.mu.Unlock()
	return cn, nil
}

func (c *Client) closeConn(cn *conn) {
	c.mu.Lock()
	wasDead := cn.dead
	cn.closing, cn.dead = true, true
	c.mu.Unlock()
	if !wasDead {
		cn.wmu.Lock()
		_ = cn.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		cn.wmu.Unlock()
	}
	_ = cn.ws.Close()
	cn.wg.Wait()
}

func (c *Client) readLoop(cn *conn) {
	defer close(cn.done)
	for {
		typ, data, err := cn.ws.ReadMessage()
		if err != nil {
			c.closed(cn, err)
			return
		}
		c.mu.Lock()
		c.receive(cn, typ, data)
		c.mu.Unlock()
	}
}

func (c *Client) closed(cn *conn, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	report := !cn.closing
	cn.dead = true
	if !report {
		return
	}
	tc := observe.TransportClosed{Code: websocket.CloseAbnormalClosure, Reason: err.Error()}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		tc = observe.TransportClosed{Code: ce.Code, Reason: ce.Text}
	}
	c.opts.Sink.Observe(tc)
}

func (cn *conn) write(opcode uint8, stream uint32, payload []byte) error {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	_ = cn.ws.SetWriteDeadline(time.Now().Add(cn.wto))
	if err := cn.ws.WriteMessage(websocket.BinaryMessage, encodeFrame(opcode, stream, payload)); err != nil {
		return fmt.Errorf("write opcode %d: %w", opcode, err)
	}
	return nil
}

func (cn *conn) writeJSON(opcode uint8, stream uint32, v any) error {
	p, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode opcode %d: %w", opcode, err)
	}
	return cn.write(opcode, stream, p)
}

func (cn *conn) remove(st *stream) {
	delete(cn.streams, st.id)
	if cn.byTerminal[st.terminal] == st {
		delete(cn.byTerminal, st.terminal)
	}
}
