package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/coverage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// ExecuteOptions tune a run of a whole plan.
type ExecuteOptions struct {
	// ReportDir receives one directory per pairing (transcript and driver logs).
	ReportDir string
	// Pairing options shared by every pairing; Dir, Repro and Reference are set per pairing.
	Pairing Options
	// Repro returns the command that reruns one pairing.
	Repro func(p Pairing) string
	// Events, if not nil, receives the plan's progress as it goes: each pairing as it starts
	// and ends, each future-peer pass, and the pairings not run. Nil: Progress gets it
	// printed (PrintProgress).
	Events func(PairingEvent)
	// Progress receives one line per pairing as it ends (and, with Verbose, as it starts),
	// when Events is nil.
	Progress io.Writer
	Verbose  bool
	// Parallel is how many pairings run at once, counted in Weight's units: the weight of the
	// pairings running never adds up to more than it. 0 means DefaultParallel().
	Parallel int
	// Units, if not nil, are the parallel units this Execute shares with others running at
	// the same time (a turn of NewUnits's: Units.Next; their capacity counts, not
	// Parallel's): the weight of all their pairings running never adds up to more than it,
	// and the pairings of an earlier turn are handed units before a later one's, each plan
	// in its order. Executes that run at the same time each take a turn of their own (one
	// may take an ended Execute's again).
	Units *Units
	// Weight, if not nil, is how many of the Parallel units pairing p takes while it runs (at
	// least 1; a weight above Parallel takes all of them). Nil: every pairing weighs 1, and
	// Parallel pairings run at once. A campaign in lanes weighs a pairing by what its case
	// can move (campaign's weightOf), so cases of a few small frames run four times as
	// many at once as cases that move megabytes. The weight must follow from the plan alone,
	// never from timing: pairings are handed their units in plan order, so what runs when
	// changes only the wall time, never a verdict.
	Weight func(p Pairing) int
	// Retries reruns a pairing that failed or errored up to this many times; a pairing
	// whose attempts disagree is flaky.
	Retries int
	// Future, when set, runs the future-peer pass (RunFuture) of every pairing that involves
	// the build under test (and that its Only picks, if set), right after the pairing itself; those results are recorded
	// after every pairing of the plan, marked Future.
	Future *FutureOptions
	// FutureRepro returns the command that reruns one pairing's future-peer pass.
	FutureRepro func(p Pairing) string
	// Coverage, when set, is the tally the pairings recorded in run are added to (a
	// campaign keeps one across runs); nil: a new one. Either way run.Coverage is set.
	Coverage *coverage.Tally
	// OnUsage, if not nil, is told of the first mistake of the user's a pairing finds (see
	// Options.OnUsage); Execute then stops starting pairings, as when ctx ends.
	OnUsage func(error)
	// Ended, if not nil, is called as each pairing ends, from the pairing's goroutine (how a
	// campaign tells of a long batch under way).
	Ended func()
}

// DefaultParallel is how many pairings run at once by default: two per core. A pairing
// spends nearly all its time waiting (two driver processes and a tap exchanging a few
// frames per step), so a core keeps two busy without slowing either; more would make
// barrier timeouts compete with CPU-bound builds of the subject's drivers.
func DefaultParallel() int { return 2 * runtime.NumCPU() }

// DefaultLaneParallel is how many pairings run at once by default in lanes of shared driver
// processes (Pool), counted in units of weight (ExecuteOptions.Weight): thirty-two per core.
// A lane costs no process, and a process busy with several lanes is woken once for many
// messages, so more at once is cheaper per pairing. Thirty-two light pairings a core ran 1,024
// session-only cases 2.7 times as fast on two cores as eight (6,939 cases/min against 2,535),
// but thirty-two pairings of cases that move megabytes (explore's drawn terminal cases) ran
// at half the rate with 12.9 GB of peak memory against 4.5 GB, and a sequence-drift the
// timing made: a campaign weighs those two units each (campaign's HeavyWeight), so they
// run sixteen a core. Without weights (-j given) every pairing weighs 1.
func DefaultLaneParallel() int { return 32 * runtime.NumCPU() }

type refKey struct{ build, kind, journey string }

func keyOf(b *Build, p Pairing) refKey { return refKey{b.Label, p.Kind, p.Journey.Name} }

