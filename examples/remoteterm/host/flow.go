package host

import (
	"fmt"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/ledger"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// pump sends queued frames, oldest first, while the stream is not paused and flow control
// admits the head. A head the ledger refuses for now stays parked; later frames wait
// behind it. If the queue then holds more than pendingLimit bytes, the stream is recovered
// with a snapshot.
func (st *stream) pump() error {
	for len(st.queue) > 0 && !st.holding() && !st.detached {
		it := st.queue[0]
		f := it.frame
		var adm *ledger.Admission
		switch st.terms.Acks {
		case AckLedger:
			a, err := st.ledger.Prepare(len(f.Payload), f.DisplayLength, f.Seq, sourceRanges(f.Source))
			if err != nil {
				if ledger.Fatal(err) {
					return st.detach("source-range-ledger", err)
				}
				st.c.h.opts.Logf("stream %d: output parked, %d frames queued: %v", st.id, len(st.queue), err)
				return st.checkOverflow()
			}
			adm = a
		case AckBytes:
			if st.inFlight > 0 && st.inFlight+uint64(len(f.Payload)) > st.window {
				return st.checkOverflow()
			}
		}
		if err := st.c.writeFrame(wire.Header{Opcode: f.Opcode, Stream: st.id, Seq: f.Seq}, f.Payload); err != nil {
			if adm != nil {
				adm.Rollback()
			}
			return err
		}
		if adm != nil {
			adm.Commit()
		}
		if st.terms.Acks == AckBytes {
			st.inFlight += uint64(len(f.Payload))
		}
		st.queue = st.queue[1:]
		st.queuedBytes -= len(f.Payload)
	}
	return st.checkOverflow()
}

func (st *stream) checkOverflow() error {
	if st.queuedBytes <= pendingLimit || st.detached {
		return nil
	}
	st.queue, st.queuedBytes, st.batch = nil, 0, nil
	s := st.term.snapshot(-1)
	if st.ledger != nil {
		st.ledger.Recover(s.raw)
	}
	return st.sendSnapshot(s, "ack-pending-overflow", snapshotOptions{recovery: true})
}

// sourceRanges is what a frame tells the ledger about its source: nothing when the
// chunker could not map it.
func sourceRanges(r *chunker.Range) []ledger.SourceRange {
	if r == nil {
		return nil
	}
	return []ledger.SourceRange{{Start: r.Start, End: r.End, Transformed: r.Transformed}}
}

func (st *stream) ack(a wire.Ack) error {
	if err := a.Validate(); err != nil {
		return st.c.rejectAt(wire.Frame{Header: wire.Header{Opcode: wire.OpAck, Stream: st.id}}, "", err.Error())
	}
	if a.Bytes != nil {
		if st.terms.Acks != AckBytes {
			return nil
		}
		n := min(*a.Bytes, st.inFlight)
		st.inFlight -= n
		st.window = min(st.window+n, maxWindow)
		return st.pump()
	}
	if st.ledger == nil {
		st.c.h.opts.Logf("stream %d: ledger ack without a ledger", st.id)
		return nil
	}
	switch out := st.ledger.Acknowledge(a.StreamGeneration, *a.AckedEndByte); out {
	case ledger.Accepted:
		return st.pump()
	case ledger.Invalid, ledger.Excessive:
		st.c.h.opts.Sink.Observe(observe.Error{Message: fmt.Sprintf(
			"stream %d: ack to byte %d of generation %s: %v", st.id, *a.AckedEndByte, a.StreamGeneration, out)})
	default:
		st.c.h.opts.Logf("stream %d: ack to byte %d: %v", st.id, *a.AckedEndByte, out)
	}
	return nil
}

func (st *stream) setPaused(p bool) error {
	if !st.terms.Echo.Has(wire.CapOutputPause) {
		// Rule 2: opcode 16 is acted on only after the outputPause echo.
		st.c.h.opts.Logf("stream %d: SetOutputPaused without outputPause; ignored", st.id)
		return nil
	}
	st.paused = p
	st.c.h.opts.Sink.Observe(observe.OutputPaused{Terminal: st.term.name, Paused: p})
	if p {
		return nil
	}
	return st.flush()
}

// holding reports whether the stream holds its output back: paused, unless the host is the
// negative control whose pause does not pause.
func (st *stream) holding() bool {
	return st.paused && !st.c.h.opts.Features.PauseIgnored
}
