package desktop

import (
	"errors"
	"fmt"
	"os"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// receive handles one message from the host, with Client.mu held. It returns a non-empty
// reason when the connection must fail.
func (c *Client) receive(cn *conn, typ int, data []byte) string {
	if typ == websocket.TextMessage {
		c.receiveEvent(cn, data)
		return ""
	}
	f, err := c.dec.Decode(data)
	if err != nil {
		var de *wire.DecodeError
		if !errors.As(err, &de) {
			return err.Error()
		}
		c.opts.Sink.Observe(observe.Refused{
			Direction: string(wire.HostToClient),
			Opcode:    int(de.Opcode),
			Length:    de.Length,
			Reason:    de.Err.Error(),
			Silent:    false,
		})
		return fmt.Sprintf("decoder refused H>C opcode %d: %v", de.Opcode, de.Err)
	}
	st := cn.streams[f.Stream]
	if st == nil {
		c.opts.Logf("%v for unknown stream %d", f.Opcode, f.Stream)
		return ""
	}
	switch f.Opcode {
	case wire.OpSnapshotStart:
		var start wire.SnapshotStart
		if err := wire.DecodeJSON(f, &start); err != nil {
			c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("stream %d: %v", st.id, err)})
			return ""
		}
		st.snap = &pendingSnapshot{start: start, raw: append([]byte(nil), f.Payload...)}
	case wire.OpSnapshotChunk:
		if st.snap != nil {
			st.snap.data = append(st.snap.data, f.Payload...)
		}
	case wire.OpSnapshotEnd:
		c.renderSnapshot(st)
	case wire.OpOutput:
		data := f.Payload
		if c.loseOnce() {
			data = nil // the seq still moves on: no gap, no resync recovers the bytes
		}
		c.output(cn, st, data, f.Seq, uint64(len(f.Payload)), false)
		c.delivered(cn, st, len(f.Payload))
	case wire.OpOutputSpan:
		var span wire.OutputSpan
		if err := wire.DecodeJSON(f, &span); err != nil {
			// Not rendered: resync, but the bytes are still acked.
			c.resync(cn, st, "invalid-span", f.Seq)
		} else {
			c.output(cn, st, []byte(span.Data), f.Seq, span.RawLength, span.Transformed)
		}
		c.delivered(cn, st, len(f.Payload))
	case wire.OpResized:
		var r wire.Resized
		if err := wire.DecodeJSON(f, &r); err == nil {
			st.cols, st.rows = r.Cols, r.Rows
		}
	case wire.OpError:
		if string(f.Payload) == wire.ErrorWriteUnavailable {
			// What WriteUnavailable (17) says, for a client that did not negotiate it.
			c.opts.Sink.Observe(observe.WriteUnavailable{Terminal: st.terminal})
			return ""
		}
		c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("host error on stream %d (%s): %s", st.id, st.terminal, f.Payload)})
	case wire.OpMetadata:
		// The desktop shows cwd elsewhere; nothing to render.
	case wire.OpWriteUnavailable:
		c.opts.Sink.Observe(observe.WriteUnavailable{Terminal: st.terminal})
	case wire.OpTitle:
		var t wire.Title
		if err := wire.DecodeJSON(f, &t); err == nil {
			st.title = t.Title
		}
	default:
		c.opts.Logf("ignoring %v %v from the host", f.Opcode.Direction(), f.Opcode)
	}
	return ""
}

func (c *Client) receiveEvent(cn *conn, data []byte) {
	ev, err := wire.DecodeEvent(data)
	if err != nil {
		c.opts.Sink.Observe(observe.Error{Message: err.Error()})
		return
	}
	switch ev.Type {
	case wire.EventReady:
		cn.readyOnce.Do(func() { close(cn.ready) })
	case wire.EventSubscribed:
		var s wire.Subscribed
		if err := ev.Decode(&s); err != nil {
			c.opts.Sink.Observe(observe.Error{Message: err.Error()})
			return
		}
		if st := cn.streams[s.StreamID]; st != nil {
			st.echo, st.generation = s.Capabilities, s.StreamGeneration
			st.cols, st.rows = s.Cols, s.Rows
		}
		c.opts.Sink.Observe(observe.Subscribed(ev.Raw))
	case wire.EventError:
		var e wire.ErrorEvent
		_ = ev.Decode(&e)
		if st := cn.streams[e.StreamID]; st != nil && !st.haveSnapshot {
			cn.remove(st) // the subscribe failed: the app says so, it is no internal error
			c.opts.Sink.Observe(observe.SubscribeFailed{Terminal: st.terminal, Code: e.Code, Message: e.Message})
			return
		}
		c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("host error %s on stream %d: %s", e.Code, e.StreamID, e.Message)})
	case wire.EventEnd:
		var e wire.End
		_ = ev.Decode(&e)
		if st := cn.streams[e.StreamID]; st != nil {
			cn.remove(st)
			c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("stream %d (%s) ended by the host: %s", st.id, st.terminal, e.Reason)})
		}
	default:
		c.opts.Logf("ignoring %s event", ev.Type)
	}
}