// WithReferences returns the plan with the references it needs run first: every pairing is
// checked against its client build's own reference and its host build's (the differential
// oracle, published fields), so a reference the plan lacks (repro runs one pairing) is added.
func WithReferences(plan []Pairing) []Pairing {
	var refs, rest []Pairing
	have := map[refKey]bool{}
	for _, p := range plan {
		if p.Host == p.Client {
			if !have[keyOf(p.Host, p)] {
				have[keyOf(p.Host, p)] = true
				refs = append(refs, p)
			}
			continue
		}
		rest = append(rest, p)
	}
	for _, p := range rest {
		for _, b := range []*Build{p.Client, p.Host} {
			if _, ok := b.Clients[p.Kind]; !ok && b.Err == nil {
				continue // the build has no driver of the kind: no reference (the plan's skips say so)
			}
			if k := keyOf(b, p); !have[k] {
				have[k] = true
				refs = append(refs, Pairing{Host: b, Client: b, Kind: p.Kind, Journey: p.Journey})
			}
		}
	}
	return append(refs, rest...)
}

// Shard returns shard k (1-based) of n of a numbered plan: every n-th pairing, by plan
// position, plus the references those pairings are checked against (marked Helper unless
// the shard owns them too: they run for their transcript and are recorded by the shard that
// owns them). The split depends on the plan alone, so every machine computes the same one.
func Shard(plan []Pairing, k, n int) []Pairing {
	owned := map[int]bool{}
	needed := map[refKey]bool{}
	for _, p := range plan {
		if (p.Index-1)%n == k-1 {
			owned[p.Index] = true
			if p.Host != p.Client {
				needed[keyOf(p.Client, p)] = true
				needed[keyOf(p.Host, p)] = true
			}
		}
	}
	var out []Pairing
	for _, p := range plan {
		switch {
		case owned[p.Index]:
			out = append(out, p)
		case p.Host == p.Client && needed[keyOf(p.Host, p)]:
			p.Helper = true
			out = append(out, p)
		}
	}
	return out
}

// reference is a reference pairing's transcript, published once it has run, and kept
// only while a pairing checked against it has yet to start: a campaign's plan holds many
// references, each as large as its journey's traffic.
type reference struct {
	done chan struct{}

	mu    sync.Mutex
	t     *transcript.Transcript // nil when the reference was an error, or no longer needed
	users int                    // the pairings of the plan that have yet to take t
}

// publish keeps t for the pairings still to take it.
func (r *reference) publish(t *transcript.Transcript) {
	r.mu.Lock()
	if r.users > 0 {
		r.t = t
	}
	r.mu.Unlock()
	close(r.done)
}

// take returns the transcript (nil, when r is nil or its pairing was an error) and counts
// one user less; the last one lets it go. Every user takes once, run or not.
func (r *reference) take() *transcript.Transcript {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.t
	if r.users--; r.users <= 0 {
		r.t = nil
	}
	return t
}

// Execute runs every pairing of the plan, opts.Parallel at a time, and records each in run
// in plan order. A pairing starts only after the reference it is checked against has
// ended, so verdicts do not depend on the parallelism. Execute stops starting pairings when
// ctx ends; the pairings not run are left out of the run and counted in the returned
// number. A driver that does not get ready for one pairing is not started again for the
// others (notReady): they are errors at once, saying why. Progress goes out as events
// (opts.Events), which a renderer prints.
func Execute(ctx context.Context, plan []Pairing, run *results.Run, opts ExecuteOptions) (notRun int) {
	prepareTLS(plan)
	x := newExecution(plan, opts)
	if opts.OnUsage != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		var once sync.Once
		x.opts.Pairing.OnUsage = func(err error) {
			once.Do(func() {
				opts.OnUsage(err)
				x.stopped.Store(true)
				cancel()
			})
		}
	}
	defer x.refs.release() // a reference that never runs (interrupted) must not block its users

	var wg sync.WaitGroup
	for i, p := range plan {
		if ctx.Err() != nil {
			break
		}
		// This pairing waits for the references it is checked against before it asks for one
		// of the parallel slots: a pairing waiting for its references holds none.
		var granted <-chan struct{}
		if x.refs.of(p) == nil && x.refs.hostOf(p) == nil {
			granted = x.slots.enqueue(x.base+i, x.weight(p)) // in plan order, before any slot is handed out
		}
		wg.Go(func() { x.pairing(ctx, i, p, granted) })
	}
	x.slots.open()
	wg.Wait()
	return x.record(ctx, run)
}

