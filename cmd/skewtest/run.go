package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/harness/checks"
	"github.com/skewtest/skewtest/journeys"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/results"
)

// runOptions are the flags of run (and, narrowed, of repro).
type runOptions struct {
	common
	// PlanOnly prints the plan instead of running it (skewtest plan).
	PlanOnly bool
	pinFlags
	Matrix   string
	Kinds    []string
	Journeys []string
	// Env holds --env LABEL:KEY=VALUE settings for one build's drivers.
	Env []string
	// Parallel is -j: how many pairings run at once.
	Parallel int
	// Shard is --shard K/N: run shard K of N of the plan ("" for all of it).
	Shard string
	// Retries is --retries: rerun a failing pairing this many times (flaky when verdicts
	// differ). LastFailed is --last-failed: run only what failed in the previous report.
	Retries    int
	LastFailed bool
	// Host and Client are set by repro: exactly one pairing of builds.
	Host, Client string
	// FuturePeers is --future-peers: run the future-peer pass after the pairings that
	// involve the working tree.
	FuturePeers bool
	// command and args are the command line, to name this run to another that finds its
	// report directory taken.
	command string
	args    []string
}

func parseRun(args []string, stderr io.Writer) (*runOptions, error) {
	return parseRunAs("run", args, stderr)
}

// parseRunAs parses the flags of run for the command name (run, or plan: its help is
// headed by its own name).
func parseRunAs(name string, args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := newFlagSet(name, stderr, name+" --repo DIR [flags]")
	o.register(fs)
	o.registerPins(fs)
	fs.StringVar(&o.Matrix, "matrix", "default", "default: each pin with the working tree both ways, plus references; full: every build with every build")
	fs.Var(listFlag{&o.Kinds}, "kind", "client kinds to cover, comma-separated (default: every kind both builds support)")
	fs.Var(listFlag{&o.Journeys}, "journey", "journeys to run, comma-separated: names from the subject's skewtest.yaml journeys list, or files (default: every journey it lists)")
	o.registerEnv(fs)
	o.registerParallel(fs)
	o.registerFuture(fs)
	fs.Var(countFlag{&o.Retries, 0, "how many times to rerun a failing pairing"}, "retries", "rerun a pairing that failed or errored up to `N` times; one whose attempts disagree is flaky")
	fs.BoolVar(&o.LastFailed, "last-failed", false, "run only the pairings that failed, errored or were flaky in --report-dir's previous results.json (and the references they need)")
	fs.StringVar(&o.Shard, "shard", "", "K/N: run only shard K of N of the plan (every N-th pairing, with the references they need), with the --seed every shard is given; merge the shards' reports with skewtest merge-reports")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if _, _, err := parseShard(o.Shard); err != nil {
		return nil, err
	}
	if o.Shard != "" && o.Seed == 0 && name == "run" {
		// A seed drawn here would be this machine's alone, and merge-reports refuses shards
		// whose seeds differ: refuse now, not after every shard's work.
		return nil, usagef("--shard %s: give --seed: every shard of one plan must use the same seed, such as the CI run's id (--seed $GITHUB_RUN_ID)", o.Shard)
	}
	return o, o.check()
}

// cmdPlan resolves pins and prints the plan, so a matrix can be read, and its repro lines
// copied, before anything runs. It builds nothing: each build's drivers and contract are
// read from git objects (the working tree's from disk).
func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRunAs("plan", args, stderr)
	if err != nil {
		return err
	}
	o.PlanOnly = true
	o.command, o.args = "plan", args
	return execute(ctx, o, stdout, stderr)
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	o.command, o.args = "run", args
	return execute(ctx, o, stdout, stderr)
}

// loadJourneys reads the journeys a run covers: the ones named (by their name in the
// subject's skewtest.yaml journeys list, or by file path), else every journey the subject
// lists. Each is checked against the vocabulary before anything is built.
func loadJourneys(repo string, names []string) ([]*journeys.Journey, error) {
	cfg, err := builds.LoadConfig(filepath.Join(repo, builds.ConfigFile))
	if err != nil {
		return nil, err
	}
	return pickJourneys(repo, cfg, names)
}

