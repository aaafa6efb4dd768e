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

// server is one Run's answering of actions: a reader goroutine that reads action lines
// and routes them, the driver's own queue (worked by serve's goroutine), a goroutine per
// decode action, and a queue and goroutine per open lane. serve owns them all.
type server struct {
	d    *Driver
	ctx  context.Context // cancelled when serve returns
	main *queue          // the driver's own instance's actions

	mu      sync.Mutex
	closed  bool          // no new decode goroutines or lanes
	lanes   map[int]*Lane // the open lanes, by number
	decodes sync.WaitGroup
	workers sync.WaitGroup // one per lane
}

// serve answers actions until stop, the end of the input, or ctx. The reader goroutine
// reads lines and never blocks on a busy handler: the driver's own actions go to a queue
// that this goroutine works through in order; each lane's go to the lane's queue, worked
// by the lane's goroutine; decode actions run at once, each in its own goroutine. serve
// waits for every goroutine it started except the reader, which it waits for too unless
// ctx ended the run while the reader is blocked on the input.
func (d *Driver) serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{d: d, ctx: ctx, main: newQueue(), lanes: map[int]*Lane{}}
	readErr := make(chan error, 1)
	go func() { readErr <- s.read() }()

	var stop request // Action is stopAction once stop has come
	for {
		r, ok := s.main.pop(ctx)
		if !ok {
			break
		}
		if r.Action == stopAction {
			stop = r
			break
		}
		d.answer(ctx, r, d.handlers[r.Action])
	}
	stopped := stop.Action == stopAction
	s.shutdown() // every lane closed, every decode answered
	if err := ctx.Err(); err != nil && !stopped {
		return err
	}
	rerr := <-readErr // the reader has seen stop or the end of the input
	if stopped {
		if err := d.out.result(stop.ID, nil, nil); err != nil {
			return err
		}
	}
	if err := d.out.drain(); err != nil {
		return err
	}
	return rerr
}

// shutdown starts no more decode goroutines or lanes, closes every open lane's queue (the
// lane finishes what it was sent, then closes), and waits for the decodes and the lanes.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	for id, l := range s.lanes {
		l.q.close()
		delete(s.lanes, id)
	}
	s.mu.Unlock()
	s.main.close()
	s.decodes.Wait()
	s.workers.Wait()
}

// read reads action lines until stop or the end of the input, and routes each.
func (s *server) read() error {
	defer s.main.close()
	br := bufio.NewReaderSize(s.d.in, 64<<10)
	var buf []byte // reused from line to line: a request keeps nothing of it
	for {
		line, tooLong, err := readLine(br, buf)
		switch {
		case tooLong:
			s.d.Errorf("action line longer than %d bytes, skipped", maxLine)
		case len(line) > 0:
			if s.route(line) {
				return nil
			}
		}
		if cap(line) <= keepBuffer {
			buf = line[:0]
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read actions: %w", err)
		}
	}
}

// route hands one action line to whoever answers it, and reports whether it was stop.
func (s *server) route(line []byte) (stop bool) {
	r, ok := fastRequest(line)
	if !ok {
		if err := json.Unmarshal(line, &r); err != nil {
			s.d.Errorf("action line %q: %v", truncate(line, 200), err)
			return false
		}
	}
	lanes := s.d.open != nil
	switch {
	case r.Action == stopAction:
		s.main.push(r)
		return true
	case r.Action == decodeAction && s.d.decoder != nil:
		decode := r // only a decode's copy escapes to its goroutine
		s.spawn(func() { s.d.answer(s.ctx, decode, s.d.decodeHandler) })
	case r.Action == openLaneAction && lanes:
		s.openLane(r)
	case r.Action == closeLaneAction && lanes:
		s.closeLane(r)
	case r.Lane != 0:
		s.toLane(r)
	default:
		s.main.push(r)
	}
	return false
}

// spawn runs f in a goroutine serve waits for, unless serve is shutting down.
func (s *server) spawn(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.decodes.Add(1)
	go func() {
		defer s.decodes.Done()
		f()
	}()
}

