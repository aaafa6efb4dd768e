package host

import (
	"errors"
	"fmt"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/ledger"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// Flow-control limits.
const (
	initialWindow = 512 << 10 // per stream, AckBytes
	maxWindow     = 2 << 20
	// pendingLimit is how many bytes the ack-pending queue may hold before the stream is
	// recovered with a snapshot.
	pendingLimit = 256 << 10
	// ackLedgerWrapBits is the width of the acknowledged-position field on the
	// ackLedgerWraps negative control: acks wrap past 1 MiB.
	ackLedgerWrapBits = 20
)

// stream is one subscription on a connection. Its connection's goroutine owns it.
type stream struct {
	c     *conn
	id    uint32
	term  *Terminal
	terms Terms

	ledger     *ledger.Ledger // AckLedger
	generation string
	window     uint64 // AckBytes
	inFlight   uint64 // AckBytes

	paused bool

	// batch holds untransformed output not yet framed; batchRaw, batchDisplay and
	// batchIndex are the marks of its last emission.
	batch                  []byte
	batchRaw, batchDisplay uint64
	batchIndex             uint64

	// queue is the ack-pending queue: framed output waiting to be sent.
	queue       []queued
	queuedBytes int

	// skipThrough: emissions 1..skipThrough are covered by a snapshot the stream was sent.
	skipThrough uint64

	claimed  *wire.Viewport
	detached bool
}

type queued struct {
	frame chunker.Frame
	index uint64 // the emission it carries
}

func newStream(c *conn, sub wire.Subscribe, term *Terminal) *stream {
	st := &stream{
		c:      c,
		id:     sub.StreamID,
		term:   term,
		terms:  Negotiate(c.h.opts.Features, c.path, sub.Capabilities),
		window: initialWindow,
	}
	if st.terms.Acks == AckLedger {
		st.generation = newGeneration()
		st.ledger = ledger.New(st.generation)
		if c.h.opts.Features.AckLedgerWraps {
			st.ledger.WrapPositions(ackLedgerWrapBits)
		}
	}
	return st
}

// seqOf is the seq this stream is sent for a terminal position: raw bytes, or display
// bytes on a rebased stream.
func (st *stream) seqOf(raw, display uint64) uint64 {
	if st.terms.Spans == SpanRebase {
		return display
	}
	return raw
}

// close ends the stream without telling the client.
func (st *stream) close() {
	st.detached = true
	if st.ledger != nil {
		st.ledger.Close()
	}
	st.term.detach(st.c, st.id)
	delete(st.c.streams, st.id)
}

// detach ends the stream because it cannot continue, and tells the client.
func (st *stream) detach(reason string, cause error) error {
	st.close()
	msg := fmt.Sprintf("%s: %v", reason, cause)
	st.c.h.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf("stream %d (%s) detached: %s", st.id, st.term.name, msg)})
	if err := st.c.writeFrame(wire.Header{Opcode: wire.OpError, Stream: st.id}, []byte(msg)); err != nil {
		return err
	}
	return st.c.writeJSON(wire.End{Type: wire.EventEnd, StreamID: st.id, Reason: reason})
}

func (st *stream) input(p []byte) error {
	if st.c.h.opts.Features.InputTruncated && len(p) > InputBufferBytes {
		p = p[:InputBufferBytes] // the negative control: a fixed read buffer drops the rest
	}
	err := st.term.Write(p)
	if !errors.Is(err, ErrWriteUnavailable) {
		return err
	}
	if st.terms.Echo.Has(wire.CapWriteUnavailable) {
		return st.c.writeFrame(wire.Header{Opcode: wire.OpWriteUnavailable, Stream: st.id}, nil)
	}
	return st.c.writeFrame(wire.Header{Opcode: wire.OpError, Stream: st.id}, []byte(wire.ErrorWriteUnavailable))
}

// InputBufferBytes is how much of one Input frame a host with the inputTruncated switch
// keeps.
const InputBufferBytes = 4096

// cwdChanged tells the client the process's new working directory (Metadata, which every
// release decodes).
func (st *stream) cwdChanged(cwd string) error {
	return st.c.writeFrameJSON(wire.Header{Opcode: wire.OpMetadata, Stream: st.id}, wire.Metadata{Cwd: cwd})
}

func (st *stream) resized(r resizeEvent) error {
	f := st.c.h.opts.Features
	cols, rows := r.cols, r.rows
	if f.ResizedWrongGeometry {
		cols, rows = r.prevCols, r.prevRows // the negative control: the size before the resize
	}
	if f.MetadataOnResize {
		// A compatible change: Metadata (12), which every release decodes, at a new moment
		// (ahead of Resized, so whoever waits for Resized has seen it too).
		if err := st.c.writeFrameJSON(wire.Header{Opcode: wire.OpMetadata, Stream: st.id}, wire.Metadata{Cwd: r.cwd}); err != nil {
			return err
		}
	}
	return st.c.writeFrameJSON(wire.Header{Opcode: wire.OpResized, Stream: st.id},
		wire.Resized{Cols: cols, Rows: rows, Reason: "resize", Seq: st.seqOf(r.raw, r.display)})
}
