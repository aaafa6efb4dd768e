package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// conn is one client connection. Its run goroutine owns every field below and is the only
// writer to ws.
type conn struct {
	h       *Host
	ws      *websocket.Conn
	path    string
	dec     *wire.Decoder
	streams map[uint32]*stream
	mail    *mailbox
	timer   *time.Timer
	timerC  <-chan time.Time
	// pinged says the client pinged (the idleDropsSilentClients switch: a ping is traffic).
	pinged chan struct{}
}

type inbound struct {
	typ  int
	data []byte
}

func newConn(h *Host, ws *websocket.Conn, path string) *conn {
	t := time.NewTimer(time.Hour)
	t.Stop()
	c := &conn{
		h:       h,
		ws:      ws,
		path:    path,
		dec:     wire.NewDecoder(*h.opts.Opcodes),
		streams: map[uint32]*stream{},
		mail:    newMailbox(),
		timer:   t,
		pinged:  make(chan struct{}, 1),
	}
	if h.opts.Features.IdleDropsSilentClients {
		ws.SetPingHandler(func(data string) error {
			select {
			case c.pinged <- struct{}{}:
			default:
			}
			err := ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
			if errors.Is(err, websocket.ErrCloseSent) {
				return nil
			}
			return err
		})
	}
	return c
}

func (c *conn) post(e event) { c.mail.post(e) }

// run serves the connection until the client goes away, a write fails or ctx ends.
func (c *conn) run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	in := make(chan inbound)
	var reader sync.WaitGroup
	reader.Add(1)
	go func() {
		defer reader.Done()
		defer close(in)
		c.read(ctx, in)
	}()
	defer func() {
		for _, st := range c.streams {
			st.term.detach(c, st.id)
		}
		c.timer.Stop()
		_ = c.ws.Close()
		cancel()
		reader.Wait()
	}()

	if err := c.writeJSON(wire.Ready{Type: wire.EventReady}); err != nil {
		c.h.opts.Logf("%s: send ready: %v", c.path, err)
		return
	}
	// The idleCloseEarly switch: a connection quiet for IdleCloseAfter is closed; the
	// idleDropsSilentClients switch: one quiet for IdleDropAfter, a ping counting as traffic.
	var idleC <-chan time.Time
	var idle *time.Timer
	idleAfter := time.Duration(0)
	switch {
	case c.h.opts.Features.IdleCloseEarly:
		idleAfter = IdleCloseAfter
	case c.h.opts.Features.IdleDropsSilentClients:
		idleAfter = IdleDropAfter
	}
	if idleAfter > 0 {
		idle = time.NewTimer(idleAfter)
		defer idle.Stop()
		idleC = idle.C
	}
	for {
		var err error
		select {
		case <-c.pinged:
		case <-idleC:
			_ = c.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseGoingAway, "idle"), time.Now().Add(time.Second))
			return
		case <-ctx.Done():
			_ = c.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseGoingAway, "host closing"),
				time.Now().Add(time.Second))
			return
		case m, ok := <-in:
			if !ok {
				return
			}
			err = c.handle(m)
		case <-c.mail.notify:
			for _, e := range c.mail.drain() {
				if err = c.handleEvent(e); err != nil {
					break
				}
			}
		case <-c.timerC:
			c.timerC = nil
			err = c.flushAll()
		}
		if err != nil {
			c.h.opts.Logf("%s: %v", c.path, err)
			return
		}
		if idle != nil {
			idle.Reset(idleAfter)
		}
	}
}

// IdleCloseAfter is how long a connection may be quiet before a host with the
// idleCloseEarly switch closes it: less than the 3 s the contract's terminal channel lets
// a connection be quiet.
const IdleCloseAfter = time.Second

// IdleDropAfter is how long a connection may be quiet, pings included, before a host with
// the idleDropsSilentClients switch closes it: more than the 3 s the contract's terminal
// channel declares, so a peer may do it; a client that never pings loses its stream.
const IdleDropAfter = 4 * time.Second

func (c *conn) read(ctx context.Context, in chan<- inbound) {
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		select {
		case in <- inbound{typ: typ, data: data}:
		case <-ctx.Done():
			return
		}
	}
}

func (c *conn) armTimer() {
	if c.timerC == nil {
		c.timer.Reset(c.h.opts.BatchDelay)
		c.timerC = c.timer.C
	}
}

