package host

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// Defaults.
const (
	DefaultBatchDelay   = 5 * time.Millisecond
	DefaultWriteTimeout = 10 * time.Second
	// batchBytes flushes a stream's output batch without waiting for the timer.
	batchBytes = 64 << 10
	// maxStreams is how many streams one connection may hold.
	maxStreams = 128
	// maxReadBytes bounds one client message.
	maxReadBytes = 16 << 20
)

// DefaultTerminal is the terminal a host has unless told otherwise: t1, 120×40.
func DefaultTerminal() TerminalConfig {
	return TerminalConfig{
		Name:              "t1",
		Cols:              120,
		Rows:              40,
		InitialScrollback: []byte("initial scrollback\r\n"),
		Cwd:               "/home/remoteterm",
	}
}

// Options configures a Host.
type Options struct {
	// Features is the release the host behaves as.
	Features release.Features
	// Sink receives the host's observations (default: discarded).
	Sink observe.Sink
	// Logf logs what the product would log (default: nothing).
	Logf func(format string, args ...any)
	// Opcodes overrides the host's C>H decoder table (a negative control: a build that
	// predates an opcode). Nil means wire.Opcodes(Features).
	Opcodes *wire.OpcodeSet
	// Terminals are the host's terminals (default: DefaultTerminal()).
	Terminals []TerminalConfig
	// BatchDelay is how long output waits to be batched (default DefaultBatchDelay). Only
	// how output is split into frames depends on it, never what is delivered.
	BatchDelay time.Duration
	// WriteTimeout bounds one socket write (default DefaultWriteTimeout).
	WriteTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Sink == nil {
		o.Sink = observe.Discard{}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Opcodes == nil {
		known := wire.Opcodes(o.Features)
		o.Opcodes = &known
	}
	if len(o.Terminals) == 0 {
		o.Terminals = []TerminalConfig{DefaultTerminal()}
	}
	if o.BatchDelay <= 0 {
		o.BatchDelay = DefaultBatchDelay
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	return o
}

// Host serves terminals over WebSocket.
type Host struct {
	opts      Options
	terminals map[string]*Terminal
	upgrader  websocket.Upgrader

	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	conns  sync.WaitGroup
}

// New returns a host with its terminals. Each terminal reports its initial scrollback as
// pty-output. Close the host to end its connections.
func New(opts Options) *Host {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{
		opts:      opts,
		terminals: map[string]*Terminal{},
		upgrader: websocket.Upgrader{
			// The host listens on loopback behind skewtest's tap; any origin may connect.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		ctx:    ctx,
		cancel: cancel,
	}
	for _, cfg := range opts.Terminals {
		h.terminals[cfg.Name] = newTerminal(cfg, opts.Sink)
	}
	return h
}

// Register mounts the terminal paths on mux.
func (h *Host) Register(mux *http.ServeMux) {
	mux.HandleFunc(wire.PathMultiplex, h.handler(wire.PathMultiplex))
	mux.HandleFunc(wire.PathSubscribe, h.handler(wire.PathSubscribe))
}

// Terminal returns the named terminal.
func (h *Host) Terminal(name string) (*Terminal, bool) {
	t, ok := h.terminals[name]
	return t, ok
}

// Close ends every connection and waits for them. New connections are refused.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.conns.Wait()
}

func (h *Host) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns.Add(1)
	return true
}

func (h *Host) handler(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.enter() {
			http.Error(w, "host closing", http.StatusServiceUnavailable)
			return
		}
		defer h.conns.Done()
		ws, err := h.upgrader.Upgrade(w, r, nil)
		if err != nil {
			h.opts.Logf("upgrade %s: %v", path, err)
			return
		}
		ws.SetReadLimit(maxReadBytes)
		newConn(h, ws, path).run(h.ctx)
	}
}
