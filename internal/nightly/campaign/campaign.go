package campaign

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/coverage"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// campaign is one fuzz campaign under way.
type campaign struct {
	o        *Config
	stdout   io.Writer
	progress io.Writer
	gens     []*fuzz.Generator
	built    []*harness.Build
	// pairs are the (host, client) builds every case runs on, references aside.
	pairs [][2]*harness.Build
	// opts run a case on processes of its own; pooled runs cases in lanes of the campaign's
	// shared driver processes (the bulk of the campaign).
	opts    harness.ExecuteOptions
	pooled  harness.ExecuteOptions
	pool    *harness.Pool
	run     *results.Run
	c       *results.Campaign
	corpus  string
	unique  map[string]int // finding key → index in c.Findings
	started time.Time
	// seen holds event pairs passing cases have covered: a case with a new one is kept
	// in the corpus as an interesting passing case (at most keepPassing per campaign).
	seen map[string]bool
	kept int
	// deadline is when a budgeted campaign's budget ends (zero: never): the cases still
	// running then are cancelled and counted as not run, nothing is shrunk or split after
	// it, and what was found before it is reported (unshrunk, if its shrinking was cut).
	deadline time.Time
	// cut says the budget has ended while the campaign was not interrupted.
	cut func() bool
	// tally is the campaign's coverage (every pairing it ran), mem the coverage memory it
	// started from (the corpus's), drawn the event pairs its cases drew.
	tally *coverage.Tally
	mem   *memory
	drawn map[string]bool
	// ended counts the pairings ended, and reported when the last progress line was
	// printed (unix nanoseconds): a batch that takes long is told of while it runs.
	ended, reported atomic.Int64
	// noFuture holds the names of pack journeys the future-peer pass leaves out (samplePack).
	noFuture sync.Map
	// lanes says the campaign's cases run in lanes of shared driver processes.
	lanes bool
	// weighs says the pairings run in lanes take parallel units by what their cases weigh
	// (weightOf): in lanes, unless -j was given. genWeight holds each generator's weight.
	weighs    bool
	genWeight map[*fuzz.Generator]int
	// settler, under a budget, confirms and shrinks new findings while the streams run on
	// (nil: found does it in place).
	settler *settler
	// mu is held by whatever runs the campaign's cases (go_, and each of its streams) but
	// while their pairings run (execute): everything above is read and written under it,
	// but for what the harness calls back while pairings run (ended, noFuture, tally).
	mu sync.Mutex
}

// heartbeat is how long a campaign stays silent at most while a batch runs.
const heartbeat = 30 * time.Second

// beat prints, every period without a progress line until ctx ends, how many pairings the
// batch under way has ended: a batch whose cases stall (each action waiting for its
// timeout) can take minutes.
func (cp *campaign) beat(ctx context.Context, period time.Duration) {
	tick := time.NewTicker(period / 3)
	defer tick.Stop()
	last := cp.ended.Load()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.Sub(time.Unix(0, cp.reported.Load())) < period {
				continue
			}
			n := cp.ended.Load()
			fmt.Fprintf(cp.progress, "fuzz: a batch under way: %s ended since the last line, %s\n",
				results.Plural(int(n-last), "pairing"), time.Since(cp.started).Round(time.Second))
			cp.reported.Store(now.UnixNano())
			last = n
		}
	}
}

// keepPassing bounds how many passing cases one campaign adds to the corpus.
const keepPassing = 20

