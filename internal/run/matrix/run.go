package matrix

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/results"
)

// Run resolves pins, plans, builds, runs every pairing and writes the reports; the run it
// returns holds every verdict (its ExitCode is the command's). The plan is the matrix of
// the working tree and the pins, the journeys of Host × Client, or exactly Pairings, each
// with the references it needs. Everything that can be
// checked without building is checked first, from the builds' own files read from git
// objects (the working tree's from disk): the options, the journeys' frame names against
// the contracts, the plan itself and the report directory. PlanOnly stops there, builds
// nothing and returns a nil run. An interrupted run (ctx cancelled) writes its reports,
// marked interrupted, and returns them with an error that says so.
func Run(ctx context.Context, o Config) (*results.Run, error) {
	pl, err := newPlan(ctx, &o)
	if err != nil {
		return nil, err
	}
	pl.announce()
	if o.LastFailed && len(pl.pairings) == 0 {
		fmt.Fprintf(o.Stdout, "--last-failed: nothing failed in %s\n", filepath.Join(o.ReportDir, reports.ResultsFile))
		return pl.run, nil
	}
	if o.PlanOnly {
		pl.print()
		return nil, nil
	}
	return pl.execute(ctx)
}

// plan is a run made before anything is built: the subject and its journeys, what each
// build will be (from its own files), the pairings and the pairings skipped. It is printed
// (PlanOnly), then executed.
type plan struct {
	o       *Config
	s       *subject.Subject
	matrix  harness.Matrix
	js      []*journeys.Journey
	byName  map[string]*journeys.Journey // Pairings' journeys
	support func(host, client string) checks.Support
	prev    *results.Run // LastFailed: the previous run
	run     *results.Run
	src     *Sources

	pairings []harness.Pairing
	skips    []harness.Skip
}

// newPlan checks o and plans its run from the builds' own files, building nothing.
func newPlan(ctx context.Context, o *Config) (*plan, error) {
	if err := o.Defaults(); err != nil {
		return nil, err
	}
	// The repository first: a path that does not exist, or is no repository, says so.
	s, err := o.Open()
	if err != nil {
		return nil, err
	}
	pl := &plan{o: o, s: s}
	if pl.matrix, err = harness.ParseMatrix(o.Matrix); err != nil {
		return nil, usage.Errorf("Matrix: %w", err)
	}
	if len(o.Pairings) > 0 {
		pl.js, pl.byName, err = pairJourneys(s, o.Pairings)
	} else {
		pl.js, err = s.Journeys(o.Journeys)
	}
	if err != nil {
		return nil, err
	}
	if pl.support, err = s.Support(ctx); err != nil {
		return nil, err
	}
	if o.LastFailed {
		if pl.prev, err = results.Load(filepath.Join(o.ReportDir, reports.ResultsFile)); err != nil {
			return nil, usage.Optionf("LastFailed", "needs the previous run's %s: %w", reports.ResultsFile, err)
		}
	}
	pl.run = &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", ToolVersion: version.String(), Seed: o.Seed, Repo: o.Repo, Started: time.Now()}

	// Before building: what each build will be, from its own files.
	if pl.src, err = Resolve(ctx, s, o, false); err != nil {
		return nil, err
	}
	if err := subject.CheckBeforeBuilding(o.Kinds, pl.js, pl.src.Described, s.WorktreeContract(pl.src.Srcs)); err != nil {
		return nil, err
	}
	subject.WarnBeforeBuilding(o.Stderr, pl.js, pl.src.Described)
	if pl.pairings, pl.skips, err = pl.pairingsOf(pl.src.Described); err != nil {
		return nil, err
	}
	if len(pl.pairings) == 0 && !o.LastFailed {
		return nil, usage.Errorf("nothing to run: %s", nothingToRun(pl.js, o.Kinds, pl.src.Described))
	}
	return pl, nil
}