func (c *Client) renderSnapshot(st *stream) {
	s := st.snap
	if s == nil {
		return
	}
	st.snap = nil
	st.screen = append([]byte(nil), s.data...)
	st.cols, st.rows = s.start.Cols, s.start.Rows
	st.expectedSeq = s.start.Seq
	st.dropThrough = s.start.Seq
	st.awaitingRecovery = false
	st.haveSnapshot = true
	st.reported = len(st.screen) // a snapshot reports the whole buffer
	c.opts.Sink.Observe(observe.RenderedSnapshot{
		Terminal: st.terminal,
		Bytes:    s.data,
		Cols:     s.start.Cols,
		Rows:     s.start.Rows,
		Start:    s.raw,
		Screen:   append([]byte(nil), st.screen...),
		// A snapshot that names a request answers one of this client's own.
		Requested:      s.start.RequestID != 0,
		ScrollbackRows: observe.ScrollbackRows(s.data, s.start.Rows),
	})
}

// loseOnce reports whether this Output frame is the one release.Features.LoseOutputOnce
// loses: the first one received while its file does not exist (creating it claims it).
func (c *Client) loseOnce() bool {
	name := c.opts.Features.LoseOutputOnce
	if name == "" {
		return false
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// output renders one run of output, unless it is covered by the last snapshot or reveals
// a gap (then it asks for a resync).
func (c *Client) output(cn *conn, st *stream, data []byte, seq, rawLength uint64, transformed bool) {
	switch {
	case !st.haveSnapshot || st.awaitingRecovery:
		return
	case seq > 0 && seq <= st.dropThrough:
		return
	case seq > 0 && seq >= rawLength && seq-rawLength > st.expectedSeq:
		c.resync(cn, st, "gap", seq)
		return
	}
	st.screen = append(st.screen, data...)
	if seq > 0 {
		st.expectedSeq = seq
	}
	part, from := observe.ScreenReport(st.screen, &st.reported)
	c.opts.Sink.Observe(observe.RenderedOutput{
		Terminal:    st.terminal,
		Bytes:       append([]byte(nil), data...),
		RawLength:   rawLength,
		Transformed: transformed,
		Seq:         seq,
		Screen:      part,
		ScreenFrom:  from,
	})
}

// resync asks for an untagged snapshot; output is dropped until it arrives.
func (c *Client) resync(cn *conn, st *stream, reason string, seq uint64) {
	if st.awaitingRecovery {
		return
	}
	st.awaitingRecovery = true
	c.opts.Sink.Observe(observe.Resync{Terminal: st.terminal, Reason: reason, ExpectedSeq: st.expectedSeq, Seq: seq})
	if err := cn.writeJSONFrame(wire.Header{Opcode: wire.OpSnapshotRequest, Stream: st.id}, wire.SnapshotRequest{}); err != nil {
		c.opts.Logf("stream %d: request resync: %v", st.id, err)
	}
}

// delivered counts n payload bytes for the next ack.
func (c *Client) delivered(cn *conn, st *stream, n int) {
	if !c.opts.Features.Ack {
		return
	}
	st.pendingAck += uint64(n)
	if st.pendingAck >= ackFlushBytes {
		c.flushAcks(cn)
		return
	}
	select {
	case cn.ackKick <- struct{}{}:
	default:
	}
}

// flushAcks acks every stream's delivered bytes, with Client.mu held.
func (c *Client) flushAcks(cn *conn) {
	if cn.dead {
		return
	}
	for _, st := range cn.streams {
		if st.pendingAck == 0 {
			continue
		}
		n := st.pendingAck
		st.pendingAck = 0
		var a wire.Ack
		if st.echo.Has(wire.CapAckOutputSourceRanges) && st.generation != "" {
			st.ackedEnd += n
			end := st.ackedEnd
			a = wire.Ack{StreamGeneration: st.generation, AckedEndByte: &end}
		} else {
			a = wire.Ack{Bytes: &n}
		}
		if err := cn.writeJSONFrame(wire.Header{Opcode: wire.OpAck, Stream: st.id}, a); err != nil {
			c.opts.Logf("stream %d: ack: %v", st.id, err)
			return
		}
	}
}