func pickJourneys(repo string, cfg *builds.Config, names []string) ([]*journeys.Journey, error) {
	set, err := journeys.LoadSet(repo, cfg.Journeys)
	if err != nil {
		return nil, err
	}
	js, err := set.Pick(names)
	if err != nil {
		return nil, err
	}
	for _, j := range js {
		if err := harness.Validate(j); err != nil {
			return nil, err
		}
	}
	return js, nil
}

// execute resolves pins, plans, builds, runs every pairing and writes the reports.
// Everything that can be checked without building is checked first, from the builds' own
// files read from git objects (the working tree's from disk): the flags, the journeys'
// frame names against the contracts, the plan itself and the report directory. `skewtest
// plan` stops there and builds nothing.
func execute(ctx context.Context, o *runOptions, stdout, stderr io.Writer) error {
	// The repository first: a path that does not exist, or is no repository, says so.
	if _, err := pins.Open(o.Repo); err != nil {
		return err
	}
	cfg, err := builds.LoadConfig(filepath.Join(o.Repo, builds.ConfigFile))
	if err != nil {
		return err
	}
	matrix, err := harness.ParseMatrix(o.Matrix)
	if err != nil {
		return usagef("--matrix: %v", err)
	}
	js, err := pickJourneys(o.Repo, cfg, o.Journeys)
	if err != nil {
		return err
	}
	support, err := supportPolicy(ctx, o.Repo, cfg)
	if err != nil {
		return err
	}
	var prev *results.Run
	if o.LastFailed {
		if prev, err = reports.Load(filepath.Join(o.ReportDir, reports.ResultsFile)); err != nil {
			return usagef("--last-failed needs the previous run's %s: %v", reports.ResultsFile, err)
		}
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Seed: o.Seed, Repo: o.Repo, Started: time.Now()}

	var srcs []builds.Source
	var sel pins.Selection
	subject, hostIdx, clientIdx := 0, -1, -1
	if o.Host != "" {
		hs, err := sourceOf(ctx, o.Repo, o.Host)
		if err != nil {
			return err
		}
		cs, err := sourceOf(ctx, o.Repo, o.Client)
		if err != nil {
			return err
		}
		srcs = append(srcs, hs)
		hostIdx, clientIdx = 0, 0
		if cs != hs {
			srcs = append(srcs, cs)
			clientIdx = 1
		}
	} else {
		if sel, err = selectPins(ctx, o.Repo, o.pinFlags.options(), stderr); err != nil {
			return err
		}
		srcs = append(srcs, builds.Worktree())
		for _, p := range sel.Pins {
			srcs = append(srcs, builds.AtCommit(p.Ref, p.Commit))
		}
	}
	// Before building: what each build will be, from its own files.
	described, err := describeAll(ctx, o.Repo, srcs)
	if err != nil {
		return err
	}
	if err := checkBeforeBuilding(o.Kinds, js, described, worktreeContract(o.Repo, srcs)); err != nil {
		return err
	}
	if err := applyEnv(described, o.Env); err != nil {
		return err // --env names a build this run does not have
	}
	planFor := func(bs []*harness.Build) ([]harness.Pairing, []harness.Skip, error) {
		popts := harness.PlanOptions{Matrix: matrix, Kinds: o.Kinds, Journeys: js}
		if hostIdx >= 0 {
			plan, skips := harness.Journeys(bs[hostIdx], bs[clientIdx], popts)
			return plan, skips, nil
		}
		plan, skips, err := harness.Plan(bs[subject], bs[1:], popts)
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		return plan, skips, nil
	}
	plan, skips, err := planFor(described)
	if err != nil {
		return err
	}
	if o.LastFailed {
		plan = lastFailed(prev, plan)
	}
	if len(plan) == 0 && !o.LastFailed {
		return usagef("nothing to run: %s", nothingToRun(js, o.Kinds, described))
	}

	fmt.Fprintf(stdout, "skewtest: seed %d\n", o.Seed)
	for _, p := range sel.Pins {
		fmt.Fprintf(stdout, "pin %s: %s\n", p, p.Reason)
	}
	for _, sk := range skips {
		fmt.Fprintf(stderr, "skipped: %s (%s)\n", sk.Reason, results.PairingLabel(sk.Host.Label, sk.Kind, sk.Client.Label, sk.Journey.Name))
	}
	if o.LastFailed && len(plan) == 0 {
		fmt.Fprintf(stdout, "--last-failed: nothing failed in %s\n", filepath.Join(o.ReportDir, reports.ResultsFile))
		return nil
	}
	if o.PlanOnly {
		for _, b := range described {
			if b.Err != nil {
				fmt.Fprintf(stdout, "build %s: %v (its pairings will be errors)\n", b.Label, b.Err)
			}
		}
		plan = numberPlan(o, plan, run, stdout)
		for i, p := range plan {
			harness.PrintPlan(stdout, plan[i:i+1], i+1)
			fmt.Fprintf(stdout, "     %s\n", reproLine(o, p))
		}
		// The one thing a plan cannot know without running: drivers announce their
		// actions in their hello.
		fmt.Fprintln(stdout, "nothing was built; the journeys' actions are checked when the working tree's drivers say hello")
		return nil
	}

	// The report directory is this run's from here on (nothing is built before it is
	// known to be usable).
	release, err := claimReportDir(o.ReportDir, append([]string{o.command}, o.args...))
	if err != nil {
		return err
	}
	defer release()
	// An interrupted run still says so in its reports, with what did not run.
	writeInterrupted := func(notRun int) error {
		run.Interrupted, run.NotRun, run.Finished = true, notRun, time.Now()
		if err := reports.Write(o.ReportDir, run); err != nil {
			return fmt.Errorf("write reports: %w", err)
		}
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if o.Host == "" {
		// The static tier first: seconds, no process, the cheap answer before the
		// expensive one.
		if err := staticTier(ctx, o.Repo, sel.Pins, run, stdout, stderr); err != nil {
			return err
		}
	}
	b, buildProgress, done, err := newBuilder(ctx, &o.common, stderr)
	if err != nil {
		return err
	}
	built, recs, err := buildAll(ctx, b, o.Repo, srcs, described, buildProgress)
	done()
	if ctx.Err() != nil {
		whole := harness.Number(harness.WithReferences(plan))
		if k, n, _ := parseShard(o.Shard); n > 0 {
			whole, run.Shard = harness.Shard(whole, k, n), o.Shard
		}
		notRun := 0
		for _, p := range whole {
			if !p.Helper {
				notRun++
			}
		}
		return writeInterrupted(notRun)
	}
	if err != nil {
		return err
	}
	run.Builds = recs
	if err := applyEnv(built, o.Env); err != nil {
		return err
	}

	if plan, skips, err = planFor(built); err != nil {
		return err
	}
	for _, sk := range skips {
		run.Skipped = append(run.Skipped, sk.Result())
	}
	if o.LastFailed {
		plan = lastFailed(prev, plan)
	}
	if len(plan) == 0 {
		return usagef("nothing to run: %s", nothingToRun(js, o.Kinds, built))
	}
	plan = numberPlan(o, plan, run, stdout)
	if o.Verbose {
		harness.PrintPlan(stderr, plan, 1)
	}
	var future *harness.FutureOptions
	if o.FuturePeers {
		future = &harness.FutureOptions{Seed: o.Seed}
	}
	var usage error
	harness.Execute(ctx, plan, run, harness.ExecuteOptions{
		ReportDir:   o.ReportDir,
		Pairing:     harness.Options{Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Older: pins.Older, Support: support},
		Repro:       func(p harness.Pairing) string { return reproLine(o, p) },
		Progress:    stderr,
		Verbose:     o.Verbose,
		Parallel:    o.Parallel,
		Retries:     o.Retries,
		Future:      future,
		FutureRepro: func(p harness.Pairing) string { return reproLine(o, p) + " --future-peers" },
		OnUsage:     func(err error) { usage = err },
	})
	if usage != nil {
		// A typo in a journey, found at the first hello: no pairing was really tested.
		return usage
	}
	run.Finished = time.Now()
	if err := reports.Write(o.ReportDir, run); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	fmt.Fprintln(stdout)
	reports.Matrix(stdout, run)
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return &exitError{run.ExitCode()}
}

// numberPlan adds the references the plan needs, numbers it, takes --shard's part and says
// how many pairings it has.
func numberPlan(o *runOptions, plan []harness.Pairing, run *results.Run, stdout io.Writer) []harness.Pairing {
	plan = harness.Number(harness.WithReferences(plan))
	if k, n, _ := parseShard(o.Shard); n > 0 {
		plan = harness.Shard(plan, k, n)
		run.Shard = o.Shard
		fmt.Fprintf(stdout, "shard %s: %s of the plan\n", o.Shard, plural(len(plan), "pairing"))
	}
	fmt.Fprintf(stdout, "plan: %s\n", plural(len(plan), "pairing"))
	return plan
}

// supportPolicy turns the working tree's support policy into what each pairing of the
// working tree with a release requires; nil without a policy.
func supportPolicy(ctx context.Context, repo string, cfg *builds.Config) (func(host, client string) checks.Support, error) {
	if cfg.Support.Empty() {
		return nil, nil
	}
	tags, _, err := pins.StableTags(ctx, repo)
	if err != nil {
		return nil, err
	}
	var stable []string
	for _, t := range tags {
		stable = append(stable, t.Name)
	}
	return func(host, client string) checks.Support {
		var role, label string
		switch {
		case host == pins.WorktreeLabel && client != pins.WorktreeLabel:
			role, label = "client", client
		case client == pins.WorktreeLabel && host != pins.WorktreeLabel:
			role, label = "host", host
		default:
			return checks.Support{}
		}
		required, why, cut := cfg.Support.Requirement(role, label, stable)
		return checks.Support{Required: required, Why: why, Cut: cut, Release: role + " " + label}
	}, nil
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

// parseShard reads --shard K/N; "" is no sharding (0, 0).
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || fmt.Sprintf("%d/%d", k, n) != s || n < 1 || k < 1 || k > n {
		return 0, 0, usagef("--shard %q: want K/N with 1 <= K <= N, such as 2/3", s)
	}
	return k, n, nil
}

// nothingToRun says why a plan is empty: which kinds the journeys drive, which the builds
// have drivers for, and which --kind asked for.
func nothingToRun(js []*journeys.Journey, kinds []string, built []*harness.Build) string {
	var drive []string
	for _, j := range js {
		drive = append(drive, j.Name+" drives "+strings.Join(j.Kinds, ","))
	}
	msg := "no pairing: " + strings.Join(drive, "; ") + "; the builds have client drivers for " + orNone(harness.KindsOf(built...))
	if len(kinds) > 0 {
		msg += "; --kind asked for " + strings.Join(kinds, ",")
	}
	return msg
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no kind"
	}
	return strings.Join(s, ", ")
}

