package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// The driver actions of lanes (docs/driver-protocol.md, Lanes).
const (
	OpenLaneAction  = "open-lane"
	CloseLaneAction = "close-lane"
)

// Pool keeps driver processes that serve lanes (docs/driver-protocol.md, Lanes) for many
// pairings: one process per (build, role, client kind), started when a pairing first needs
// it, with a lane opened in it for each pairing, many at once. Starting a process costs far
// more than a short pairing, and a process busy with several lanes is woken once for many
// messages. A pairing whose driver does not serve lanes gets a process of its own, as
// without a pool.
//
// When a shared process exits while pairings run in its lanes, each of those pairings is
// run again with processes of its own (Run does it), so a crash is found on the pairing
// that makes it; the next lane gets a new process. Close stops every process.
type Pool struct {
	ctx  context.Context // the processes' lifetime
	opts PoolOptions

	mu      sync.Mutex
	procs   map[poolKey]*sharedProc
	noLanes map[poolKey]bool // builds whose driver does not serve lanes
	all     []*sharedProc    // every process started, for Close
	started int
	own     int // processes of pairings' own, started because a driver does not serve lanes
	lane    int // the last lane id given out
	closed  bool

	// notReady records the drivers that did not get ready for the pool's pairings, for as
	// long as the pool lives (Execute uses it).
	notReady notReady
}

// PoolOptions tune a Pool.
type PoolOptions struct {
	// Dir receives the shared processes' logs (stderr), one file per process.
	Dir string
	// ReadyTimeout bounds a process's start (hello and ready); 0 is DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// StopGrace is how long a process gets to stop politely before it is killed.
	StopGrace time.Duration
}

type poolKey struct {
	build *Build
	role  transcript.Role
	kind  string
}

// NewPool returns an empty pool whose processes live until Close or until ctx ends.
func NewPool(ctx context.Context, opts PoolOptions) *Pool {
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = DefaultReadyTimeout
	}
	return &Pool{ctx: ctx, opts: opts, procs: map[poolKey]*sharedProc{}, noLanes: map[poolKey]bool{}}
}

// Processes returns how many driver processes the pairings run with the pool started:
// the shared ones, and those of pairings whose drivers do not serve lanes.
func (p *Pool) Processes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started + p.own
}

// Close stops every process of the pool and waits for them. Lanes still open are cut.
func (p *Pool) Close(ctx context.Context) {
	p.mu.Lock()
	p.closed = true
	all := p.all
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, sp := range all {
		wg.Go(func() {
			<-sp.ready
			if sp.d != nil {
				_ = sp.d.Stop(ctx)
			}
		})
	}
	wg.Wait()
}

// Warm starts the processes the plan's pairings need, before they run, and reports
// whether every one of them serves lanes. A process that does not start is left to the
// pairings that need it to report. A plan with a TLS host has its CA made first, as
// Execute does: the clients' processes start at once with the host's.
func (p *Pool) Warm(plan []Pairing) (lanes bool) {
	prepareTLS(plan)
	type need struct {
		b    *Build
		role transcript.Role
		kind string
		argv []string
	}
	var needs []need
	seen := map[poolKey]bool{}
	for _, q := range plan {
		for _, n := range []need{{q.Host, transcript.Host, "", q.Host.Host}, {q.Client, transcript.Client, q.Kind, q.Client.Clients[q.Kind]}} {
			if k := (poolKey{n.b, n.role, n.kind}); !seen[k] && n.b.Err == nil && len(n.argv) > 0 {
				seen[k] = true
				needs = append(needs, n)
			}
		}
	}
	var wg sync.WaitGroup
	served := make([]bool, len(needs))
	for i, n := range needs {
		wg.Go(func() {
			sp, err := p.process(n.b, n.role, n.kind, n.argv)
			served[i] = err == nil && sp != nil
		})
	}
	wg.Wait()
	p.mu.Lock()
	for i, n := range needs {
		if !served[i] && p.noLanes[poolKey{n.b, n.role, n.kind}] {
			p.own-- // warming started no process of a pairing's own
		}
	}
	p.mu.Unlock()
	return len(needs) > 0 && !slices.Contains(served, false)
}