// pairingsOf plans the pairings of bs (described, or built), and the pairings skipped.
func (pl *plan) pairingsOf(bs []*harness.Build) ([]harness.Pairing, []harness.Skip, error) {
	o := pl.o
	var (
		pairings []harness.Pairing
		skips    []harness.Skip
		err      error
	)
	switch popts := (harness.PlanOptions{Matrix: pl.matrix, Kinds: o.Kinds, Journeys: pl.js}); {
	case len(o.Pairings) > 0:
		pairings, err = planPairs(o.Pairings, bs, pl.src, pl.byName)
	case pl.src.HostIdx >= 0:
		pairings, skips = harness.Journeys(bs[pl.src.HostIdx], bs[pl.src.ClientIdx], popts)
	default:
		if pairings, skips, err = harness.Plan(bs[0], bs[1:], popts); err != nil {
			err = usage.Errorf("%w", err)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if o.LastFailed {
		pairings = lastFailed(pl.prev, pairings)
	}
	return pairings, skips, nil
}

// announce says the seed, the pins and the pairings skipped.
func (pl *plan) announce() {
	fmt.Fprintf(pl.o.Stdout, "skewtest: seed %d\n", pl.o.Seed)
	for _, p := range pl.src.Sel.Pins {
		fmt.Fprintf(pl.o.Stdout, "pin %s: %s\n", p, p.Reason)
	}
	for _, sk := range pl.skips {
		fmt.Fprintf(pl.o.Stderr, "skipped: %s (%s)\n", sk.Reason, results.PairingLabel(sk.Host.Label, sk.Kind, sk.Client.Label, sk.Journey.Name))
	}
}

// print prints the numbered plan with each pairing's repro line: what PlanOnly shows.
func (pl *plan) print() {
	stdout := pl.o.Stdout
	for _, b := range pl.src.Described {
		if b.Err != nil {
			fmt.Fprintf(stdout, "build %s: %v (its pairings will be errors)\n", b.Label, b.Err)
		}
	}
	numbered := numberPlan(pl.o, pl.pairings, pl.run, stdout)
	for i, p := range numbered {
		harness.PrintPlan(stdout, numbered[i:i+1], i+1)
		fmt.Fprintf(stdout, "     %s\n", pl.o.ReproLine(p))
	}
	// The one thing a plan cannot know without running: drivers announce their
	// actions in their hello.
	fmt.Fprintln(stdout, "nothing was built; the journeys' actions are checked when the working tree's drivers say hello")
}

// execute claims the report directory, runs the static tier, builds, runs the fixture
// tier, plans again from the builds as built, runs every pairing and writes the reports.
func (pl *plan) execute(ctx context.Context) (*results.Run, error) {
	o, run := pl.o, pl.run
	stdout, stderr := o.Stdout, o.Stderr
	// The report directory is this run's from here on (nothing is built before it is
	// known to be usable).
	release, err := ClaimReportDir(o.ReportDir, o.Command)
	if err != nil {
		return nil, err
	}
	defer release()
	if !o.namesBuilds() {
		if err := staticTier(ctx, pl.s, pl.src.Sel.Pins, run, stdout, stderr); err != nil {
			return nil, err
		}
	}
	// The run's certificate authority for TLS transports: made when a build serving TLS
	// first needs it, removed once every driver of the run has stopped.
	ca := harness.NewCA()
	defer ca.Close()
	built, err := o.build(ctx, pl.src, run, ca)
	if ctx.Err() != nil {
		return pl.interrupted(ctx)
	}
	if err != nil {
		return nil, err
	}
	if !o.namesBuilds() {
		if run.Fixtures, err = fixtureTier(ctx, pl.s, built[0], pl.support, o); err != nil {
			return nil, err
		}
	}

	pairings, skips, err := pl.pairingsOf(built)
	if err != nil {
		return nil, err
	}
	for _, sk := range skips {
		run.Skipped = append(run.Skipped, sk.Result())
	}
	if len(pairings) == 0 {
		return nil, usage.Errorf("nothing to run: %s", nothingToRun(pl.js, o.Kinds, built))
	}
	pairings = numberPlan(o, pairings, run, stdout)
	if o.Verbose {
		harness.PrintPlan(stderr, pairings, 1)
	}
	var future *harness.FutureOptions
	if o.FuturePeers {
		future = &harness.FutureOptions{Seed: o.Seed}
	}
	var mistake error
	harness.Execute(ctx, pairings, run, harness.ExecuteOptions{
		ReportDir:   o.ReportDir,
		Pairing:     harness.Options{Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Older: pins.Older, Support: pl.support},
		Repro:       func(p harness.Pairing) string { return o.ReproLine(p) },
		Progress:    stderr,
		Verbose:     o.Verbose,
		Parallel:    o.Parallel,
		Retries:     o.Retries,
		Future:      future,
		FutureRepro: func(p harness.Pairing) string { return o.ReproLine(p, "--future-peers") },
		OnUsage:     func(err error) { mistake = err },
	})
	if mistake != nil {
		// A typo in a journey, found at the first hello: no pairing was really tested.
		return nil, mistake
	}
	run.Finished = time.Now()
	if err := reports.Write(o.ReportDir, run); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	fmt.Fprintln(stdout)
	reports.Matrix(stdout, run)
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	if ctx.Err() != nil {
		return run, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return run, nil
}

// interrupted writes the reports of a run interrupted while building, with what did not
// run, and returns them with an error that says so.
func (pl *plan) interrupted(ctx context.Context) (*results.Run, error) {
	o, run := pl.o, pl.run
	whole := harness.Number(harness.WithReferences(pl.pairings))
	if k, n, _ := ParseShard(o.Shard); n > 0 {
		whole, run.Shard = harness.Shard(whole, k, n), o.Shard
	}
	notRun := 0
	for _, p := range whole {
		if !p.Helper {
			notRun++
		}
	}
	run.Interrupted, run.NotRun, run.Finished = true, notRun, time.Now()
	if err := reports.Write(o.ReportDir, run); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	return run, fmt.Errorf("interrupted: %w", ctx.Err())
}

// numberPlan adds the references the plan needs, numbers it, takes the shard's part and
// says how many pairings it has.
func numberPlan(o *Config, plan []harness.Pairing, run *results.Run, stdout io.Writer) []harness.Pairing {
	plan = harness.Number(harness.WithReferences(plan))
	if k, n, _ := ParseShard(o.Shard); n > 0 {
		plan = harness.Shard(plan, k, n)
		run.Shard = o.Shard
		fmt.Fprintf(stdout, "shard %s: %s of the plan\n", o.Shard, results.Plural(len(plan), "pairing"))
	}
	fmt.Fprintf(stdout, "plan: %s\n", results.Plural(len(plan), "pairing"))
	return plan
}

// lastFailed keeps the pairings of plan that failed, errored or were flaky in prev, the
// previous results.json of the report directory.
func lastFailed(prev *results.Run, plan []harness.Pairing) []harness.Pairing {
	again := map[string]bool{}
	for _, p := range prev.Pairings {
		switch p.Status {
		case results.StatusFail, results.StatusError, results.StatusFlaky:
			again[p.Label()] = true
		}
	}
	var out []harness.Pairing
	for _, p := range plan {
		if again[p.Label()] {
			out = append(out, p)
		}
	}
	return out
}

// nothingToRun says why a plan is empty: which kinds the journeys drive, which the builds
// have drivers for, and which kinds were asked for.
func nothingToRun(js []*journeys.Journey, kinds []string, built []*harness.Build) string {
	var drive []string
	for _, j := range js {
		drive = append(drive, j.Name+" drives "+strings.Join(j.Kinds, ","))
	}
	msg := "no pairing: " + strings.Join(drive, "; ") + "; the builds have client drivers for " + subject.OrNone(harness.KindsOf(built...))
	if len(kinds) > 0 {
		msg += "; --kind asked for " + strings.Join(kinds, ",")
	}
	return msg
}
