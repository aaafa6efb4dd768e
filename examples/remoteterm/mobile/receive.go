package mobile

import (
	"encoding/json"
	"fmt"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// receive handles one message from the host, with Client.mu held. A frame the vendored
// decoder does not know is dropped without a word to anyone, as the app does; it is
// reported as a silent refusal only so a harness can see it.
func (c *Client) receive(cn *conn, typ int, data []byte) {
	if typ == websocket.TextMessage {
		c.receiveEvent(cn, data)
		return
	}
	f, err := decodeFrame(data)
	if err != nil {
		opcode := 0
		if len(data) > 2 {
			opcode = int(data[2])
		}
		c.opts.Sink.Observe(observe.Refused{
			Direction: "H>C",
			Opcode:    opcode,
			Length:    len(data),
			Reason:    err.Error(),
			Silent:    true,
		})
		return
	}
	st := cn.streams[f.stream]
	if st == nil {
		return
	}
	switch f.opcode {
	case opSnapshotStart:
		var s snapshotStart
		_ = json.Unmarshal(f.payload, &s)
		st.receiving = true
		st.snap = nil
		st.snapSize = s
		st.snapStart = append(json.RawMessage(nil), f.payload...)
	case opSnapshotChunk:
		if st.receiving {
			st.snap = append(st.snap, f.payload...)
		}
	case opSnapshotEnd:
		if !st.receiving {
			return
		}
		st.receiving = false
		st.haveSnapshot = true
		st.screen = append([]byte(nil), st.snap...)
		st.cols, st.rows = st.snapSize.Cols, st.snapSize.Rows
		st.reported = len(st.screen) // a snapshot reports the whole buffer
		c.opts.Sink.Observe(observe.RenderedSnapshot{
			Terminal: st.terminal,
			Bytes:    append([]byte(nil), st.snap...),
			Cols:     st.cols,
			Rows:     st.rows,
			Start:    st.snapStart,
			Screen:   append([]byte(nil), st.screen...),
			// A snapshot that names a request answers one of this client's own.
			Requested:      st.snapSize.RequestID != 0,
			ScrollbackRows: observe.ScrollbackRows(st.snap, st.snapSize.Rows),
		})
		st.snap = nil
	case opOutput:
		// The app ignores seq: whatever arrives is painted.
		st.screen = append(st.screen, f.payload...)
		part, from := observe.ScreenReport(st.screen, &st.reported)
		c.opts.Sink.Observe(observe.RenderedOutput{
			Terminal:   st.terminal,
			Bytes:      append([]byte(nil), f.payload...),
			RawLength:  uint64(len(f.payload)),
			Seq:        f.seq,
			Screen:     part,
			ScreenFrom: from,
		})
	case opResized:
		var v viewport
		if json.Unmarshal(f.payload, &v) == nil {
			st.cols, st.rows = v.Cols, v.Rows
		}
	case opError:
		if string(f.payload) == errorWriteUnavailable {
			c.opts.Sink.Observe(observe.WriteUnavailable{Terminal: st.terminal})
			return
		}
		c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("host error on stream %d (%s): %s", st.id, st.terminal, f.payload)})
	case opMetadata:
		// cwd and input receipts: not rendered.
	}
}

func (c *Client) receiveEvent(cn *conn, data []byte) {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("decode event: %v", err)})
		return
	}
	switch ev.Type {
	case "ready":
		cn.readyOnce.Do(func() { close(cn.ready) })
	case "subscribed":
		c.opts.Sink.Observe(observe.Subscribed(append([]byte(nil), data...)))
	case "error":
		if st := cn.streams[ev.StreamID]; st != nil && !st.haveSnapshot {
			cn.remove(st) // the subscribe failed: the app says so, it is no internal error
			c.opts.Sink.Observe(observe.SubscribeFailed{Terminal: st.terminal, Code: ev.Code, Message: ev.Message})
			return
		}
		c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("host error %s on stream %d: %s", ev.Code, ev.StreamID, ev.Message)})
	case "end":
		if st := cn.streams[ev.StreamID]; st != nil {
			cn.remove(st)
			c.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("stream %d (%s) ended by the host: %s", st.id, st.terminal, ev.Reason)})
		}
	}
}