// Run runs a fuzz campaign and writes its reports; the run it returns holds the campaign's
// findings (its ExitCode is the command's). An interrupted campaign writes its reports,
// marked interrupted, and returns them with an error that says so.
func Run(ctx context.Context, o Config) (*results.Run, error) {
	begun := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	stdout, stderr := o.Stdout, o.Stderr
	s, err := o.open()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	var gens []*fuzz.Generator
	switch {
	case len(cfg.Fuzz) > 0:
		if gens, err = fuzz.LoadSet(o.Repo, cfg.Fuzz); err != nil {
			return nil, err
		}
		if o.Draw != nil {
			// A name may also be a generator the draw makes: checked once it has.
			gens = keepNamed(gens, o.Generators)
		} else if gens, err = pickGenerators(gens, o.Generators); err != nil {
			return nil, err
		}
		if len(gens) > 0 || o.Draw == nil {
			if gens, err = generatorsFor(gens, o.Kinds); err != nil {
				return nil, err
			}
		}
	case o.Draw == nil:
		return nil, usage.Errorf("%s lists no generators: add fuzz: [\"fuzz/*.txtar\"] (see docs/fuzz.md), or let skewtest explore draw them (docs/explore.md)", filepath.Join(o.Repo, builds.ConfigFile))
	}
	// Every generator must make journeys the vocabulary knows: draw one case of each.
	for _, g := range gens {
		if err := checkGenerator(g, o.Seed, o.Exclude); err != nil {
			return nil, err
		}
	}
	if o.Draw == nil {
		if err := checkExclude(gens, o.Exclude); err != nil {
			return nil, err
		}
	}
	support, err := s.Support(ctx)
	if err != nil {
		return nil, err
	}
	mode := "cases"
	if o.Budget > 0 {
		mode = "budget"
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", ToolVersion: version.String(), Seed: o.Seed, Repo: o.Repo, Started: time.Now()}
	run.Campaign = &results.Campaign{Seed: o.Seed, Mode: mode, Budget: o.Budget, Generators: map[string]int{}, Events: map[string]int{},
		Findings: []results.CampaignFinding{}, CaseList: []results.CampaignCase{}}
	fmt.Fprintf(stdout, "skewtest %s: seed %d\n", o.Name, o.Seed)
	// The report directory is this campaign's from here on, as a run's (a corpus kept in it
	// stays where it is).
	release, err := matrix.ClaimReportDir(o.ReportDir, []string{o.Name})
	if err != nil {
		return nil, err
	}
	defer release()
	// A campaign interrupted during its builds still writes every report, marked
	// interrupted (as an interrupted run does); one interrupted later says so below.
	// A budget is a deadline, counted from here (the builds are part of it): everything the
	// campaign runs (builds, cases, confirmations, shrinking) runs under a context that ends
	// with the budget, so what still runs then is cancelled, whatever the load.
	work, cancelWork := ctx, context.CancelFunc(func() {})
	var deadline time.Time
	if o.Budget > 0 {
		deadline = begun.Add(o.Budget)
		work, cancelWork = context.WithDeadline(ctx, deadline)
	}
	defer cancelWork()
	cut := func() bool { return work.Err() != nil && ctx.Err() == nil }
	interrupted := func() (*results.Run, error) {
		if cut() {
			// The budget ended during the builds: no case ran, and the reports say so.
			fmt.Fprintf(stdout, "%s: the budget of %s ended before the builds were ready: no case ran\n", o.Name, o.Budget)
			run.Finished = time.Now()
			if err := reports.Write(o.ReportDir, run); err != nil {
				return nil, fmt.Errorf("write reports: %w", err)
			}
			fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
			return run, nil
		}
		run.Interrupted, run.Finished = true, time.Now()
		if err := reports.Write(o.ReportDir, run); err != nil {
			return nil, fmt.Errorf("write reports: %w", err)
		}
		fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
		return run, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	// The campaign's certificate authority, made if a build serves TLS: removed when Run
	// returns, after the pool's processes and every pairing's have stopped.
	ca := harness.NewCA()
	defer ca.Close()
	built, src, err := matrix.Prepare(work, &o.Config, run, ca)
	if err != nil {
		if work.Err() != nil {
			return interrupted()
		}
		return nil, err
	}
	hostIdx, clientIdx := src.HostIdx, src.ClientIdx
	if o.Draw != nil {
		if gens, err = o.Draw(work, worktreeOf(built), gens); err != nil {
			if work.Err() != nil {
				return interrupted()
			}
			return nil, err
		}
		if gens, err = pickDrawn(gens, o.Generators); err != nil {
			return nil, err
		}
		for _, g := range gens {
			if err := checkGenerator(g, o.Seed, o.Exclude); err != nil {
				return nil, err
			}
		}
		if err := checkExclude(gens, o.Exclude); err != nil {
			return nil, err
		}
		if len(gens) == 0 {
			return nil, usage.Errorf("nothing to draw from: the working tree's drivers describe no action's parameters in hello and the subject lists no generators (see docs/explore.md)")
		}
	}
	cp := &campaign{o: &o, deadline: deadline, cut: cut, stdout: stdout, progress: stderr, gens: gens, built: built, run: run, c: run.Campaign,
		unique: map[string]int{}, seen: map[string]bool{}, tally: coverage.New(), drawn: map[string]bool{}}
	cp.tally.Attribute(fuzz.EventOfStep)
	cp.mem = newMemory()
	if o.Corpus != "" {
		if cp.mem, err = loadMemory(filepath.Join(o.Corpus, MemoryDir)); err != nil {
			return nil, err
		}
		if n := len(cp.mem.files); n > 0 {
			fmt.Fprintf(stdout, "coverage memory: %s, %d parts reached, in %s\n", results.Plural(n, "earlier campaign"), len(cp.mem.seen),
				filepath.Join(o.Corpus, MemoryDir))
		}
	}
	if hostIdx >= 0 {
		h, c := built[hostIdx], built[clientIdx]
		cp.pairs = [][2]*harness.Build{{h, c}}
		if h != c {
			cp.pairs = append(cp.pairs, [2]*harness.Build{c, h})
		}
	} else {
		for _, p := range built[1:] {
			cp.pairs = append(cp.pairs, [2]*harness.Build{p, built[0]}, [2]*harness.Build{built[0], p})
		}
		if len(built) == 1 {
			cp.pairs = [][2]*harness.Build{{built[0], built[0]}}
		}
	}
	cp.corpus = o.Corpus
	if cp.corpus == "" {
		cp.corpus = filepath.Join(o.ReportDir, "corpus")
	}
	cp.opts = harness.ExecuteOptions{
		ReportDir: o.ReportDir,
		// Passing pairings leave nothing behind (thousands of transcripts are not worth
		// writing); failing ones stay under pairings/.
		Pairing: harness.Options{Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Older: pins.Older, Support: support, DiscardPassing: true,
			DiscardCut: o.Budget > 0},
		Repro:    func(p harness.Pairing) string { return o.ReproLine(p) },
		Parallel: o.Parallel,
		Coverage: cp.tally,
		Ended:    func() { cp.ended.Add(1) },
	}
	if o.Verbose {
		cp.opts.Progress, cp.opts.Verbose = stderr, true
	}
	if o.FuturePeers {
		cp.opts.Future = &harness.FutureOptions{Seed: o.Seed, Only: cp.futureOnly}
		cp.opts.FutureRepro = func(p harness.Pairing) string { return o.ReproLine(p, "--future-peers") }
	}
	// The campaign's cases run in lanes of driver processes it keeps from start to end (one
	// per build, role and client kind), where the drivers serve lanes.
	cp.pool = harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(o.ReportDir, reports.DriversDir)})
	cp.pooled = cp.opts
	cp.pooled.Pairing.Pool = cp.pool
	if o.Settle == 0 {
		// A packed case is hundreds of tiny steps, and a settle period on each would cost
		// most of the campaign's rate (measured: 9,200 session cases/min without, 1,020 with
		// 50ms). Without it a step still waits for its replies and for what the references
		// owe, and the checks tolerate a frame that crossed into the next step; a case that
		// fails is confirmed alone, with the default settle period.
		cp.pooled.Pairing.Settle = -1
	}
	cp.started = time.Now()
	cp.reported.Store(cp.started.UnixNano())
	beatCtx, stopBeat := context.WithCancel(ctx)
	defer stopBeat()
	go cp.beat(beatCtx, heartbeat)

	if cp.pool.Warm(cp.warmPlan()) {
		cp.lanes = true
		if !o.ParallelGiven {
			cp.pooled.Parallel, cp.weighs = harness.DefaultLaneParallel(), true
		}
		fmt.Fprintf(stdout, "lanes: %s serve every case, %s\n", results.Plural(cp.pool.Processes(), "shared driver process"), cp.atOnce())
	}
	cutting := cp.cutPool(work)
	err = cp.go_(work)
	cutting()
	if err != nil && cp.cut() {
		err = nil // cut by the budget's end: what was found is reported below
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cp.closeTimeout())
	cp.pool.Close(closeCtx)
	cancel()
	cp.c.DriverProcesses += cp.pool.Processes()
	run.Finished = time.Now()
	cp.c.Duration = time.Since(cp.started)
	if m := cp.c.Duration.Minutes(); m > 0 {
		cp.c.CasesPerMin = float64(cp.c.Cases+cp.c.CorpusCases) / m
	}
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if err := cp.remember(); err != nil {
		return nil, err
	}
	// Stopped in the middle of a case, a confirmation or a shrink (whose error is the
	// interruption's): what the campaign found so far goes in the reports, not only on
	// stderr. A campaign whose budget ended was not interrupted.
	run.Interrupted = ctx.Err() != nil
	if !run.Interrupted {
		// An interrupted campaign leaves the pairings it stopped as they were, to look at.
		if _, err := sweep(o.ReportDir, run); err != nil {
			return nil, fmt.Errorf("remove the pairings nothing found in: %w", err)
		}
	}
	if werr := reports.Write(o.ReportDir, run); werr != nil {
		return nil, fmt.Errorf("write reports: %w", werr)
	}
	notRun := ""
	if n := cp.c.CasesNotRun; n > 0 {
		why := "interrupted"
		if cp.cut() {
			why = "cut by the end of the budget"
		}
		notRun = fmt.Sprintf(" (%s not run: %s)", results.Plural(n, "case"), why)
	}
	fmt.Fprintf(stdout, "\n%s: %d cases (%d from the corpus)%s in %s, %.0f cases/min, %d pairings, %s; %s\n",
		o.Name, cp.c.Cases+cp.c.CorpusCases, cp.c.CorpusCases, notRun, cp.c.Duration.Round(time.Millisecond), cp.c.CasesPerMin, cp.c.Pairings,
		results.Plural(cp.c.DriverProcesses, "driver process"), results.Plural(len(cp.c.Findings), "unique finding"))
	for _, f := range cp.c.Findings {
		what := fmt.Sprintf("shrunk to %s (%s)", f.Shrunk, eventList(f.ShrunkEvents))
		switch {
		case f.Flaky:
			what = "did not reproduce when run again (flaky), not shrunk: " + f.Shrunk
		case f.Unshrunk && cp.cut():
			what = "not shrunk: the budget ended first; kept as found: " + f.Shrunk
		case f.Unshrunk:
			what = "not shrunk: the campaign was interrupted first; kept as found: " + f.Shrunk
		case f.Shrunk == "" && cp.cut():
			what = "not shrunk: the budget ended first"
		case f.Shrunk == "":
			what = "not shrunk: the campaign was interrupted first"
		}
		own := ""
		if f.Own {
			own = fmt.Sprintf(" (%s's own bug: it fails with itself, not a skew)", f.OwnOf)
		}
		race := ""
		if f.Race {
			race = fmt.Sprintf("\n    race: only its schedule (%s) shows it, %d of %d replays; with the gate's timing (steps settle) the case passes",
				f.Schedule, f.Reproduced, f.Replays)
		}
		fmt.Fprintf(stdout, "  %s on %s%s: %d cases, first %s after %s; %s%s\n    %s\n",
			f.Kind, results.PairingLabel(f.Host, f.ClientKind, f.Client, "fuzz"), own, f.Cases, f.First, f.After.Round(time.Second), what, race, f.Repro)
	}
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	if ctx.Err() != nil {
		return run, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return run, nil
}

// cutStop is how long the shared driver processes get to stop politely when the budget
// ends, before they are killed.
const cutStop = 2 * time.Second

// cutPool stops the pool's shared driver processes as soon as the budget ends (work's
// deadline; not on an interruption, which stops them as before): the lanes still open
// then end with their processes at once, instead of each waiting for its polite close
// behind the others' work on a loaded machine (up to 12 s a side, and as long again to
// retire a process that did not answer). Nothing runs in the pool after the deadline. The
// returned func stops watching and waits for the stop, if it began.
func (cp *campaign) cutPool(work context.Context) (wait func()) {
	if cp.deadline.IsZero() {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-stop:
		case <-work.Done():
			if !cp.cut() {
				return // interrupted: the pool closes as it does then
			}
			fmt.Fprintf(cp.progress, "fuzz: the budget of %s has ended: the pairings still running are cut\n", cp.o.Budget)
			ctx, cancel := context.WithTimeout(context.WithoutCancel(work), cutStop)
			defer cancel()
			cp.pool.Close(ctx)
		}
	}()
	return func() { close(stop); <-done }
}