func (c *conn) flushAll() error {
	for _, st := range c.streams {
		if err := st.flush(); err != nil {
			return err
		}
	}
	return nil
}

func (c *conn) handleEvent(e event) error {
	st := c.streams[e.stream]
	if st == nil {
		return nil // unsubscribed since
	}
	switch {
	case e.emission != nil:
		return st.deliver(*e.emission)
	case e.resize != nil:
		return st.resized(*e.resize)
	case e.cwd != nil:
		return st.cwdChanged(*e.cwd)
	}
	return nil
}

func (c *conn) handle(m inbound) error {
	if m.typ != websocket.BinaryMessage {
		c.h.opts.Logf("%s: ignoring a text message from the client", c.path)
		return nil
	}
	f, err := c.dec.Decode(m.data)
	if err != nil {
		var de *wire.DecodeError
		if errors.As(err, &de) {
			// Dropped, as the product does: the sender never learns.
			c.h.opts.Sink.Observe(observe.Refused{
				Direction: string(wire.ClientToHost),
				Opcode:    int(de.Opcode),
				Length:    de.Length,
				Reason:    de.Err.Error(),
				Silent:    true,
			})
		}
		c.h.opts.Logf("%s: drop C>H frame: %v", c.path, err)
		return nil
	}
	if f.Opcode == wire.OpSubscribe {
		return c.subscribe(f)
	}
	st := c.streams[f.Stream]
	if st == nil {
		if f.Opcode == wire.OpInput {
			return c.writeJSON(wire.ErrorEvent{Type: wire.EventError, StreamID: f.Stream,
				Code: "unknown_stream", Message: fmt.Sprintf("input for stream %d, which is not subscribed", f.Stream)})
		}
		c.h.opts.Logf("%s: %v for unknown stream %d", c.path, f.Opcode, f.Stream)
		return nil
	}
	switch f.Opcode {
	case wire.OpInput:
		return st.input(f.Payload)
	case wire.OpResize:
		var v wire.Viewport
		if err := wire.DecodeJSON(f, &v); err != nil {
			return c.reject(f, err)
		}
		if v.Cols <= 0 || v.Rows <= 0 {
			ptr := "/rows"
			if v.Cols <= 0 {
				ptr = "/cols"
			}
			return c.rejectAt(f, ptr, fmt.Sprintf("Resize to %d×%d: cols and rows must be positive", v.Cols, v.Rows))
		}
		if c.h.opts.Features.ResizeMaxExclusive && (v.Cols >= wire.MaxCols || v.Rows >= wire.MaxRows) {
			// The negative control: the largest viewport every client allows is refused.
			ptr := "/rows"
			if v.Cols >= wire.MaxCols {
				ptr = "/cols"
			}
			return c.rejectAt(f, ptr, fmt.Sprintf("Resize to %d×%d: at most %d×%d", v.Cols, v.Rows, wire.MaxCols-1, wire.MaxRows-1))
		}
		if c.h.opts.Features.ResizeFails {
			// The negative control whose PTY refuses to resize: an internal error, reported.
			c.h.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("resize %s to %d×%d: pty: set window size: operation not permitted", st.term.name, v.Cols, v.Rows)})
			return nil
		}
		st.term.Resize(v.Cols, v.Rows)
		return nil
	case wire.OpClaimViewport:
		var v wire.Viewport
		if err := wire.DecodeJSON(f, &v); err != nil {
			return c.reject(f, err)
		}
		st.claimed = &v
		return nil
	case wire.OpSnapshotRequest:
		var r wire.SnapshotRequest
		if len(f.Payload) > 0 {
			if err := wire.DecodeJSON(f, &r); err != nil {
				return c.reject(f, err)
			}
		}
		return st.requested(r)
	case wire.OpAck:
		var a wire.Ack
		if err := wire.DecodeJSON(f, &a); err != nil {
			return c.reject(f, err)
		}
		return st.ack(a)
	case wire.OpSetOutputPaused:
		var p wire.SetOutputPaused
		if err := wire.DecodeJSON(f, &p); err != nil {
			return c.reject(f, err)
		}
		return st.setPaused(p.Paused)
	case wire.OpUnsubscribe:
		st.close()
		return c.writeJSON(wire.End{Type: wire.EventEnd, StreamID: st.id, Reason: "unsubscribed"})
	}
	if f.Opcode.Direction() == wire.HostToClient {
		// The shared table decodes every opcode; a host acts only on client-to-host ones and
		// drops the rest, as the product does: the sender never learns.
		c.h.opts.Sink.Observe(observe.Refused{
			Direction: string(wire.ClientToHost),
			Opcode:    int(f.Opcode),
			Length:    len(f.Payload) + wire.HeaderLength,
			Reason:    fmt.Sprintf("opcode %d (%v) travels host to client; a host does not accept it", uint8(f.Opcode), f.Opcode),
			Silent:    true,
		})
	}
	c.h.opts.Logf("%s: ignoring %v %v from the client", c.path, f.Opcode.Direction(), f.Opcode)
	return nil
}

