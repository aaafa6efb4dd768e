package driverkit

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// output writes the driver's lines to stdout, each whole, under one lock. Observations
// made before hello wait and follow it, so hello is always the first line.
type output struct {
	mu    sync.Mutex
	w     io.Writer
	err   error    // the first write error; nothing is written after it
	open  bool     // hello has been written
	early [][]byte // observations made before hello
}

func encodeLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeLocked writes one line; the caller holds o.mu.
func (o *output) writeLocked(b []byte) error {
	if o.err != nil {
		return o.err
	}
	if _, err := o.w.Write(b); err != nil {
		o.err = fmt.Errorf("write to stdout: %w", err)
	}
	return o.err
}

func (o *output) hello(h helloLine) error {
	b, err := encodeLine(h)
	if err != nil {
		return fmt.Errorf("encode hello: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.writeLocked(b); err != nil {
		return err
	}
	o.open = true
	for _, e := range o.early {
		_ = o.writeLocked(e)
	}
	o.early = nil
	return o.err
}

func (o *output) line(v any) error {
	b, err := encodeLine(v)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.writeLocked(b)
}

func (o *output) ready(url string) error {
	return o.line(readyLine{Type: "ready", URL: url})
}

// result writes the result of action id: ok with data (nil is {}), or err with its code.
// Data that cannot be encoded turns the result into a failure that says so.
func (o *output) result(id int64, data any, err error) error {
	if err == nil {
		if data == nil {
			data = struct{}{}
		}
		werr := o.line(resultLine{Type: "result", ID: id, OK: true, Data: data})
		if werr == nil || o.writeErr() != nil {
			return werr
		}
		err = Failed(fmt.Errorf("encode result: %w", werr))
	}
	return o.line(resultLine{Type: "result", ID: id, Error: &resultError{Code: codeOf(err), Message: err.Error()}})
}

func (o *output) observe(what string, data any) {
	if data == nil {
		data = struct{}{}
	}
	b, err := encodeLine(observeLine{Type: "observe", What: what, Data: data})
	if err != nil {
		b, _ = encodeLine(observeLine{Type: "observe", What: "error",
			Data: errorData{Message: fmt.Sprintf("encode %s observation: %v", what, err)}})
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.open {
		o.early = append(o.early, b)
		return
	}
	_ = o.writeLocked(b)
}

func (o *output) writeErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// errorData is the data of an "error" observation.
type errorData struct {
	Message string `json:"message"`
}
