package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
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
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return nil, err
	}
	if _, _, err := matrix.ParseShard(o.Shard); err != nil {
		return nil, flagged(err)
	}
	if _, err := harness.ParseMatrix(o.Matrix); err != nil {
		return nil, usagef("--matrix: %w", err)
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
	return runMatrix(ctx, o, stdout, stderr)
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	o.command, o.args = "run", args
	return runMatrix(ctx, o, stdout, stderr)
}

// config is the library's Config of these options.
func (o *runOptions) config(stdout, stderr io.Writer) matrix.Config {
	return matrix.Config{
		Repo: o.Repo, ReportDir: o.ReportDir, CacheDir: o.CacheDir,
		Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Seed: o.Seed, Verbose: o.Verbose,
		Runner: runnerOf(o.Runner), Pins: o.pinFlags.options(), Matrix: o.Matrix, Kinds: o.Kinds, Journeys: o.Journeys,
		Env: o.Env, Parallel: o.Parallel, Shard: o.Shard, Retries: o.Retries, LastFailed: o.LastFailed,
		Host: o.Host, Client: o.Client, FuturePeers: o.FuturePeers, PlanOnly: o.PlanOnly,
		Command: append([]string{o.command}, o.args...), Stdout: stdout, Stderr: stderr,
	}
}

// runMatrix runs the matrix (matrix.Run) and turns its verdicts into the exit code.
func runMatrix(ctx context.Context, o *runOptions, stdout, stderr io.Writer) error {
	run, err := matrix.Run(ctx, o.config(stdout, stderr))
	if err != nil || run == nil {
		return err
	}
	return &exitError{run.ExitCode()}
}