// reject drops a client's frame whose payload does not decode, and reports it: the
// pointer names the field that broke decoding, where the decoder says which.
func (c *conn) reject(f wire.Frame, err error) error {
	ptr := ""
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		ptr = "/" + strings.ReplaceAll(te.Field, ".", "/")
	}
	return c.rejectAt(f, ptr, err.Error())
}

// rejectAt drops a client's frame for its shape and reports it (the rejected observation).
func (c *conn) rejectAt(f wire.Frame, pointer, reason string) error {
	c.h.opts.Logf("%s: reject %v %q: %s", c.path, f.Opcode, f.Payload, reason)
	c.h.opts.Sink.Observe(observe.Rejected{Direction: string(wire.ClientToHost), Opcode: int(f.Opcode), Reason: reason, Pointer: pointer})
	return nil
}

func (c *conn) subscribe(f wire.Frame) error {
	var sub wire.Subscribe
	if err := wire.DecodeJSON(f, &sub); err != nil {
		return c.writeJSON(wire.ErrorEvent{Type: wire.EventError, Code: "bad_subscribe", Message: err.Error()})
	}
	fail := func(code, msg string) error {
		return c.writeJSON(wire.ErrorEvent{Type: wire.EventError, StreamID: sub.StreamID, Code: code, Message: msg})
	}
	switch {
	case sub.StreamID == 0:
		return fail("bad_subscribe", "streamId must be at least 1")
	case c.streams[sub.StreamID] != nil:
		return fail("stream_in_use", fmt.Sprintf("stream %d is already subscribed", sub.StreamID))
	case len(c.streams) >= maxStreams:
		return fail("terminal_stream_limit_exceeded", fmt.Sprintf("at most %d streams per connection", maxStreams))
	}
	term, ok := c.h.terminals[sub.Terminal]
	if !ok {
		return fail("terminal_not_found", fmt.Sprintf("no terminal %q", sub.Terminal))
	}
	st := newStream(c, sub, term)
	c.streams[st.id] = st
	client := ""
	if sub.Client != nil {
		client = sub.Client.ID
	}
	s, again := term.attach(c, st.id, client)
	ev := wire.Subscribed{
		Type:             wire.EventSubscribed,
		StreamID:         st.id,
		Terminal:         term.name,
		Cols:             s.cols,
		Rows:             s.rows,
		Seq:              s.layoutSeq,
		Capabilities:     st.terms.Echo,
		StreamGeneration: st.generation,
	}
	if err := c.writeJSON(ev); err != nil {
		return err
	}
	if st.terms.Echo.Has(wire.CapTitle) {
		// A compatible change: a new frame, sent only to a client that negotiated it (ahead
		// of the snapshot, so it is part of what a subscribe shows).
		if err := c.writeFrameJSON(wire.Header{Opcode: wire.OpTitle, Stream: st.id}, wire.Title{Title: term.name + ": " + s.cwd}); err != nil {
			return err
		}
	}
	return st.sendSnapshot(s, "subscribe", snapshotOptions{resumed: again})
}

func (c *conn) writeFrame(h wire.Header, payload []byte) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.h.opts.WriteTimeout))
	if err := c.ws.WriteMessage(websocket.BinaryMessage, wire.Encode(h, payload)); err != nil {
		return fmt.Errorf("write %v: %w", h.Opcode, err)
	}
	return nil
}

func (c *conn) writeFrameJSON(h wire.Header, v any) error {
	p, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %v: %w", h.Opcode, err)
	}
	return c.writeFrame(h, p)
}

func (c *conn) writeJSON(v any) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.h.opts.WriteTimeout))
	if err := c.ws.WriteJSON(v); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return nil
}
