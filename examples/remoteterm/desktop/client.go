package desktop

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// Defaults.
const (
	DefaultReadyTimeout = 10 * time.Second
	DefaultAckDelay     = 4 * time.Millisecond
	DefaultWriteTimeout = 10 * time.Second
	// ackFlushBytes flushes acks without waiting for the timer.
	ackFlushBytes = 192 << 10
	maxReadBytes  = 64 << 20
)

// Errors of the client's operations.
var (
	ErrNotSubscribed     = errors.New("terminal not subscribed")
	ErrAlreadySubscribed = errors.New("terminal already subscribed")
	ErrNotNegotiated     = errors.New("capability not negotiated")
	ErrNotConnected      = errors.New("not connected")
)

// Options configures a Client.
type Options struct {
	// Features is the release the client behaves as.
	Features release.Features
	// BaseURL is the host's base URL, e.g. ws://127.0.0.1:40719.
	BaseURL string
	// Sink receives the client's observations (default: discarded).
	Sink observe.Sink
	// Logf logs what the product would log (default: nothing).
	Logf func(format string, args ...any)
	// ClientID names the client in Subscribe (default "remoteterm-desktop").
	ClientID string
	// Opcodes overrides the client's decoder table (a negative control). Nil means
	// wire.Opcodes(Features).
	Opcodes *wire.OpcodeSet
	// ReadyTimeout bounds the wait for the host's ready event (default DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// AckDelay is how long delivered bytes wait to be acked in one batch (default
	// DefaultAckDelay). Only how acks are batched depends on it.
	AckDelay time.Duration
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
		o.ClientID = "remoteterm-desktop"
	}
	if o.Opcodes == nil {
		known := wire.Opcodes(o.Features)
		o.Opcodes = &known
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = DefaultReadyTimeout
	}
	if o.AckDelay <= 0 {
		o.AckDelay = DefaultAckDelay
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return o
}

// subscription is what the client remembers to resubscribe a terminal.
type subscription struct {
	path       string
	cols, rows int
}

// Client is the desktop multiplexer. Its methods may be called from any goroutine.
type Client struct {
	opts Options
	dec  *wire.Decoder

	actions sync.Mutex // serializes the public operations

	mu          sync.Mutex // guards the fields below and every conn's and stream's state
	conn        *conn
	subs        map[string]subscription
	nextRequest int64
}

// New returns a client that is not connected yet.
func New(opts Options) *Client {
	opts = opts.withDefaults()
	return &Client{
		opts: opts,
		dec:  wire.NewDecoder(*opts.Opcodes),
		subs: map[string]subscription{},
	}
}

// Capabilities is what the client declares in Subscribe.
func Capabilities(f release.Features) wire.Capabilities {
	caps := wire.Capabilities{}
	if f.OutputPause {
		caps[wire.CapOutputPause] = 1
	}
	if f.ClientAckOutput {
		caps[wire.CapAckOutput] = 1
	}
	if f.ClientAckSourceRanges {
		caps[wire.CapAckOutputSourceRanges] = 1
	}
	if f.DesktopDeclaresOutputSpan {
		caps[wire.CapOutputSpan] = 1
	}
	if f.WriteUnavailable {
		caps[wire.CapWriteUnavailable] = 1
	}
	if f.TitleFrame {
		caps[wire.CapTitle] = 1
	}
	return caps
}

// Subscribe connects (unless connected) to path (default /terminal.multiplex), waits for
// the host's ready event and subscribes terminal with a cols×rows viewport. It returns once
// the Subscribe frame is written; what follows is observed.
func (c *Client) Subscribe(ctx context.Context, path, terminal string, cols, rows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	return c.subscribe(ctx, path, terminal, cols, rows)
}

