package host

import (
	"bytes"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// snapshotCacheRows is the scrollback a reveal keeps on the snapshotRowsCapped negative
// control, whatever the request asks for.
const snapshotCacheRows = 50

type snapshotOptions struct {
	requestID int64
	// recovery: the host dropped queued output and recovers the stream with this snapshot.
	recovery bool
	// resumed: the subscribing client had subscribed the terminal before (a resubscribe).
	resumed bool
}

// requested answers a SnapshotRequest.
func (st *stream) requested(r wire.SnapshotRequest) error {
	rows := -1
	if r.ScrollbackRows != nil && !st.c.h.opts.Features.ScrollbackRowsIgnored {
		rows = min(max(*r.ScrollbackRows, 0), wire.MaxScrollbackRows)
		if st.c.h.opts.Features.SnapshotRowsCapped {
			// The negative control: reveals are served from a fixed-size scrollback cache.
			rows = min(rows, snapshotCacheRows)
		}
	}
	reason := "request"
	if r.RequestID == 0 {
		reason = "resync"
	}
	return st.sendSnapshot(st.term.snapshot(rows), reason, snapshotOptions{requestID: r.RequestID})
}

// sendSnapshot sends s as SnapshotStart, SnapshotChunk(s) of at most 48 KiB, SnapshotEnd.
//
// Output the snapshot covers is not sent again to a stream without a ledger (a client that
// ignores seq would render it twice). A stream with a ledger keeps its ack-pending queue in
// order, because its ranges must stay contiguous; its client drops the frames the snapshot
// covers by seq. Only a recovery resets the ledger's position and skips covered output.
func (st *stream) sendSnapshot(s state, reason string, o snapshotOptions) error {
	if st.ledger == nil || o.recovery {
		st.batch = nil
		kept := st.queue[:0]
		for _, q := range st.queue {
			if q.index > s.emitted {
				kept = append(kept, q)
			} else {
				st.queuedBytes -= len(q.frame.Payload)
			}
		}
		st.queue = kept
		st.skipThrough = max(st.skipThrough, s.emitted)
	} else {
		st.frameBatch()
	}

	f := st.c.h.opts.Features
	start := wire.SnapshotStart{
		Kind:      "scrollback",
		Cols:      s.cols,
		Rows:      s.rows,
		RequestID: o.requestID,
		Seq:       st.seqOf(s.raw, s.display),
		Source:    "headless",
		Truncated: false,
	}
	if o.recovery {
		start.Reason = reason
	}
	if f.ResubscribeSeqAhead && o.resumed {
		// The negative control: a returning client's snapshot counts the output its previous
		// stream was sent once more, so it claims to cover output not yet written.
		start.Seq += start.Seq
	}
	if f.SnapshotResumeOffByOne && reason == "subscribe" && start.Seq > 0 {
		// The negative control: a subscribe's snapshot taken mid-stream names a resume point
		// one byte past the output it covers.
		start.Seq++
	}
	if f.PublishCwd {
		start.Cwd = s.cwd
	}
	if f.SnapshotOwnerFields {
		alt := false
		start.AlternateScreen = &alt
		start.TerminalOwner = "shell"
	}
	if f.SnapshotCursor {
		start.Cursor = cursorAfter(s.data, s.rows)
	}
	// Reported before the first frame is written: a client can act on the snapshot (and make
	// the host send the next one) as soon as SnapshotEnd arrives, so reporting after it could
	// put two snapshots' reports out of order.
	st.c.h.opts.Sink.Observe(observe.SnapshotSent{Terminal: st.term.name, Reason: reason, Bytes: s.data})
	if err := st.c.writeFrameJSON(wire.Header{Opcode: wire.OpSnapshotStart, Stream: st.id, Seq: start.Seq}, start); err != nil {
		return err
	}
	for _, p := range st.terms.Chunking.Split(s.data, chunker.MaxFrameBytes) {
		if err := st.c.writeFrame(wire.Header{Opcode: wire.OpSnapshotChunk, Stream: st.id}, p); err != nil {
			return err
		}
	}
	if err := st.c.writeFrame(wire.Header{Opcode: wire.OpSnapshotEnd, Stream: st.id}, nil); err != nil {
		return err
	}
	return st.pump()
}

// cursorAfter is where the cursor stands after data is drawn on a screen of rows lines: at
// the end of its last line, on the last row once data fills the screen.
func cursorAfter(data []byte, rows int) *wire.Cursor {
	line := bytes.LastIndexByte(data, '\n')
	return &wire.Cursor{Row: min(bytes.Count(data, []byte("\n")), max(rows-1, 0)), Col: len(data) - line - 1}
}
