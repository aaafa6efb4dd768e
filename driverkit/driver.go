package driverkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
)

// The actions the kit answers itself.
const (
	stopAction   = "stop"
	decodeAction = "decode"
)

// Hello is what a driver says about itself in its hello line. The actions it lists are
// the registered handlers, stop, decode when a decoder is registered, and open-lane and
// close-lane when the driver serves lanes.
type Hello struct {
	Role    string // Host or Client
	Kind    string // the client kind, e.g. "desktop"; empty for a host
	Product string // the product's name
	Version string // the build's version, e.g. "v1.4.173" or "worktree"
}

// Handler carries out one action with the build's real code. It returns the result's data
// (nil is {}) or an error: BadArgs for bad arguments, anything else is a failed result.
// A handler that panics is answered with a failed result; the driver keeps serving.
type Handler func(ctx context.Context, args json.RawMessage) (any, error)

// Args decodes an action's args into a T. Unknown fields are ignored (the protocol is
// append-only); absent or null args decode as T's zero value. Malformed args are a
// BadArgs error.
func Args[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 || string(raw) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, BadArgs("args: %v", err)
	}
	return v, nil
}

// Driver speaks the driver protocol for one driver process. Register handlers (Handle,
// Decode, Lanes) before Run; Observe and Errorf may be called from any goroutine at any
// time. The Driver is the driver's own instance of its role (an Instance); each lane is
// another (Lanes).
type Driver struct {
	in    io.Reader
	out   *output
	hello Hello

	mu       sync.Mutex
	handlers map[string]Handler
	params   map[string][]Param // Describe
	decoder  func(Frame) Decoded
	open     func(ctx context.Context, l *Lane) (url string, err error) // nil: no lanes
	running  bool
}

// New returns a driver that reads actions from in and writes its lines to out. In a
// driver's main these are the process's stdin and stdout, best taken from Stdio.
func New(in io.Reader, out io.Writer, hello Hello) *Driver {
	return &Driver{in: in, out: newOutput(out), hello: hello, handlers: map[string]Handler{}}
}

// Handle registers the handler of an action. Registering a name twice, stop, decode (see
// Decode), open-lane or close-lane (see Lanes), or registering after Run has started, is
// a programming error and panics.
func (d *Driver) Handle(action string, h Handler) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running {
		panic(fmt.Sprintf("driverkit: Handle(%q) after Run", action))
	}
	register(d.handlers, action, h)
}

// register adds h to a handler table (the driver's or a lane's), panicking on a name the
// kit answers itself or one registered already.
func register(handlers map[string]Handler, action string, h Handler) {
	switch {
	case action == "" || h == nil:
		panic("driverkit: Handle needs an action name and a handler")
	case action == stopAction:
		panic("driverkit: stop is built in: close what the driver opened after Run returns")
	case action == decodeAction:
		panic("driverkit: register decode with Decode")
	case action == openLaneAction || action == closeLaneAction:
		panic(fmt.Sprintf("driverkit: %s is built in: serve lanes with Lanes", action))
	}
	if _, dup := handlers[action]; dup {
		panic(fmt.Sprintf("driverkit: action %q registered twice", action))
	}
	handlers[action] = h
}

// Observe writes an observation: what the product did, named what, with data as its JSON
// (nil is {}). It is safe from any goroutine; every line is written whole. Observations
// made before Run wait and follow the hello line. An observation about a lane's instance
// is written with the Lane's Observe instead.
func (d *Driver) Observe(what string, data any) {
	d.out.observe(nil, what, data)
}

// Errorf writes an "error" observation, {"message": …}: an internal error of the driver or
// the product that no action's result carries.
func (d *Driver) Errorf(format string, a ...any) {
	d.out.observe(nil, "error", errorData{Message: fmt.Sprintf(format, a...)})
}

// actions lists what hello announces: the handlers, stop, decode if registered, and the
// lane actions if the driver serves lanes.
func (d *Driver) actions() []string {
	names := []string{stopAction}
	for n := range d.handlers {
		names = append(names, n)
	}
	if d.decoder != nil {
		names = append(names, decodeAction)
	}
	if d.open != nil {
		names = append(names, openLaneAction, closeLaneAction)
	}
	slices.Sort(names)
	return names
}

// Run speaks the protocol until the driver should exit. It writes hello; calls start (a
// host starts listening and returns its ws:// base URL, a client returns ""; nil starts
// nothing); writes ready; then reads actions from the input and answers each with a result,
// until a stop action (whose result is written last, after every earlier action's) or the
// end of the input. It returns nil then, and the caller closes what the driver opened.
//
// An error from start is written as an "error" observation and returned, without ready.
// Cancelling ctx cancels the handlers' context and ends Run early (without waiting for
// the input to end). Handlers get a context that is cancelled when Run returns. Run is
// called once; a second call panics.
//
// A driver that serves lanes (Lanes) has every open lane closed (its OnClose functions
// run) before Run returns, whichever way it returns.
func (d *Driver) Run(ctx context.Context, start func(ctx context.Context) (url string, err error)) error {
	d.mu.Lock()
	if d.running {
		d.mu.Unlock()
		panic("driverkit: Run called twice")
	}
	d.running = true
	d.mu.Unlock()

	h := d.hello
	if err := d.out.hello(helloLine{Type: "hello", Protocol: Version, Role: h.Role, Kind: h.Kind,
		Build: buildInfo{Product: h.Product, Version: h.Version}, Actions: d.actions(), Params: d.described()}); err != nil {
		return err
	}
	url := ""
	if start != nil {
		var err error
		if url, err = start(ctx); err != nil {
			d.Errorf("%v", err)
			return fmt.Errorf("start: %w", err)
		}
	}
	if err := d.out.ready(url); err != nil {
		return err
	}
	return d.serve(ctx)
}
