package mobile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// Defaults.
const (
	DefaultReadyTimeout = 10 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	maxReadBytes        = 64 << 20
)

// Errors of the client's operations.
var (
	ErrNotSubscribed     = errors.New("terminal not subscribed")
	ErrAlreadySubscribed = errors.New("terminal already subscribed")
	ErrNotConnected      = errors.New("not connected")
)

// Options configures a Client.
type Options struct {
	// BaseURL is the host's base URL, e.g. ws://127.0.0.1:40719.
	BaseURL string
	// Sink receives the client's observations (default: discarded).
	Sink observe.Sink
	// Logf logs what the product would log (default: nothing).
	Logf func(format string, args ...any)
	// ClientID names the client in Subscribe (default "remoteterm-mobile").
	ClientID string
	// ReadyTimeout bounds the wait for the host's ready event (default DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// WriteTimeout bounds one socket write (default DefaultWriteTimeout).
	WriteTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Sink == nil {
		o.Sink = observe.Discard{}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.ClientID == "" {
		o.ClientID = "remoteterm-mobile"
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = DefaultReadyTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return o
}

type subscription struct {
	path       string
	cols, rows int
}

// stream is one subscribed terminal. Guarded by Client.mu.
type stream struct {
	id           uint32
	terminal     string
	cols, rows   int
	screen       []byte
	reported     int    // how much of screen the last render's report covered
	snap         []byte // snapshot being received
	snapStart    json.RawMessage
	snapSize     snapshotStart
	receiving    bool
	haveSnapshot bool
}

// Client is the mobile client. Its methods may be called from any goroutine.
type Client struct {
	opts Options

	actions sync.Mutex // serializes the public operations

	mu          sync.Mutex // guards the fields below and the conn's and streams' state
	conn        *conn
	subs        map[string]subscription
	nextRequest int64
}

// New returns a client that is not connected yet.
func New(opts Options) *Client {
	return &Client{opts: opts.withDefaults(), subs: map[string]subscription{}}
}

// Subscribe connects (unless connected) to path (default /terminal.subscribe), waits for
// ready and subscribes terminal. It declares no capabilities: the app predates them all.
func (c *Client) Subscribe(ctx context.Context, path, terminal string, cols, rows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	return c.subscribe(ctx, path, terminal, cols, rows)
}

func (c *Client) subscribe(ctx context.Context, path, terminal string, cols, rows int) error {
	if path == "" {
		path = subscribePath
	}
	cn, err := c.connection(ctx, path)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if cn.byTerminal[terminal] != nil {
		c.mu.Unlock()
		return fmt.Errorf("subscribe %s: %w", terminal, ErrAlreadySubscribed)
	}
	cn.nextStream++
	st := &stream{id: cn.nextStream, terminal: terminal, cols: cols, rows: rows}
	cn.streams[st.id] = st
	cn.byTerminal[terminal] = st
	c.subs[terminal] = subscription{path: path, cols: cols, rows: rows}
	c.mu.Unlock()
	return cn.writeJSON(opSubscribe, 0, subscribeMsg{
		StreamID: st.id,
		Terminal: terminal,
		Client:   clientInfo{ID: c.opts.ClientID, Type: "mobile"},
		Viewport: viewport{Cols: cols, Rows: rows},
	})
}

// Resubscribe reconnects and subscribes terminal again.
func (c *Client) Resubscribe(ctx context.Context, terminal string) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	c.mu.Lock()
	sub, ok := c.subs[terminal]
	cn := c.conn
	c.conn = nil
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("resubscribe %s: %w", terminal, ErrNotSubscribed)
	}
	if cn != nil {
		c.closeConn(cn)
	}
	return c.subscribe(ctx, sub.path, terminal, sub.cols, sub.rows)
}

// Input sends input to terminal.
func (c *Client) Input(ctx context.Context, terminal string, data []byte) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("input %s: %w", terminal, err)
	}
	return cn.write(opInput, st.id, data)
}

// RequestSnapshot asks for a snapshot of terminal. A negative scrollbackRows leaves it to
// the host.
func (c *Client) RequestSnapshot(ctx context.Context, terminal string, scrollbackRows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("request snapshot of %s: %w", terminal, err)
	}
	c.mu.Lock()
	c.nextRequest++
	req := snapshotRequest{RequestID: c.nextRequest}
	c.mu.Unlock()
	if scrollbackRows >= 0 {
		req.ScrollbackRows = &scrollbackRows
	}
	return cn.writeJSON(opSnapshotRequest, st.id, req)
}

// Resize resizes terminal.
func (c *Client) Resize(ctx context.Context, terminal string, cols, rows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("resize %s: %w", terminal, err)
	}
	return cn.writeJSON(opResize, st.id, viewport{Cols: cols, Rows: rows})
}

// Unsubscribe ends terminal's stream.
func (c *Client) Unsubscribe(ctx context.Context, terminal string) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("unsubscribe %s: %w", terminal, err)
	}
	c.mu.Lock()
	cn.remove(st)
	delete(c.subs, terminal)
	c.mu.Unlock()
	return cn.write(opUnsubscribe, st.id, nil)
}

// Close closes the connection and waits for its reader.
func (c *Client) Close() error {
	c.actions.Lock()
	defer c.actions.Unlock()
	c.mu.Lock()
	cn := c.conn
	c.conn = nil
	c.mu.Unlock()
	if cn != nil {
		c.closeConn(cn)
	}
	return nil
}

func (c *Client) stream(terminal string) (*conn, *stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cn := c.conn
	if cn == nil || cn.dead {
		return nil, nil, ErrNotConnected
	}
	st := cn.byTerminal[terminal]
	if st == nil {
		return nil, nil, ErrNotSubscribed
	}
	return cn, st, nil
}