// errPoolClosed is a lane asked of a closed pool.
var errPoolClosed = errors.New("driver pool closed")

// process returns the running process of b in role (and kind) that serves lanes, starting
// it if there is none; nil (and no error) when b's driver does not serve lanes.
func (p *Pool) process(b *Build, role transcript.Role, kind string, argv []string) (*sharedProc, error) {
	key := poolKey{b, role, kind}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	if p.noLanes[key] {
		p.own++
		p.mu.Unlock()
		return nil, nil
	}
	sp := p.procs[key]
	if sp != nil && sp.gone() {
		delete(p.procs, key)
		sp = nil
	}
	if sp == nil {
		p.started++
		sp = &sharedProc{pool: p, key: key, ready: make(chan struct{}), lanes: map[int]*laneRoute{}}
		p.procs[key] = sp
		p.all = append(p.all, sp)
		go sp.start(b, role, kind, argv, p.started)
	}
	p.mu.Unlock()
	select {
	case <-sp.ready:
	case <-p.ctx.Done():
		return nil, p.ctx.Err()
	}
	if sp.err != nil || sp.d == nil {
		p.mu.Lock()
		if p.procs[key] == sp {
			delete(p.procs, key)
		}
		if sp.err == nil {
			p.noLanes[key] = true
			p.own++ // the caller starts a process of the pairing's own
		}
		p.mu.Unlock()
		return nil, sp.err
	}
	return sp, nil
}

// nextLane returns a lane id no process of the pool has seen.
func (p *Pool) nextLane() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lane++
	return p.lane
}

// retire takes a process out of the pool and stops it (a lane it could not close): the
// next lane gets a new process, and the lanes still open in it end as a shared exit.
func (p *Pool) retire(sp *sharedProc) {
	p.mu.Lock()
	if p.procs[sp.key] == sp {
		delete(p.procs, sp.key)
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 4*max(p.opts.StopGrace, 3*time.Second))
	defer cancel()
	_ = sp.d.Stop(ctx)
}

// sharedProc is one driver process of the pool and the lanes open in it.
type sharedProc struct {
	pool  *Pool
	key   poolKey
	name  string
	log   string
	ready chan struct{} // closed once the process is ready, or cannot be
	d     *driver.Driver
	err   error

	mu     sync.Mutex
	lanes  map[int]*laneRoute
	active time.Time // when the process last wrote a line
}

// lastActive returns when the process last wrote a line (for any lane).
func (sp *sharedProc) lastActive() time.Time {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.active
}

// laneRoute is where a lane's messages go: its pairing's recorder.
type laneRoute struct {
	onMessage func(driver.Message)
}

func (sp *sharedProc) gone() bool {
	select {
	case <-sp.ready:
		return sp.d != nil && isDone(sp.d.Exited())
	default:
		return false
	}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// start starts the process and waits until it is ready. A driver that does not announce
// lanes is stopped again: sp.d stays nil.
func (sp *sharedProc) start(b *Build, role transcript.Role, kind string, argv []string, n int) {
	defer close(sp.ready)
	p := sp.pool
	sp.name = driverName(b, role, kind)
	if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		sp.err = fmt.Errorf("driver logs: %w", err)
		return
	}
	file := string(role) + "-" + b.Label
	if kind != "" {
		file = kind + "-" + b.Label
	}
	sp.log = filepath.Join(p.opts.Dir, fmt.Sprintf("%03d-%s.log", n, unsafeName.ReplaceAllString(file, "_")))
	spec := driverSpec(b, role, kind, argv, nil, sp.log, p.opts.StopGrace)
	spec.Name = sp.name + " (shared)"
	d, err := driver.Start(p.ctx, spec, sp.route)
	if err != nil {
		sp.err = startError(err, b, kind, sp.name, argv)
		return
	}
	rctx, cancel := context.WithTimeout(p.ctx, p.opts.ReadyTimeout)
	defer cancel()
	if _, err := d.WaitReady(rctx); err != nil {
		sp.err = readyError(p.ctx, err, d, sp.name, p.opts.ReadyTimeout, spec.LogPath)
		stopQuietly(p.ctx, d)
		return
	}
	acts := d.Hello().Actions
	if !slices.Contains(acts, OpenLaneAction) || !slices.Contains(acts, CloseLaneAction) {
		stopQuietly(p.ctx, d)
		_ = os.Remove(sp.log)
		return
	}
	sp.d = d
}

