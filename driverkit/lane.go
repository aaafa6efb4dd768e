package driverkit

import (
	"context"
	"fmt"
	"log"
	"runtime/debug"
	"sync"
)

// The lane actions the kit answers itself (docs/driver-protocol.md, "Lanes").
const (
	openLaneAction  = "open-lane"
	closeLaneAction = "close-lane"
)

// Instance is one instance of the driver's role as the code that builds it sees it: where
// it registers the actions it answers and reports what it observes. The *Driver is the
// driver's own instance; each *Lane is another one. A driver that builds its role against
// an Instance builds its own instance and every lane's with the same code.
type Instance interface {
	// Handle registers the handler of an action of this instance.
	Handle(action string, h Handler)
	// Observe writes an observation about this instance.
	Observe(what string, data any)
	// Errorf writes an "error" observation about this instance.
	Errorf(format string, a ...any)
}

var (
	_ Instance = (*Driver)(nil)
	_ Instance = (*Lane)(nil)
)

// Lanes makes the driver serve lanes: several independent instances of its role in one
// process, each running one pairing (docs/driver-protocol.md, "Lanes"). hello then lists
// open-lane and close-lane.
//
// Each open-lane calls open with a new Lane. open builds a fresh instance of the role on
// it, the way the driver builds its own: it registers the lane's handlers (l.Handle), starts
// what the instance needs, registers what closes it (l.OnClose), and returns the base URL a
// host lane listens on (driverkit.Listen), or "" for a client lane, which reaches its host
// at l.HostURL(). The open-lane result carries the URL ({"url": …}) or is {}. An error
// from open is the open-lane result (failed unless it is a BadArgs or Unsupported error);
// the lane's OnClose functions registered so far run, and the lane is not open.
//
// open runs on the lane's own goroutine, like the lane's actions after it: actions of one
// lane run one at a time in the order sent; actions of different lanes, and of the
// driver's own instance, run concurrently. close-lane waits for the lane's earlier
// actions, runs its OnClose functions and then writes its result; whatever the lane
// observes after that is dropped. stop, or the end of the input, closes every open lane
// the same way before Run returns.
//
// Lanes is called before Run, at most once, with a non-nil open; anything else panics.
func (d *Driver) Lanes(open func(ctx context.Context, l *Lane) (url string, err error)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.running:
		panic("driverkit: Lanes after Run")
	case open == nil:
		panic("driverkit: Lanes needs a function")
	case d.open != nil:
		panic("driverkit: Lanes registered twice")
	}
	d.open = open
}

// Lane is one lane of a driver that serves lanes (Driver.Lanes): an instance of the role
// with its own handlers, whose observations carry the lane's number. Handle is called
// only while the lane opens (in the open function); Observe, Errorf and OnClose may be
// called from any goroutine at any time.
type Lane struct {
	id      int
	hostURL string
	out     *output
	q       *queue // the lane's actions, in order, worked by its goroutine

	mu       sync.Mutex
	handlers map[string]Handler // read without mu once opened is set
	opened   bool               // open has returned: the handler table is fixed
	failed   bool               // open failed: the lane never opened
	onClose  []func()
	done     bool // the OnClose functions have run

	dropped bool // guarded by out.mu: the lane is closed and its observations are dropped
}

func newLane(id int, hostURL string, out *output) *Lane {
	return &Lane{id: id, hostURL: hostURL, out: out, q: newQueue(), handlers: map[string]Handler{}}
}

// ID is the lane's number, as skewtest chose it in open-lane.
func (l *Lane) ID() int { return l.id }

// HostURL is, for a client lane, the base URL of the host to reach (ws://127.0.0.1:PORT,
// the lane's own wire tap), from open-lane's hostURL; "" when open-lane carried none.
// A client lane uses it instead of SKEWTEST_HOST_URL.
func (l *Lane) HostURL() string { return l.hostURL }

// Handle registers the handler of an action of this lane, with the rules of
// Driver.Handle. It is called while the lane opens; after open has returned it panics.
func (l *Lane) Handle(action string, h Handler) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened {
		panic(fmt.Sprintf("driverkit: lane %d: Handle(%q) after the lane opened", l.id, action))
	}
	register(l.handlers, action, h)
}

// Observe writes an observation about this lane's instance, tagged "lane": N. It is safe
// from any goroutine; once the lane's close-lane result is written it writes nothing.
func (l *Lane) Observe(what string, data any) {
	l.out.observe(l, what, data)
}

// Errorf writes an "error" observation about this lane's instance, tagged "lane": N.
func (l *Lane) Errorf(format string, a ...any) {
	l.out.observe(l, "error", errorData{Message: fmt.Sprintf(format, a...)})
}

// OnClose registers f to run when the lane closes (close-lane, stop, the end of the input,
// or a failed open), after the lane's last action and before close-lane's result. The
// functions run in the reverse order of their registration, each once; one that panics is
// reported as an "error" observation of the lane. OnClose on a lane that has closed
// already runs f at once.
func (l *Lane) OnClose(f func()) {
	if f == nil {
		return
	}
	l.mu.Lock()
	if !l.done {
		l.onClose = append(l.onClose, f)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	f()
}

// close runs the OnClose functions, once, newest first, then drops the lane's
// observations from here on. A function that panics is reported as an error observation
// of the lane (its stack goes to the log), and the others still run.
func (l *Lane) close() {
	l.mu.Lock()
	fs := l.onClose
	l.onClose, l.done = nil, true
	l.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		l.runOnClose(fs[i])
	}
	l.out.drop(l)
}

func (l *Lane) runOnClose(f func()) {
	defer func() {
		if p := recover(); p != nil {
			log.Printf("driverkit: lane %d: OnClose panicked: %v\n%s", l.id, p, debug.Stack())
			l.Errorf("lane %d: close: panic: %v", l.id, p)
		}
	}()
	f()
}

// setOpened fixes the handler table once open has returned.
func (l *Lane) setOpened(ok bool) {
	l.mu.Lock()
	l.opened, l.failed = true, !ok
	l.mu.Unlock()
}

// laneArgs are the args of open-lane and close-lane.
type laneArgs struct {
	Lane    int    `json:"lane"`
	HostURL string `json:"hostURL"`
}

// laneURL is a host lane's open-lane result.
type laneURL struct {
	URL string `json:"url"`
}
