package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// conn is one connection to the host. Its stream maps and flags are guarded by Client.mu;
// wmu serializes writes. It owns a reader goroutine and an acker goroutine, waited for by
// Client.closeConn.
type conn struct {
	ws   *websocket.Conn
	path string
	wmu  sync.Mutex
	wto  time.Duration

	ready     chan struct{} // closed on the host's ready event
	readyOnce sync.Once
	done      chan struct{} // closed when the reader exits
	ackKick   chan struct{}
	cancel    context.CancelFunc
	wg        sync.WaitGroup

	streams    map[uint32]*stream
	byTerminal map[string]*stream
	nextStream uint32
	dead       bool   // the connection is closed
	closing    bool   // the client closed it on purpose: no transport-closed report
	failReason string // the client failed the connection (decoder refusal)
}

// connection returns the open connection, dialing path if there is none.
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
		c.closeConn(cn) // dead already; wait for its goroutines
	}

	ctx, cancelReady := context.WithTimeout(ctx, c.opts.ReadyTimeout)
	defer cancelReady()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, c.opts.BaseURL+path, nil)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", path, err)
	}
	ws.SetReadLimit(maxReadBytes)
	loopCtx, cancel := context.WithCancel(context.Background())
	cn = &conn{
		ws:         ws,
		path:       path,
		wto:        c.opts.WriteTimeout,
		ready:      make(chan struct{}),
		done:       make(chan struct{}),
		ackKick:    make(chan struct{}, 1),
		cancel:     cancel,
		streams:    map[uint32]*stream{},
		byTerminal: map[string]*stream{},
	}
	c.opts.Sink.Observe(observe.Connected{Path: path})
	cn.wg.Add(2)
	go func() {
		defer cn.wg.Done()
		defer cancel()
		c.readLoop(cn)
	}()
	go func() {
		defer cn.wg.Done()
		c.ackLoop(loopCtx, cn)
	}()
	if c.opts.Features.IdleDropsSilentClients {
		cn.wg.Add(1)
		go func() {
			defer cn.wg.Done()
			cn.keepalive(loopCtx)
		}()
	}

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

// closeConn closes cn on purpose and waits for its goroutines.
func (c *Client) closeConn(cn *conn) {
	c.mu.Lock()
	wasDead := cn.dead
	cn.closing = true
	cn.dead = true
	c.mu.Unlock()
	if !wasDead {
		cn.wmu.Lock()
		_ = cn.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		cn.wmu.Unlock()
	}
	_ = cn.ws.Close()
	cn.cancel()
	cn.wg.Wait()
}

// fail fails the connection, as the product does on a frame it cannot decode.
func (c *Client) fail(cn *conn, reason string) {
	c.mu.Lock()
	cn.failReason = reason
	c.mu.Unlock()
	cn.wmu.Lock()
	_ = cn.ws.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseProtocolError, truncate(reason, 120)), time.Now().Add(time.Second))
	cn.wmu.Unlock()
	_ = cn.ws.Close()
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
		failure := c.receive(cn, typ, data)
		c.mu.Unlock()
		if failure != "" {
			c.fail(cn, failure)
		}
	}
}

// closed records that cn's transport closed, and reports it unless the client closed it
// on purpose.
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
	switch {
	case cn.failReason != "":
		tc = observe.TransportClosed{Code: websocket.CloseProtocolError, Reason: cn.failReason}
	case errors.As(err, &ce):
		tc = observe.TransportClosed{Code: ce.Code, Reason: ce.Text}
	}
	c.opts.Sink.Observe(tc)
}

func (c *Client) ackLoop(ctx context.Context, cn *conn) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	var tc <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-cn.ackKick:
			if tc == nil {
				t.Reset(c.opts.AckDelay)
				tc = t.C
			}
		case <-tc:
			tc = nil
			c.mu.Lock()
			c.flushAcks(cn)
			c.mu.Unlock()
		}
	}
}

func (cn *conn) writeFrame(h wire.Header, payload []byte) error {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	_ = cn.ws.SetWriteDeadline(time.Now().Add(cn.wto))
	if err := cn.ws.WriteMessage(websocket.BinaryMessage, wire.Encode(h, payload)); err != nil {
		return fmt.Errorf("write %v: %w", h.Opcode, err)
	}
	return nil
}

func (cn *conn) writeJSONFrame(h wire.Header, v any) error {
	p, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %v: %w", h.Opcode, err)
	}
	return cn.writeFrame(h, p)
}

func (cn *conn) remove(st *stream) {
	delete(cn.streams, st.id)
	if cn.byTerminal[st.terminal] == st {
		delete(cn.byTerminal, st.terminal)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// KeepaliveEvery is how often a desktop client with the idleDropsSilentClients switch pings
// its host, so that a connection its user only reads never looks quiet.
const KeepaliveEvery = time.Second

// keepalive pings the host every KeepaliveEvery until ctx ends or a ping cannot be written.
func (cn *conn) keepalive(ctx context.Context) {
	t := time.NewTicker(KeepaliveEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cn.wmu.Lock()
		err := cn.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(cn.wto))
		cn.wmu.Unlock()
		if err != nil {
			return
		}
	}
}
