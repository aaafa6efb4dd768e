package host

import "github.com/skewtest/skewtest/examples/remoteterm/chunker"

// deliver takes one emission of the stream's terminal. Untransformed output is batched;
// a transformed run flushes the batch and is framed alone, per the stream's SpanPolicy.
func (st *stream) deliver(e Emission) error {
	if st.detached || e.Index <= st.skipThrough {
		return nil
	}
	if !e.Transformed {
		if len(e.Data) == 0 {
			return nil
		}
		st.batch = append(st.batch, e.Data...)
		st.batchRaw, st.batchDisplay, st.batchIndex = e.RawEnd, e.DisplayEnd, e.Index
		if len(st.batch) >= batchBytes {
			return st.flush()
		}
		st.c.armTimer()
		return nil
	}
	st.frameBatch()
	var frames []chunker.Frame
	if st.terms.Spans == SpanRebase {
		// In display bytes the run is untransformed: every chunk maps and carries its seq.
		if len(e.Data) > 0 {
			frames = chunker.Frames(e.Data, chunker.Meta{Seq: e.DisplayEnd, RawLength: uint64(len(e.Data))}, chunker.Options{CutCodePoints: st.terms.Chunking.CutCodePoints})
		}
	} else {
		frames = chunker.Frames(e.Data, chunker.Meta{Seq: e.RawEnd, RawLength: e.RawLength, Transformed: true}, st.terms.Chunking)
	}
	st.enqueue(frames, e.Index)
	return st.pump()
}

// flush frames the batch and sends what flow control allows.
func (st *stream) flush() error {
	st.frameBatch()
	return st.pump()
}

// frameBatch moves the batch into the ack-pending queue as Output frames.
func (st *stream) frameBatch() {
	if len(st.batch) == 0 {
		return
	}
	meta := chunker.Meta{Seq: st.seqOf(st.batchRaw, st.batchDisplay), RawLength: uint64(len(st.batch))}
	st.enqueue(chunker.Frames(st.batch, meta, st.terms.Chunking), st.batchIndex)
	st.batch = nil
}

func (st *stream) enqueue(frames []chunker.Frame, index uint64) {
	for _, f := range frames {
		st.queue = append(st.queue, queued{frame: f, index: index})
		st.queuedBytes += len(f.Payload)
	}
}