// plural says "1 pairing" or "3 pairings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// applyEnv adds --env LABEL:KEY=VALUE settings to the drivers of the build with that label:
// a negative-control switch reaches one build, never the others.
func applyEnv(built []*harness.Build, env []string) error {
	for _, e := range env {
		label, kv, _ := strings.Cut(e, ":")
		found := false
		for _, b := range built {
			if b.Label == label {
				b.Env = append(b.Env, kv)
				found = true
			}
		}
		if !found {
			var labels []string
			for _, b := range built {
				labels = append(labels, b.Label)
			}
			return usagef("--env %s: no build %q in this run (builds: %s)", e, label, strings.Join(labels, ", "))
		}
	}
	return nil
}

// source resolves a REF of repro: "worktree" or a ref of the repository.
func sourceOf(ctx context.Context, repo, ref string) (builds.Source, error) {
	if ref == builds.WorktreeLabel {
		return builds.Worktree(), nil
	}
	p, err := resolveRef(ctx, repo, ref)
	if err != nil {
		return builds.Source{}, err
	}
	return builds.AtCommit(p.Ref, p.Commit), nil
}

// reproLine is the one command that reruns a pairing: a journey the subject lists is named
// by its name, any other by its file's absolute path (so the line works from anywhere and
// never picks a listed journey that shares the file's name).
func reproLine(o *runOptions, p harness.Pairing) string {
	journey := p.Journey.Name
	if !p.Journey.Listed {
		journey = p.Journey.File
		if abs, err := filepath.Abs(journey); err == nil {
			journey = abs
		}
	}
	line := fmt.Sprintf("skewtest repro --repo %s --host %s --client %s --kind %s --journey %s --seed %d",
		shellQuote(o.Repo), p.Host.Label, p.Client.Label, p.Kind, shellQuote(journey), o.Seed)
	for _, e := range o.Env {
		if label, _, _ := strings.Cut(e, ":"); label == p.Host.Label || label == p.Client.Label {
			line += " --env " + shellQuote(e)
		}
	}
	return line
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$\\*?;&|<>()") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// prepareBuilds resolves and builds what a fuzz campaign pairs, as run does: --host and
// --client (hostIdx and clientIdx index them in built), else the working tree (built[0])
// and the pins (hostIdx -1), after the static tier's contract check. Each build's drivers
// and contract are read before building, so --env naming no build of the campaign is
// refused first; run records the builds and the static findings.
func prepareBuilds(ctx context.Context, o *runOptions, run *results.Run, stdout, stderr io.Writer) (built []*harness.Build, hostIdx, clientIdx int, err error) {
	var srcs []builds.Source
	var sel pins.Selection
	hostIdx, clientIdx = -1, -1
	if o.Host != "" {
		hs, err := sourceOf(ctx, o.Repo, o.Host)
		if err != nil {
			return nil, 0, 0, err
		}
		cs, err := sourceOf(ctx, o.Repo, o.Client)
		if err != nil {
			return nil, 0, 0, err
		}
		srcs = append(srcs, hs)
		hostIdx, clientIdx = 0, 0
		if cs != hs {
			srcs = append(srcs, cs)
			clientIdx = 1
		}
	} else {
		if sel, err = selectPins(ctx, o.Repo, o.pinFlags.options(), stderr); err != nil {
			return nil, 0, 0, err
		}
		srcs = append(srcs, builds.Worktree())
		for _, p := range sel.Pins {
			fmt.Fprintf(stdout, "pin %s: %s\n", p, p.Reason)
			srcs = append(srcs, builds.AtCommit(p.Ref, p.Commit))
		}
	}
	described, err := describeAll(ctx, o.Repo, srcs)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := applyEnv(described, o.Env); err != nil {
		return nil, 0, 0, err
	}
	if o.Host == "" {
		// The static tier first: seconds, no process, the cheap answer before the
		// expensive one.
		if err := staticTier(ctx, o.Repo, sel.Pins, run, stdout, stderr); err != nil {
			return nil, 0, 0, err
		}
	}
	b, buildProgress, done, err := newBuilder(ctx, &o.common, stderr)
	if err != nil {
		return nil, 0, 0, err
	}
	built, recs, err := buildAll(ctx, b, o.Repo, srcs, described, buildProgress)
	done()
	if err != nil {
		return nil, 0, 0, err
	}
	run.Builds = recs
	if err := applyEnv(built, o.Env); err != nil {
		return nil, 0, 0, err
	}
	return built, hostIdx, clientIdx, nil
}

// staticTier runs the static tier (contractCheck) into run's findings and prints them, with
// the working tree contract's warnings.
func staticTier(ctx context.Context, repo string, pinned []pins.Pin, run *results.Run, stdout, stderr io.Writer) error {
	var err error
	if run.Findings, err = contractCheck(ctx, repo, pinned, nil, stderr); err != nil {
		return err
	}
	failing := results.Failing(run.Findings)
	allowed := ""
	if n := len(run.Findings) - len(failing); n > 0 {
		allowed = fmt.Sprintf(" (%d reviewed and allowed)", n)
	}
	fmt.Fprintf(stdout, "contract check: %s%s\n", plural(len(failing), "violation"), allowed)
	for _, f := range run.Findings {
		fmt.Fprintf(stdout, "  %s\n", reports.FindingLine(f))
	}
	return contractWarnings(repo, stderr)
}