// closeTimeout bounds the shared driver processes' polite stop: a minute, and for a
// budgeted campaign no more than leaves it time to write its reports within its grace.
func (cp *campaign) closeTimeout() time.Duration {
	if cp.deadline.IsZero() {
		return time.Minute
	}
	left := time.Until(cp.deadline.Add(Grace(cp.o.Budget) / 2))
	return min(time.Minute, max(5*time.Second, left))
}

// Grace is how long past its budget a campaign may take to stop what runs and write its
// reports: 5% of the budget, and at least 30 seconds. A campaign with budget D ends within
// D plus its grace, whatever the load.
func Grace(budget time.Duration) time.Duration { return max(30*time.Second, budget/20) }

// consequences are finding kinds that usually follow from another finding of the same
// pairing (a stall after a refusal, a journey cut short, a driver reporting the detach the
// checks name as data loss, steps left uncompared because a reference stopped): they are
// not shrunk on their own when the case has another.
var consequences = []results.Kind{results.Stall, results.IncompleteJourney, results.DriverError, results.IncompleteReference}

// worktreeOf is the build whose drivers define the journeys' actions (the working tree),
// else the first.
func worktreeOf(built []*harness.Build) *harness.Build {
	for _, b := range built {
		if b.Journeys {
			return b
		}
	}
	return built[0]
}
