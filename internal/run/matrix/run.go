package matrix

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
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
	if err := o.Defaults(); err != nil {
		return nil, err
	}
	stdout, stderr := o.Stdout, o.Stderr
	// The repository first: a path that does not exist, or is no repository, says so.
	s, err := o.Open()
	if err != nil {
		return nil, err
	}
	matrix, err := harness.ParseMatrix(o.Matrix)
	if err != nil {
		return nil, usage.Errorf("--matrix: %w", err)
	}
	var (
		js     []*journeys.Journey
		byName map[string]*journeys.Journey // Pairings' journeys
	)
	if len(o.Pairings) > 0 {
		js, byName, err = pairJourneys(s, o.Pairings)
	} else {
		js, err = s.Journeys(o.Journeys)
	}
	if err != nil {
		return nil, err
	}
	support, err := s.Support(ctx)
	if err != nil {
		return nil, err
	}
	var prev *results.Run
	if o.LastFailed {
		if prev, err = reports.Load(filepath.Join(o.ReportDir, reports.ResultsFile)); err != nil {
			return nil, usage.Errorf("--last-failed needs the previous run's %s: %w", reports.ResultsFile, err)
		}
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Seed: o.Seed, Repo: o.Repo, Started: time.Now()}

	// Before building: what each build will be, from its own files.
	src, err := Resolve(ctx, s, &o, false)
	if err != nil {
		return nil, err
	}
	if err := subject.CheckBeforeBuilding(o.Kinds, js, src.Described, s.WorktreeContract(src.Srcs)); err != nil {
		return nil, err
	}
	planFor := func(bs []*harness.Build) ([]harness.Pairing, []harness.Skip, error) {
		popts := harness.PlanOptions{Matrix: matrix, Kinds: o.Kinds, Journeys: js}
		if len(o.Pairings) > 0 {
			plan, err := planPairs(o.Pairings, bs, src, byName)
			return plan, nil, err
		}
		if src.HostIdx >= 0 {
			plan, skips := harness.Journeys(bs[src.HostIdx], bs[src.ClientIdx], popts)
			return plan, skips, nil
		}
		plan, skips, err := harness.Plan(bs[0], bs[1:], popts)
		if err != nil {
			return nil, nil, usage.Errorf("%w", err)
		}
		return plan, skips, nil
	}
	plan, skips, err := planFor(src.Described)
	if err != nil {
		return nil, err
	}
	if o.LastFailed {
		plan = lastFailed(prev, plan)
	}
	if len(plan) == 0 && !o.LastFailed {
		return nil, usage.Errorf("nothing to run: %s", nothingToRun(js, o.Kinds, src.Described))
	}

	fmt.Fprintf(stdout, "skewtest: seed %d\n", o.Seed)
	for _, p := range src.Sel.Pins {
		fmt.Fprintf(stdout, "pin %s: %s\n", p, p.Reason)
	}
	for _, sk := range skips {
		fmt.Fprintf(stderr, "skipped: %s (%s)\n", sk.Reason, results.PairingLabel(sk.Host.Label, sk.Kind, sk.Client.Label, sk.Journey.Name))
	}
	if o.LastFailed && len(plan) == 0 {
		fmt.Fprintf(stdout, "--last-failed: nothing failed in %s\n", filepath.Join(o.ReportDir, reports.ResultsFile))
		return run, nil
	}
	if o.PlanOnly {
		for _, b := range src.Described {
			if b.Err != nil {
				fmt.Fprintf(stdout, "build %s: %v (its pairings will be errors)\n", b.Label, b.Err)
			}
		}
		plan = numberPlan(&o, plan, run, stdout)
		for i, p := range plan {
			harness.PrintPlan(stdout, plan[i:i+1], i+1)
			fmt.Fprintf(stdout, "     %s\n", o.ReproLine(p))
		}
		// The one thing a plan cannot know without running: drivers announce their
		// actions in their hello.
		fmt.Fprintln(stdout, "nothing was built; the journeys' actions are checked when the working tree's drivers say hello")
		return nil, nil
	}

	// The report directory is this run's from here on (nothing is built before it is
	// known to be usable).
	release, err := ClaimReportDir(o.ReportDir, o.Command)
	if err != nil {
		return nil, err
	}
	defer release()
	if !o.namesBuilds() {
		if err := staticTier(ctx, s, src.Sel.Pins, run, stdout, stderr); err != nil {
			return nil, err
		}
	}
	// The run's certificate authority, made if a build serves TLS: removed when Run returns,
	// after every driver it started (the fixture tier's, the pairings') has stopped.
	ca := harness.NewCA()
	defer ca.Close()
	built, err := o.build(ctx, src, run, ca)
	if ctx.Err() != nil {
		// An interrupted run still says so in its reports, with what did not run.
		whole := harness.Number(harness.WithReferences(plan))
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
	if err != nil {
		return nil, err
	}
	if !o.namesBuilds() {
		if run.Fixtures, err = fixtureTier(ctx, s, built[0], support, &o); err != nil {
			return nil, err
		}
	}

	if plan, skips, err = planFor(built); err != nil {
		return nil, err
	}
	for _, sk := range skips {
		run.Skipped = append(run.Skipped, sk.Result())
	}
	if o.LastFailed {
		plan = lastFailed(prev, plan)
	}
	if len(plan) == 0 {
		return nil, usage.Errorf("nothing to run: %s", nothingToRun(js, o.Kinds, built))
	}
	plan = numberPlan(&o, plan, run, stdout)
	if o.Verbose {
		harness.PrintPlan(stderr, plan, 1)
	}
	var future *harness.FutureOptions
	if o.FuturePeers {
		future = &harness.FutureOptions{Seed: o.Seed}
	}
	var mistake error
	harness.Execute(ctx, plan, run, harness.ExecuteOptions{
		ReportDir:   o.ReportDir,
		Pairing:     harness.Options{Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Older: pins.Older, Support: support},
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