// route hands a message of the process to the lane it is about: an observation or invalid
// line without a lane goes to every open lane (it cannot be told apart). It delivers under
// sp.mu, so once forget returns nothing reaches that lane's pairing any more.
func (sp *sharedProc) route(m driver.Message) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.active = m.At
	switch {
	case m.Lane != 0:
		if r := sp.lanes[m.Lane]; r != nil {
			r.onMessage(m)
		}
	case m.Type == driver.TypeObserve || m.Type == driver.TypeInvalid:
		for _, r := range sp.lanes {
			r.onMessage(m)
		}
	}
}

// openLane opens a lane for a pairing whose recorder takes its messages; hostURL is a
// client lane's wire tap. It returns the lane and, for a host, the lane's URL.
func (sp *sharedProc) openLane(ctx context.Context, hostURL string, onMessage func(driver.Message)) (*lanePeer, string, error) {
	id := sp.pool.nextLane()
	sp.mu.Lock()
	sp.lanes[id] = &laneRoute{onMessage: onMessage}
	sp.mu.Unlock()
	args := map[string]any{"lane": id}
	if hostURL != "" {
		args["hostURL"] = hostURL
	}
	m, err := sp.d.Do(ctx, OpenLaneAction, args)
	if err != nil {
		sp.forget(id)
		return nil, "", fmt.Errorf("%s: open lane %d: %w", sp.name, id, err)
	}
	var res struct {
		URL string `json:"url"`
	}
	if len(m.Data) > 0 {
		if err := json.Unmarshal(m.Data, &res); err != nil {
			sp.forget(id)
			return nil, "", fmt.Errorf("%s: open lane %d: result data %s is not {\"url\": …}: %w", sp.name, id, m.Data, err)
		}
	}
	return &lanePeer{sp: sp, lane: id}, res.URL, nil
}

func (sp *sharedProc) forget(lane int) {
	sp.mu.Lock()
	delete(sp.lanes, lane)
	sp.mu.Unlock()
}

// lanePeer is one side of a pairing run in a lane of a shared process.
type lanePeer struct {
	sp   *sharedProc
	lane int
}

func (l *lanePeer) Do(ctx context.Context, action string, args any) (driver.Message, error) {
	return l.sp.d.DoLane(ctx, l.lane, action, args)
}

func (l *lanePeer) Hello() driver.Message   { return l.sp.d.Hello() }
func (l *lanePeer) Exited() <-chan struct{} { return l.sp.d.Exited() }
func (l *lanePeer) ExitErr() error          { return l.sp.d.ExitErr() }
func (l *lanePeer) exited() bool            { return isDone(l.sp.d.Exited()) }
func (l *lanePeer) String() string          { return fmt.Sprintf("%s lane %d", l.sp.name, l.lane) }

// close closes the lane: the lane's connections and listener end and what the process
// says of it afterwards is dropped. A process that cannot close a lane is retired.
func (l *lanePeer) close(ctx context.Context) error {
	_, err := l.sp.d.Do(ctx, CloseLaneAction, map[string]any{"lane": l.lane})
	l.sp.forget(l.lane)
	if err != nil && !l.exited() {
		l.sp.pool.retire(l.sp)
	}
	return err
}

// errSharedExited is a pairing in a lane of a process that exited before the lane closed:
// which of its lanes made it exit is unknown, so the pairing runs again on its own.
var errSharedExited = errors.New("the shared driver process exited")

// driverName is how messages name a driver: "host v1.4.190", "desktop client worktree".
func driverName(b *Build, role transcript.Role, kind string) string {
	if kind != "" {
		return kind + " client " + b.Label
	}
	return string(role) + " " + b.Label
}
