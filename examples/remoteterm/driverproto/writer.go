package driverproto

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// Writer writes a driver's lines. It is safe for concurrent use: every line is written
// whole, under one lock. It is an observe.Sink.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewWriter returns a Writer on w (the driver's stdout).
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Err is the first write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode driver message: %w", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("write driver message: %w", err)
	}
	return w.err
}

// Hello writes the hello line, which must be first.
func (w *Writer) Hello(role Role, kind string, build Build, actions []string) error {
	if actions == nil {
		actions = []string{}
	}
	return w.line(hello{Type: "hello", Protocol: Version, Role: role, Kind: kind, Build: build, Actions: actions})
}

// Ready writes the ready line; url is empty for a client.
func (w *Writer) Ready(url string) error {
	return w.line(ready{Type: "ready", URL: url})
}

// Result writes the result of action id: ok with data, or the error with its code.
func (w *Writer) Result(id int64, data any, err error) error {
	if err != nil {
		return w.line(result{Type: "result", ID: id, Error: &resultError{Code: codeOf(err), Message: err.Error()}})
	}
	if data == nil {
		data = struct{}{}
	}
	return w.line(result{Type: "result", ID: id, OK: true, Data: data})
}

// Observe writes an observation. A write error is kept for Err.
func (w *Writer) Observe(o observe.Observation) {
	_ = w.line(observation{Type: "observe", What: o.What(), Data: o})
}
