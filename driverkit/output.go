package driverkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
)

const (
	// maxPending is how many bytes of lines may wait for a flush in progress before a
	// writer waits for it: a producer faster than stdout is held back, not buffered
	// without bound.
	maxPending = 4 << 20
	// keepBuffer is the largest buffer kept for reuse once written or encoded. A terminal's
	// snapshot observations run to a few megabytes a line: a buffer dropped after each is
	// a fresh allocation for the next, grown by doubling (each growth a copy) on pages the
	// kernel must fault in and zero, which cost the drivers more than the encoding.
	keepBuffer = 8 << 20
)

// output writes the driver's lines to stdout, each whole and in the order they are put.
//
// Writes combine under load without adding latency when idle ("flush combining"): a writer
// appends its line to a buffer under the lock; if no flush is in progress it becomes the
// flusher and writes everything buffered, outside the lock, until the buffer is empty; a
// writer arriving during a flush appends and returns. An idle driver writes each line at
// once; a busy one writes many lines per write call.
//
// Observations put before hello wait and follow it, so hello is always the first line.
// A line of a lane that has closed is dropped.
type output struct {
	w        io.Writer
	encoders sync.Pool // *lineEncoder, for encoding outside the lock

	mu       sync.Mutex
	cond     sync.Cond // on mu: a flush took the buffer or ended
	err      error     // the first write error; nothing is written after it
	open     bool      // hello has been put
	pending  []byte    // lines put and not yet being written
	spare    []byte    // a written buffer, reused for pending
	flushing bool      // a writer is writing outside the lock
}

func newOutput(w io.Writer) *output {
	o := &output{w: w}
	o.cond.L = &o.mu
	return o
}

// lineEncoder encodes one line (JSON and a newline, as json.Marshal would write the value)
// into a buffer it reuses.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (o *output) encoder() *lineEncoder {
	if e, ok := o.encoders.Get().(*lineEncoder); ok {
		e.buf.Reset()
		return e
	}
	e := &lineEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}

func (o *output) release(e *lineEncoder) {
	if e.buf.Cap() <= keepBuffer {
		o.encoders.Put(e)
	}
}

// put appends one encoded line (copied) and writes it unless a flush is in progress, which
// will write it. A line of a lane whose observations are dropped is discarded. It returns
// the first write error.
func (o *output) put(line []byte, l *Lane) error {
	o.mu.Lock()
	for o.flushing && len(o.pending) >= maxPending && o.err == nil {
		o.cond.Wait()
	}
	switch {
	case o.err != nil:
		err := o.err
		o.mu.Unlock()
		return err
	case l != nil && l.dropped:
		o.mu.Unlock()
		return nil
	}
	o.pending = append(o.pending, line...)
	if !o.open || o.flushing {
		o.mu.Unlock()
		return nil
	}
	return o.flush()
}

// flush writes what is pending, outside the lock, until nothing is. The caller holds o.mu;
// flush releases it.
func (o *output) flush() error {
	o.flushing = true
	for len(o.pending) > 0 && o.err == nil {
		b := o.pending
		o.pending, o.spare = o.spare[:0], nil
		o.cond.Broadcast() // room for writers waiting on a full buffer
		o.mu.Unlock()
		_, err := o.w.Write(b)
		o.mu.Lock()
		if err != nil && o.err == nil {
			o.err = fmt.Errorf("write to stdout: %w", err)
		}
		if cap(b) <= keepBuffer {
			o.spare = b[:0]
		}
	}
	if o.err != nil {
		o.pending = nil
	}
	o.flushing = false
	o.cond.Broadcast()
	err := o.err
	o.mu.Unlock()
	return err
}

// drain waits until every line put so far is written (or writing failed) and returns the
// first write error.
func (o *output) drain() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.flushing {
		o.cond.Wait()
	}
	return o.err
}

// drop discards l's lines from here on.
func (o *output) drop(l *Lane) {
	o.mu.Lock()
	l.dropped = true
	o.mu.Unlock()
}

func (o *output) hello(h helloLine) error {
	e := o.encoder()
	defer o.release(e)
	if err := e.enc.Encode(h); err != nil {
		return fmt.Errorf("encode hello: %w", err)
	}
	o.mu.Lock()
	o.pending = slices.Insert(o.pending, 0, e.buf.Bytes()...) // before the early observations
	o.open = true
	return o.flush()
}

func (o *output) ready(url string) error {
	e := o.encoder()
	defer o.release(e)
	if err := e.enc.Encode(readyLine{Type: "ready", URL: url}); err != nil {
		return err
	}
	return o.put(e.buf.Bytes(), nil)
}

// result writes the result of action id: ok with data (nil is {}), or err with its code.
// Data that cannot be encoded turns the result into a failure that says so.
func (o *output) result(id int64, data any, err error) error {
	e := o.encoder()
	defer o.release(e)
	if err == nil {
		if data == nil {
			data = struct{}{}
		}
		if eerr := e.enc.Encode(resultLine{Type: "result", ID: id, OK: true, Data: data}); eerr != nil {
			e.buf.Reset()
			err = Failed(fmt.Errorf("encode result: %w", eerr))
		}
	}
	if err != nil {
		if eerr := e.enc.Encode(resultLine{Type: "result", ID: id, Error: &resultError{Code: codeOf(err), Message: err.Error()}}); eerr != nil {
			return eerr
		}
	}
	return o.put(e.buf.Bytes(), nil)
}

// observe writes an observation of the driver's own instance (l nil) or of lane l.
func (o *output) observe(l *Lane, what string, data any) {
	if data == nil {
		data = struct{}{}
	}
	lane := 0
	if l != nil {
		lane = l.id
	}
	e := o.encoder()
	defer o.release(e)
	if err := e.enc.Encode(observeLine{Type: "observe", Lane: lane, What: what, Data: data}); err != nil {
		e.buf.Reset()
		_ = e.enc.Encode(observeLine{Type: "observe", Lane: lane, What: "error",
			Data: errorData{Message: fmt.Sprintf("encode %s observation: %v", what, err)}})
	}
	_ = o.put(e.buf.Bytes(), l)
}

// errorData is the data of an "error" observation.
type errorData struct {
	Message string `json:"message"`
}
