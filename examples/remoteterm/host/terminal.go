package host

import (
	"bytes"
	"errors"
	"sync"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// ErrWriteUnavailable is input to a terminal that does not accept writes.
var ErrWriteUnavailable = errors.New("terminal write unavailable")

// Emission is one piece of output the process produced.
type Emission struct {
	// Data is what is displayed.
	Data []byte
	// RawLength is how many raw bytes the process consumed to produce Data.
	RawLength   uint64
	Transformed bool
	// RawEnd and DisplayEnd are the terminal's raw and display high-water marks after it.
	RawEnd, DisplayEnd uint64
	// Index is the emission's ordinal on its terminal, from 1.
	Index uint64
}

// Terminal is a PTY stand-in: it records the input that reaches it and emits output when
// told. Seq counts raw bytes from 0; the initial scrollback is not counted.
type Terminal struct {
	name string
	sink observe.Sink

	mu           sync.Mutex
	cols, rows   int
	layoutSeq    uint64
	buf          []byte // everything displayed, initial scrollback included
	raw, display uint64
	emitted      uint64 // emissions so far
	cwd          string
	writable     bool
	input        []byte
	listeners    map[listener]struct{}
	// clients are the client ids that have subscribed (the resubscribeSeqAhead switch).
	clients map[string]bool
}

type listener struct {
	c      *conn
	stream uint32
}

// TerminalConfig is how a terminal starts.
type TerminalConfig struct {
	Name              string
	Cols, Rows        int
	InitialScrollback []byte
	Cwd               string
}

func newTerminal(cfg TerminalConfig, sink observe.Sink) *Terminal {
	t := &Terminal{
		name:      cfg.Name,
		sink:      sink,
		cols:      cfg.Cols,
		rows:      cfg.Rows,
		buf:       append([]byte(nil), cfg.InitialScrollback...),
		cwd:       cfg.Cwd,
		writable:  true,
		listeners: map[listener]struct{}{},
	}
	sink.Observe(observe.PTYOutput{Terminal: t.name, Bytes: append([]byte(nil), cfg.InitialScrollback...)})
	return t
}

// Name is the terminal's name.
func (t *Terminal) Name() string { return t.name }

// Emit makes the process write data (untransformed: raw length = len(data)).
func (t *Terminal) Emit(data []byte) Emission {
	return t.emit(data, uint64(len(data)), false)
}

// EmitTransformed makes the process write a transformed run: data is displayed,
// rawLength raw bytes were consumed.
func (t *Terminal) EmitTransformed(data []byte, rawLength uint64) Emission {
	return t.emit(data, rawLength, true)
}

func (t *Terminal) emit(data []byte, rawLength uint64, transformed bool) Emission {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, data...)
	t.raw += rawLength
	t.display += uint64(len(data))
	t.emitted++
	e := Emission{
		Index:       t.emitted,
		Data:        append([]byte(nil), data...),
		RawLength:   rawLength,
		Transformed: transformed,
		RawEnd:      t.raw,
		DisplayEnd:  t.display,
	}
	// Observed under the lock, so pty-output is reported in the order output happened.
	t.sink.Observe(observe.PTYOutput{Terminal: t.name, Bytes: e.Data})
	for l := range t.listeners {
		l.c.post(event{stream: l.stream, emission: &e})
	}
	return e
}

// Write delivers input to the process.
func (t *Terminal) Write(p []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.writable {
		t.sink.Observe(observe.InputRefused{Terminal: t.name, Bytes: append([]byte(nil), p...)})
		return ErrWriteUnavailable
	}
	t.input = append(t.input, p...)
	t.sink.Observe(observe.Input{Terminal: t.name, Bytes: append([]byte(nil), p...)})
	return nil
}

// SetWritable says whether the process accepts input.
func (t *Terminal) SetWritable(w bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writable = w
}

// SetCwd changes the process's working directory; every stream is told (Metadata).
func (t *Terminal) SetCwd(cwd string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cwd = cwd
	for l := range t.listeners {
		l.c.post(event{stream: l.stream, cwd: &cwd})
	}
}

// Input returns every byte of input that reached the process.
func (t *Terminal) Input() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.input...)
}

// Resize changes the terminal's size and tells every stream.
func (t *Terminal) Resize(cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := resizeEvent{cols: cols, rows: rows, prevCols: t.cols, prevRows: t.rows, raw: t.raw, display: t.display, cwd: t.cwd}
	t.cols, t.rows = cols, rows
	t.layoutSeq++
	for l := range t.listeners {
		l.c.post(event{stream: l.stream, resize: &r})
	}
}

// state is a serialized view of the terminal.
type state struct {
	data         []byte
	cols, rows   int
	layoutSeq    uint64
	raw, display uint64
	emitted      uint64 // the state includes emissions 1..emitted
	cwd          string
}

// snapshot serializes the terminal. scrollbackRows < 0 keeps the whole buffer; otherwise
// the snapshot keeps the last scrollbackRows+rows lines.
func (t *Terminal) snapshot(scrollbackRows int) state {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stateLocked(scrollbackRows)
}

func (t *Terminal) stateLocked(scrollbackRows int) state {
	data := t.buf
	if scrollbackRows >= 0 {
		data = lastLines(data, scrollbackRows+t.rows)
	}
	return state{
		data:      append([]byte(nil), data...),
		cols:      t.cols,
		rows:      t.rows,
		layoutSeq: t.layoutSeq,
		raw:       t.raw,
		display:   t.display,
		emitted:   t.emitted,
		cwd:       t.cwd,
	}
}

// attach serializes the terminal and registers a stream for everything emitted after it,
// atomically, so the stream neither misses nor repeats output. It reports whether client
// (an id, "" for none) had subscribed the terminal before: a client coming back.
func (t *Terminal) attach(c *conn, stream uint32, client string) (s state, again bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listeners[listener{c, stream}] = struct{}{}
	if client != "" {
		if t.clients == nil {
			t.clients = map[string]bool{}
		}
		again = t.clients[client]
		t.clients[client] = true
	}
	return t.stateLocked(-1), again
}

func (t *Terminal) detach(c *conn, stream uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.listeners, listener{c, stream})
}

// lastLines returns the suffix of b holding its last n lines (a trailing newline ends a
// line rather than starting one).
func lastLines(b []byte, n int) []byte {
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(b[:end], '\n')
		if j < 0 {
			return b
		}
		end = j
	}
	return b[end+1:]
}
