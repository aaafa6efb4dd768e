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
	// Progress receives one line per pairing as it ends (and, with Verbose, as it starts).
	Progress io.Writer
	Verbose  bool
	// Parallel is how many pairings run at once; 0 means DefaultParallel().
	Parallel int
	// Retries reruns a pairing that failed or errored up to this many times; a pairing
	// whose attempts disagree is flaky.
	Retries int
	// Future, when set, runs the future-peer pass (RunFuture) of every pairing that involves
	// the build under test, right after the pairing itself; those results are recorded
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
// processes (Pool): eight per core. A lane costs no process, and a process busy with several
// lanes is woken once for many messages, so more at once is cheaper per pairing.
func DefaultLaneParallel() int { return 8 * runtime.NumCPU() }

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
// others (notReady): they are errors at once, saying why.
func Execute(ctx context.Context, plan []Pairing, run *results.Run, opts ExecuteOptions) (notRun int) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel()
	}
	prepareTLS(plan)
	if opts.Pairing.notReady == nil {
		// A driver that does not get ready for one pairing is not waited for again in this
		// run; a pool's record lasts as long as the pool (a campaign of many plans).
		opts.Pairing.notReady = &notReady{}
		if opts.Pairing.Pool != nil {
			opts.Pairing.notReady = &opts.Pairing.Pool.notReady
		}
	}
	var stopped atomic.Bool // by a mistake of the user's, not interrupted
	if opts.OnUsage != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		var once sync.Once
		opts.Pairing.OnUsage = func(err error) {
			once.Do(func() {
				opts.OnUsage(err)
				stopped.Store(true)
				cancel()
			})
		}
	}
	refs := map[refKey]*reference{}
	for _, p := range plan {
		if p.Host == p.Client {
			refs[keyOf(p.Host, p)] = &reference{done: make(chan struct{})}
		}
	}
	for _, p := range plan {
		if p.Host != p.Client {
			for _, r := range []*reference{refs[keyOf(p.Client, p)], refs[keyOf(p.Host, p)]} {
				if r != nil {
					r.users++
				}
			}
		}
	}
	// A reference that never runs (interrupted) must not block the pairings that wait on it.
	defer func() {
		for _, r := range refs {
			select {
			case <-r.done:
			default:
				close(r.done)
			}
		}
	}()

	tally := opts.Coverage
	if tally == nil {
		tally = coverage.New()
	}
	out := make([]*results.Pairing, len(plan))
	futures := make([]*results.Pairing, len(plan))
	finished := make([]bool, len(plan))
	var mu sync.Mutex // guards ended and progress
	ended := 0
	sl := newSlots(parallel)
	var wg sync.WaitGroup
	for i, p := range plan {
		if ctx.Err() != nil {
			break
		}
		// This pairing waits for the references it is checked against before it asks for one
		// of the parallel slots: a pairing waiting for its references holds none.
		var ref, hostRef *reference
		if p.Host != p.Client {
			ref, hostRef = refs[keyOf(p.Client, p)], refs[keyOf(p.Host, p)]
		}
		var granted <-chan struct{}
		if ref == nil && hostRef == nil {
			granted = sl.enqueue(i) // in plan order, before any slot is handed out
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var taken bool // the references are taken, or given up when the pairing never runs
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
				granted = sl.enqueue(i)
			}
			select {
			case <-granted:
			case <-ctx.Done():
				sl.cancel(i, granted)
				return
			}
			defer sl.release()
			if ctx.Err() != nil {
				return
			}
			po := opts.Pairing
			if p.Index == 0 {
				p.Index = i + 1
			}
			name := fmt.Sprintf("%03d-%s-%s-%s-%s", p.Index, p.Host.Label, p.Kind, p.Client.Label, p.Journey.Name)
			po.Dir = filepath.Join(opts.ReportDir, "pairings", unsafeName.ReplaceAllString(name, "_"))
			if opts.Repro != nil {
				po.Repro = opts.Repro(p)
			}
			po.Reference, po.HostReference = takeRefs()
			if opts.Verbose {
				mu.Lock()
				fmt.Fprintf(progress, "[start] %s\n", p.Label())
				mu.Unlock()
			}
			start := time.Now()
			res, t := runWithRetries(ctx, p, po, opts.Retries)
			if p.Host == p.Client {
				var pub *transcript.Transcript
				if res.Status != results.StatusError {
					pub = t
				}
				refs[keyOf(p.Host, p)].publish(pub)
			}
			if res.Transcript != "" {
				res.Transcript = relTo(opts.ReportDir, po.Dir, res.Transcript)
			}
			for k, l := range res.Logs {
				res.Logs[k] = relTo(opts.ReportDir, po.Dir, l)
			}
			status := res.Status
			if t != nil && !p.Helper {
				tally.Add(&checks.Input{Transcript: t, Journey: p.Journey, Host: p.Host.Contract, Client: p.Client.Contract})
			}
			if !p.Helper && opts.Future != nil && opts.Future.Involves(p) && ctx.Err() == nil {
				fo := po
				fo.Dir = futureDir(po.Dir)
				if opts.FutureRepro != nil {
					fo.Repro = opts.FutureRepro(p)
				}
				fstart := time.Now()
				if fres, _ := RunFuture(ctx, p, fo, res, t, *opts.Future); fres != nil {
					if fres.Transcript != "" {
						fres.Transcript = relTo(opts.ReportDir, fo.Dir, fres.Transcript)
					}
					for k, l := range fres.Logs {
						fres.Logs[k] = relTo(opts.ReportDir, fo.Dir, l)
					}
					futures[i] = fres
					mu.Lock()
					fmt.Fprintf(progress, "[future] %-5s %s (%s)\n", fres.Status, p.Label(), time.Since(fstart).Round(time.Millisecond))
					mu.Unlock()
				}
			}
			if p.Helper {
				res = nil // another shard records it
			}
			out[i], finished[i] = res, true
			if opts.Ended != nil {
				opts.Ended()
			}
			mu.Lock()
			ended++
			fmt.Fprintf(progress, "[%d/%d] %-5s %s (%s)\n", ended, len(plan), status, p.Label(), time.Since(start).Round(time.Millisecond))
			mu.Unlock()
		}()
	}
	sl.open()
	wg.Wait()
	for i, res := range out {
		switch {
		case !finished[i]:
			notRun++
		case res != nil:
			run.Pairings = append(run.Pairings, res)
		}
	}
	for _, res := range futures {
		if res != nil {
			run.Pairings = append(run.Pairings, res)
		}
	}
	run.Coverage = tally.Coverage()
	if notRun > 0 {
		why := "interrupted"
		if stopped.Load() {
			why = "stopped by a mistake in the journey"
		}
		fmt.Fprintf(progress, "%s: %d of %d pairings not run\n", why, notRun, len(plan))
		run.NotRun += notRun
	}
	if ctx.Err() != nil {
		run.Interrupted = true
	}
	return notRun
}