// execution is one Execute: the plan, its references and slots, and what each pairing left.
type execution struct {
	plan  []Pairing
	opts  ExecuteOptions
	emit  func(PairingEvent)
	refs  references
	slots *slots
	// base is the first of the plan's positions in line for slots (its Units' turn): plan
	// position i is base+i there.
	base  int
	tally *coverage.Tally

	out      []*results.Pairing // by plan position; nil for a helper reference
	helpers  []*results.Pairing // the helper references' results, by plan position
	futures  []*results.Pairing // the future-peer passes, by plan position
	finished []bool
	stopped  atomic.Bool // by a mistake of the user's, not interrupted

	mu    sync.Mutex // guards ended, and orders the events that count it
	ended int
}

func newExecution(plan []Pairing, opts ExecuteOptions) *execution {
	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel()
	}
	if opts.Pairing.notReady == nil {
		// A driver that does not get ready for one pairing is not waited for again in this
		// run; a pool's record lasts as long as the pool (a campaign of many plans).
		opts.Pairing.notReady = &notReady{}
		if opts.Pairing.Pool != nil {
			opts.Pairing.notReady = &opts.Pairing.Pool.notReady
		}
	}
	units, base := newSlots(parallel), 0
	if opts.Units != nil {
		units, base = opts.Units.s, opts.Units.turn<<32
	}
	x := &execution{plan: plan, opts: opts, refs: referencesOf(plan), slots: units, base: base, tally: opts.Coverage,
		out: make([]*results.Pairing, len(plan)), helpers: make([]*results.Pairing, len(plan)), futures: make([]*results.Pairing, len(plan)), finished: make([]bool, len(plan))}
	if x.tally == nil {
		x.tally = coverage.New()
	}
	x.emit = opts.Events
	if x.emit == nil {
		x.emit = PrintProgress(opts.Progress, opts.Verbose)
	}
	return x
}

// weight is how many of the parallel units p takes: opts.Weight's, from 1 to all of them.
func (x *execution) weight(p Pairing) int {
	if x.opts.Weight == nil {
		return 1
	}
	return min(max(1, x.opts.Weight(p)), x.slots.capacity)
}

// pairing runs plan position i once its references have ended and it holds its units
// (granted, else it queues for them then), and keeps what it left.
func (x *execution) pairing(ctx context.Context, i int, p Pairing, granted <-chan struct{}) {
	ref, hostRef := x.refs.of(p), x.refs.hostOf(p)
	w := x.weight(p)
	taken := false // the references are taken, or given up when the pairing never runs
	takeRefs := func() (*transcript.Transcript, *transcript.Transcript) {
		taken = true
		return ref.take(), hostRef.take()
	}
	defer func() {
		if !taken {
			takeRefs()
		}
	}()
	if granted == nil {
		for _, r := range []*reference{ref, hostRef} {
			if r == nil {
				continue
			}
			select {
			case <-r.done:
			case <-ctx.Done():
				return
			}
		}
		granted = x.slots.enqueue(x.base+i, w)
	}
	select {
	case <-granted:
	case <-ctx.Done():
		x.slots.cancel(x.base+i, granted, w)
		return
	}
	defer x.slots.release(w)
	if ctx.Err() != nil {
		return
	}
	po := x.opts.Pairing
	if p.Index == 0 {
		p.Index = i + 1
	}
	name := fmt.Sprintf("%03d-%s-%s-%s-%s", p.Index, p.Host.Label, p.Kind, p.Client.Label, p.Journey.Name)
	po.Dir = filepath.Join(x.opts.ReportDir, "pairings", unsafeName.ReplaceAllString(name, "_"))
	if x.opts.Repro != nil {
		po.Repro = x.opts.Repro(p)
	}
	po.Reference, po.HostReference = takeRefs()
	x.emit(PairingEvent{Kind: PairingStarted, Pairing: p})
	start := time.Now()
	res, t := runWithRetries(ctx, p, po, x.opts.Retries)
	if p.Host == p.Client {
		var pub *transcript.Transcript
		if res.Status != results.StatusError {
			pub = t
		}
		x.refs.publish(p, pub)
	}
	x.relative(po.Dir, res)
	status := res.Status
	if t != nil && !p.Helper {
		x.tally.Add(&checks.Input{Transcript: t, Journey: p.Journey, Host: p.Host.Contract, Client: p.Client.Contract})
	}
	if !p.Helper && x.opts.Future != nil && x.opts.Future.Runs(p) && ctx.Err() == nil {
		x.future(ctx, i, p, po, res, t)
	}
	if p.Helper {
		x.helpers[i], res = res, nil // another shard records it; this one reads it (markOwn)
	}
	x.out[i], x.finished[i] = res, true
	if x.opts.Ended != nil {
		x.opts.Ended()
	}
	x.mu.Lock() // the count and its event go out together, so the counts print in order
	x.ended++
	x.emit(PairingEvent{Kind: PairingEnded, Pairing: p, Status: status, Elapsed: time.Since(start), Ended: x.ended, Total: len(x.plan)})
	x.mu.Unlock()
}

