package driverkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"sync"
)

// maxLine bounds one action line (large payloads travel base64).
const maxLine = 64 << 20

// serve answers actions until stop, the end of the input, or ctx. A reader goroutine
// reads lines and never blocks on a busy handler: ordinary actions go to a queue that
// this goroutine works through in order; decode actions run at once, each in its own
// goroutine. serve waits for every goroutine it started except the reader, which it
// waits for too unless ctx ended the run while the reader is blocked on the input.
func (d *Driver) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := &queue{wake: make(chan struct{}, 1)}
	readErr := make(chan error, 1)
	go func() { readErr <- d.read(ctx, q) }()

	var stop *request
	for {
		r, ok := q.pop(ctx)
		if !ok {
			break
		}
		if r.Action == stopAction {
			stop = &r
			break
		}
		d.answer(ctx, r, d.handlers[r.Action])
	}
	q.close() // no more decode goroutines from here on
	q.decodes.Wait()
	if err := ctx.Err(); err != nil && stop == nil {
		return err
	}
	rerr := <-readErr // the reader has seen stop or the end of the input
	if stop != nil {
		if err := d.out.result(stop.ID, nil, nil); err != nil {
			return err
		}
	}
	if rerr != nil {
		return rerr
	}
	return d.out.writeErr()
}

// read reads action lines until stop or the end of the input.
func (d *Driver) read(ctx context.Context, q *queue) error {
	defer q.close()
	br := bufio.NewReaderSize(d.in, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		switch {
		case tooLong:
			d.Errorf("action line longer than %d bytes, skipped", maxLine)
		case len(line) > 0:
			var r request
			if jerr := json.Unmarshal(line, &r); jerr != nil {
				d.Errorf("action line %q: %v", truncate(line, 200), jerr)
				break
			}
			if r.Action == stopAction {
				q.push(r)
				return nil
			}
			if r.Action == decodeAction && d.decoder != nil {
				q.spawn(func() { d.answer(ctx, r, d.decodeHandler) })
				break
			}
			q.push(r)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read actions: %w", err)
		}
	}
}

// readLine reads one line without its newline. A line longer than maxLine is consumed
// and reported as tooLong. err is io.EOF after the last line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) <= maxLine+1 {
			line = append(line, chunk...)
		} else {
			tooLong, line = true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return line, tooLong, err
	}
}

// answer runs one action and writes its result. A panic in the handler is a failed
// result; its stack goes to the log (the standard logger, stderr by default).
func (d *Driver) answer(ctx context.Context, r request, h Handler) {
	data, err := d.call(ctx, r, h)
	_ = d.out.result(r.ID, data, err)
}

func (d *Driver) call(ctx context.Context, r request, h Handler) (data any, err error) {
	if h == nil {
		version := d.hello.Version
		if version == "" {
			version = "this build"
		}
		return nil, &Error{Code: CodeUnsupportedAction, Err: fmt.Errorf("no action %q in %s", r.Action, version)}
	}
	defer func() {
		if p := recover(); p != nil {
			log.Printf("driverkit: action %s (id %d) panicked: %v\n%s", r.Action, r.ID, p, debug.Stack())
			data, err = nil, Failed(fmt.Errorf("%s: panic: %v", r.Action, p))
		}
	}()
	return h(ctx, r.Args)
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}

// queue holds the ordinary actions waiting their turn, without bound, so the reader never
// waits for a handler. It also owns the decode goroutines: none starts after close.
type queue struct {
	mu      sync.Mutex
	items   []request
	closed  bool
	wake    chan struct{} // a token when items or closed changed
	decodes sync.WaitGroup
}

func (q *queue) push(r request) {
	q.mu.Lock()
	q.items = append(q.items, r)
	q.mu.Unlock()
	q.signal()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop returns the next action, or false once the queue is closed and empty or ctx is done.
func (q *queue) pop(ctx context.Context) (request, bool) {
	for {
		if ctx.Err() != nil {
			return request{}, false
		}
		q.mu.Lock()
		if len(q.items) > 0 {
			r := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return r, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return request{}, false
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
		}
	}
}

// spawn runs f in a goroutine the queue waits for, unless the queue is closed.
func (q *queue) spawn(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.decodes.Add(1)
	go func() {
		defer q.decodes.Done()
		f()
	}()
}