// toLane queues an action of lane r.Lane, or answers bad-args when the lane is not open.
func (s *server) toLane(r request) {
	s.mu.Lock()
	l, closed := s.lanes[r.Lane], s.closed
	if l != nil {
		l.q.push(r)
	}
	s.mu.Unlock()
	if l == nil && !closed {
		_ = s.d.out.result(r.ID, nil, BadArgs("%s: lane %d is not open", r.Action, r.Lane))
	}
}

// laneOf reads the lane an open-lane or close-lane names; a bad one is answered bad-args.
func (s *server) laneOf(r request) (laneArgs, bool) {
	args, err := Args[laneArgs](r.Args)
	if err == nil && args.Lane <= 0 {
		err = BadArgs("%s needs a positive lane, not %d", r.Action, args.Lane)
	}
	if err != nil {
		_ = s.d.out.result(r.ID, nil, err)
		return args, false
	}
	return args, true
}

// openLane makes a lane and its goroutine, and queues the open as the lane's first action,
// so the lane's later actions wait for it.
func (s *server) openLane(r request) {
	args, ok := s.laneOf(r)
	if !ok {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.lanes[args.Lane] != nil {
		s.mu.Unlock()
		_ = s.d.out.result(r.ID, nil, BadArgs("open-lane: lane %d is already open", args.Lane))
		return
	}
	l := newLane(args.Lane, args.HostURL, s.d.out)
	s.lanes[l.id] = l
	l.q.push(r)
	s.workers.Add(1)
	go s.work(l)
	s.mu.Unlock()
}

// closeLane forgets the lane, so later actions for it are answered bad-args, and queues
// the close as its last action.
func (s *server) closeLane(r request) {
	args, ok := s.laneOf(r)
	if !ok {
		return
	}
	s.mu.Lock()
	l, closed := s.lanes[args.Lane], s.closed
	if l != nil {
		delete(s.lanes, l.id)
		l.q.push(r)
		l.q.close()
	}
	s.mu.Unlock()
	if l == nil && !closed {
		_ = s.d.out.result(r.ID, nil, BadArgs("close-lane: lane %d is not open", args.Lane))
	}
}

// forget takes a lane whose open failed out of the table; it answers what it was sent.
func (s *server) forget(l *Lane) {
	s.mu.Lock()
	if s.lanes[l.id] == l {
		delete(s.lanes, l.id)
	}
	l.q.close()
	s.mu.Unlock()
}

// work is lane l's goroutine: it opens the lane, answers its actions in order, and closes
// it at close-lane, or when its queue ends (stop, the end of the input) or the run does.
func (s *server) work(l *Lane) {
	defer s.workers.Done()
	for {
		r, ok := l.q.pop(s.ctx)
		if !ok {
			break
		}
		switch {
		case r.Action == openLaneAction:
			s.open(l, r)
		case l.failed:
			_ = s.d.out.result(r.ID, nil, BadArgs("%s: lane %d is not open", r.Action, l.id))
		case r.Action == closeLaneAction:
			l.close()
			_ = s.d.out.result(r.ID, nil, nil)
			return
		default:
			s.d.answer(s.ctx, r, l.handlers[r.Action])
		}
	}
	l.close()
}

// open calls the driver's open function on l and answers open-lane. When open fails, the
// lane closes (what it registered with OnClose runs) and is forgotten.
func (s *server) open(l *Lane, r request) {
	data, err := s.d.call(s.ctx, r, func(ctx context.Context, _ json.RawMessage) (any, error) {
		url, err := s.d.open(ctx, l)
		if err != nil || url == "" {
			return nil, err
		}
		return laneURL{URL: url}, nil
	})
	l.setOpened(err == nil)
	if err != nil {
		s.forget(l)
		l.close()
	}
	_ = s.d.out.result(r.ID, data, err)
}

// readLine reads one line without its newline, into buf's array when it fits. A line
// longer than maxLine is consumed and reported as tooLong. err is io.EOF after the last
// line.
func readLine(br *bufio.Reader, buf []byte) (line []byte, tooLong bool, err error) {
	line = buf[:0]
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