// future runs the future-peer pass of plan position i, after the pairing itself.
func (x *execution) future(ctx context.Context, i int, p Pairing, po Options, res *results.Pairing, t *transcript.Transcript) {
	fo := po
	fo.Dir = futureDir(po.Dir)
	if x.opts.FutureRepro != nil {
		fo.Repro = x.opts.FutureRepro(p)
	}
	start := time.Now()
	if fres, _ := RunFuture(ctx, p, fo, res, t, *x.opts.Future); fres != nil {
		x.relative(fo.Dir, fres)
		x.futures[i] = fres
		x.emit(PairingEvent{Kind: FutureEnded, Pairing: p, Status: fres.Status, Elapsed: time.Since(start)})
	}
}

// relative makes res's transcript and log paths relative to the report directory.
func (x *execution) relative(dir string, res *results.Pairing) {
	if res.Transcript != "" {
		res.Transcript = relTo(x.opts.ReportDir, dir, res.Transcript)
	}
	for k, l := range res.Logs {
		res.Logs[k] = relTo(x.opts.ReportDir, dir, l)
	}
}

// record puts what the pairings left in run, in plan order, then the future-peer passes,
// and says how many did not run.
func (x *execution) record(ctx context.Context, run *results.Run) (notRun int) {
	markOwn(slices.Concat(x.out, x.futures), slices.Concat(x.out, x.helpers))
	for i, res := range x.out {
		switch {
		case !x.finished[i]:
			notRun++
		case res != nil:
			run.Pairings = append(run.Pairings, res)
		}
	}
	for _, res := range x.futures {
		if res != nil {
			run.Pairings = append(run.Pairings, res)
		}
	}
	run.Coverage = x.tally.Coverage()
	if notRun > 0 {
		why := "interrupted"
		if x.stopped.Load() {
			why = "stopped by a mistake in the journey"
		}
		x.emit(PairingEvent{Kind: PairingsNotRun, NotRun: notRun, Total: len(x.plan), Why: why})
		run.NotRun += notRun
	}
	if ctx.Err() != nil {
		run.Interrupted = true
	}
	return notRun
}

// references are a plan's reference pairings, by build, kind and journey.
type references map[refKey]*reference

// referencesOf makes one reference per reference pairing of the plan, and counts the
// pairings that will take each.
func referencesOf(plan []Pairing) references {
	refs := references{}
	for _, p := range plan {
		if p.Host == p.Client {
			refs[keyOf(p.Host, p)] = &reference{done: make(chan struct{})}
		}
	}
	for _, p := range plan {
		if p.Host != p.Client {
			for _, r := range []*reference{refs.of(p), refs.hostOf(p)} {
				if r != nil {
					r.users++
				}
			}
		}
	}
	return refs
}

// of is the reference p is checked against (its client build's), hostOf its host build's;
// nil for a reference pairing itself, or one the plan lacks.
func (rs references) of(p Pairing) *reference {
	if p.Host == p.Client {
		return nil
	}
	return rs[keyOf(p.Client, p)]
}

func (rs references) hostOf(p Pairing) *reference {
	if p.Host == p.Client {
		return nil
	}
	return rs[keyOf(p.Host, p)]
}

// publish keeps the reference pairing p's transcript for the pairings that take it.
func (rs references) publish(p Pairing, t *transcript.Transcript) { rs[keyOf(p.Host, p)].publish(t) }

// release ends every reference not yet published, so none blocks a waiting pairing.
func (rs references) release() {
	for _, r := range rs {
		select {
		case <-r.done:
		default:
			close(r.done)
		}
	}
}