func (c *Client) subscribe(ctx context.Context, path, terminal string, cols, rows int) error {
	if path == "" {
		path = wire.PathMultiplex
	}
	cn, err := c.connection(ctx, path)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if st := cn.byTerminal[terminal]; st != nil {
		c.mu.Unlock()
		return fmt.Errorf("subscribe %s: %w", terminal, ErrAlreadySubscribed)
	}
	cn.nextStream++
	st := &stream{id: cn.nextStream, terminal: terminal, cols: cols, rows: rows}
	cn.streams[st.id] = st
	cn.byTerminal[terminal] = st
	c.subs[terminal] = subscription{path: path, cols: cols, rows: rows}
	c.mu.Unlock()

	sub := wire.Subscribe{
		StreamID:     st.id,
		Terminal:     terminal,
		Client:       &wire.Client{ID: c.opts.ClientID, Type: "desktop"},
		Viewport:     &wire.Viewport{Cols: cols, Rows: rows},
		Capabilities: Capabilities(c.opts.Features),
	}
	return cn.writeJSONFrame(wire.Header{Opcode: wire.OpSubscribe, Stream: 0}, sub)
}

// Resubscribe reconnects (closing the current connection if it is still open) and
// subscribes terminal again with its last path and viewport.
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
	return cn.writeFrame(wire.Header{Opcode: wire.OpInput, Stream: st.id}, data)
}

// RequestSnapshot asks for a snapshot of terminal (hide and reveal the pane). A negative
// scrollbackRows leaves it to the host.
func (c *Client) RequestSnapshot(ctx context.Context, terminal string, scrollbackRows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("request snapshot of %s: %w", terminal, err)
	}
	c.mu.Lock()
	c.nextRequest++
	req := wire.SnapshotRequest{RequestID: c.nextRequest}
	c.mu.Unlock()
	if scrollbackRows >= 0 {
		req.ScrollbackRows = &scrollbackRows
	}
	return cn.writeJSONFrame(wire.Header{Opcode: wire.OpSnapshotRequest, Stream: st.id}, req)
}

// Resize resizes terminal: ClaimViewport (in releases that have it) then Resize, which
// older hosts understand.
func (c *Client) Resize(ctx context.Context, terminal string, cols, rows int) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("resize %s: %w", terminal, err)
	}
	v := wire.Viewport{Cols: cols, Rows: rows}
	if c.opts.Features.ClaimViewport {
		if err := cn.writeJSONFrame(wire.Header{Opcode: wire.OpClaimViewport, Stream: st.id}, v); err != nil {
			return err
		}
	}
	return cn.writeJSONFrame(c.resizeFrame(st.id, v))
}

// resizeFrame is the Resize frame for v, as this build writes it; the negative-control
// switches break it in one way each.
func (c *Client) resizeFrame(stream uint32, v wire.Viewport) (wire.Header, any) {
	f := c.opts.Features
	h := wire.Header{Opcode: wire.OpResize, Stream: stream}
	if f.ResizeSentAsResized {
		h.Opcode = wire.OpResized // a host-to-client opcode
	}
	if f.ResizeZeroRows {
		v.Rows = 0
	}
	if f.ResizeColsAsString {
		return h, map[string]any{"cols": strconv.Itoa(v.Cols), "rows": v.Rows}
	}
	return h, v
}

// Pause pauses or resumes terminal's output. It sends SetOutputPaused only after the host
// echoed outputPause (Rule 2), and returns ErrNotNegotiated otherwise.
func (c *Client) Pause(ctx context.Context, terminal string, paused bool) error {
	c.actions.Lock()
	defer c.actions.Unlock()
	cn, st, err := c.stream(terminal)
	if err != nil {
		return fmt.Errorf("pause %s: %w", terminal, err)
	}
	c.mu.Lock()
	ok := st.echo.Has(wire.CapOutputPause)
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("pause %s: outputPause: %w", terminal, ErrNotNegotiated)
	}
	return cn.writeJSONFrame(wire.Header{Opcode: wire.OpSetOutputPaused, Stream: st.id}, wire.SetOutputPaused{Paused: paused})
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
	return cn.writeFrame(wire.Header{Opcode: wire.OpUnsubscribe, Stream: st.id}, nil)
}

// Close closes the connection and waits for its goroutines.
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

// stream returns terminal's live stream.
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