// slots hands the parallel slots to the pairings ready to run (their references ended),
// the one earliest in the plan first, so pairings start in plan order as far as their
// references allow, and a pairing waiting for its references holds no slot.
type slots struct {
	mu     sync.Mutex
	free   int
	opened bool
	ready  []int                 // plan positions waiting for a slot, ascending
	grant  map[int]chan struct{} // closed when the position gets its slot
}

func newSlots(n int) *slots { return &slots{free: n, grant: map[int]chan struct{}{}} }

// enqueue puts plan position i in line; the channel is closed when it gets a slot.
func (s *slots) enqueue(i int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.grant[i] = ch
	k, _ := slices.BinarySearch(s.ready, i)
	s.ready = slices.Insert(s.ready, k, i)
	s.dispatch()
	return ch
}

// open starts handing out slots (Execute has put the first pairings in line).
func (s *slots) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = true
	s.dispatch()
}

// release gives a slot back.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free++
	s.dispatch()
}

// cancel takes position i out of line, or gives back the slot it got meanwhile.
func (s *slots) cancel(i int, granted <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-granted:
		s.free++
		s.dispatch()
	default:
		if k, ok := slices.BinarySearch(s.ready, i); ok {
			s.ready = slices.Delete(s.ready, k, k+1)
		}
		delete(s.grant, i)
	}
}

// dispatch hands free slots to the earliest positions in line. Callers hold mu.
func (s *slots) dispatch() {
	for s.opened && s.free > 0 && len(s.ready) > 0 {
		i := s.ready[0]
		s.ready = s.ready[1:]
		s.free--
		close(s.grant[i])
		delete(s.grant, i)
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