// slots hands the parallel units to the pairings ready to run (their references ended), the
// one earliest in the plan first, so pairings start in plan order as far as their references
// allow, and a pairing waiting for its references holds none. A pairing takes its weight in
// units; the earliest in line waits until its weight is free, and none after it goes first
// (as golang.org/x/sync/semaphore.Weighted, but in plan order rather than the order the
// pairings asked in, which their references' ends decide): a heavy pairing is never
// starved by light ones, and the units in use never add up to more than the capacity.
type slots struct {
	mu       sync.Mutex
	capacity int
	free     int
	turns    int // the turns taken of the slots shared as Units (Units.Next)
	opened   bool
	ready    []int                 // plan positions waiting for their units, ascending
	weight   map[int]int           // the units each waiting position asks for
	grant    map[int]chan struct{} // closed when the position gets its units
}

func newSlots(n int) *slots {
	return &slots{capacity: n, free: n, weight: map[int]int{}, grant: map[int]chan struct{}{}}
}

// Units are parallel units that Executes running at the same time share
// (ExecuteOptions.Units): a campaign keeps a batch's last, long pairings running while the
// next batch's first ones take the units they leave.
type Units struct {
	s    *slots
	turn int // the plan positions of an Execute with this turn are turn<<32+i in line
}

// NewUnits returns n parallel units to share; each Execute takes a turn of them (Next).
func NewUnits(n int) *Units { return &Units{s: newSlots(n)} }

// Next is the next turn of the units, for one Execute: its pairings are handed units after
// the pairings ready of every turn taken before it.
func (u *Units) Next() *Units {
	u.s.mu.Lock()
	defer u.s.mu.Unlock()
	u.s.turns++
	return &Units{s: u.s, turn: u.s.turns}
}

// enqueue puts plan position i in line for w units (1 to the capacity); the channel is
// closed when it gets them.
func (s *slots) enqueue(i, w int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.grant[i], s.weight[i] = ch, w
	k, _ := slices.BinarySearch(s.ready, i)
	s.ready = slices.Insert(s.ready, k, i)
	s.dispatch()
	return ch
}

// open starts handing out units (Execute has put the first pairings in line).
func (s *slots) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = true
	s.dispatch()
}

// release gives w units back.
func (s *slots) release(w int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += w
	s.dispatch()
}

// cancel takes position i out of line, or gives back the w units it got meanwhile.
func (s *slots) cancel(i int, granted <-chan struct{}, w int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-granted:
		s.free += w
	default:
		if k, ok := slices.BinarySearch(s.ready, i); ok {
			s.ready = slices.Delete(s.ready, k, k+1)
		}
		delete(s.grant, i)
		delete(s.weight, i)
	}
	s.dispatch() // the position taken out of line may have held back those after it
}

// dispatch hands free units to the earliest positions in line while the earliest one's
// weight is free. Callers hold mu.
func (s *slots) dispatch() {
	for s.opened && len(s.ready) > 0 && s.weight[s.ready[0]] <= s.free {
		i := s.ready[0]
		s.ready = s.ready[1:]
		s.free -= s.weight[i]
		close(s.grant[i])
		delete(s.grant, i)
		delete(s.weight, i)
	}
}

// runWithRetries runs a pairing and, while it fails or errors, again up to retries times,
// each attempt in its own directory (attempt-2, …). The first attempt's result is kept and
// its Attempts list every verdict; when they disagree its status is flaky. The transcript
// returned is the kept attempt's.
func runWithRetries(ctx context.Context, p Pairing, po Options, retries int) (*results.Pairing, *transcript.Transcript) {
	res, t := Run(ctx, p, po)
	if retries <= 0 || (res.Status != results.StatusFail && res.Status != results.StatusError) {
		return res, t
	}
	res.Attempts = []results.Status{res.Status}
	base := po.Dir
	for k := 2; k <= retries+1 && ctx.Err() == nil; k++ {
		po.Dir = filepath.Join(base, fmt.Sprintf("attempt-%d", k))
		again, _ := Run(ctx, p, po)
		res.Attempts = append(res.Attempts, again.Status)
		if again.Status != res.Status {
			break // the verdict is not stable: no need to retry further
		}
	}
	for _, s := range res.Attempts[1:] {
		if s != res.Attempts[0] {
			res.Status = results.StatusFlaky
			break
		}
	}
	return res, t
}

// relTo is file (in dir) relative to root, slash-separated, as reports link it.
func relTo(root, dir, file string) string {
	rel, err := filepath.Rel(root, filepath.Join(dir, file))
	if err != nil {
		return filepath.ToSlash(filepath.Join(dir, file))
	}
	return filepath.ToSlash(rel)
}
