package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/harness"
)

// common are the flags every command that runs pairings takes.
type common struct {
	Repo      string
	ReportDir string
	CacheDir  string
	Timeout   time.Duration
	Quiet     time.Duration
	Seed      int64
	Verbose   bool
	Runner    string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.Repo, "repo", "", "the subject's git repository (required)")
	fs.StringVar(&c.ReportDir, "report-dir", "skewtest-report", "where results.json, junit.xml, summary.md and transcripts go")
	fs.StringVar(&c.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	fs.DurationVar(&c.Timeout, "timeout", 0, "override every step barrier's timeout (default: the journey's, else 10s)")
	fs.Var(quietFlag{&c.Quiet}, "quiet", "give a barrier up as a stall once nothing has happened for this long (default: the journey's, else 2s; 0 turns fast stalls off)")
	fs.Int64Var(&c.Seed, "seed", 0, "seed for every random choice (default: a new one, printed)")
	fs.BoolVar(&c.Verbose, "v", false, "print progress for every build and pairing")
	fs.StringVar(&c.Runner, "runner", runnerLocal, "where recipes run: local (the host's tools) or container (a local Docker engine, image skewtest/toolchain:<name>)")
}

func (c *common) check() error {
	if c.Repo == "" {
		return usagef("--repo is required")
	}
	if c.Seed == 0 {
		c.Seed = rand.Int64N(1<<53-1) + 1
	}
	if c.CacheDir == "" {
		dir, err := builds.DefaultCacheDir()
		if err != nil {
			return usagef("no user cache directory (%v): give --cache-dir", err)
		}
		c.CacheDir = dir
	}
	if c.Timeout < 0 {
		return usagef("--timeout must be positive")
	}
	if c.Runner != "" && c.Runner != runnerLocal && c.Runner != runnerContainer {
		return usagef("--runner %q: want local or container", c.Runner)
	}
	return nil
}

// quietFlag is --quiet: a duration, where 0 (said on purpose) turns fast stalls off, which
// harness.Options.Quiet says with a negative value; unset leaves the default.
type quietFlag struct{ d *time.Duration }

func (q quietFlag) String() string {
	if q.d == nil || *q.d == 0 {
		return ""
	}
	if *q.d < 0 {
		return "0"
	}
	return q.d.String()
}

func (q quietFlag) Set(v string) error {
	if v == "0" {
		*q.d = -1
		return nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return fmt.Errorf("want a duration such as 2s, or 0 to turn fast stalls off")
	case d < 0:
		return fmt.Errorf("want a positive duration such as 2s, or 0 to turn fast stalls off")
	case d == 0:
		*q.d = -1
	default:
		*q.d = d
	}
	return nil
}

// envFlag collects repeated --env LABEL:KEY=VALUE flags.
type envFlag struct{ list *[]string }

func (e envFlag) String() string {
	if e.list == nil {
		return ""
	}
	return strings.Join(*e.list, " ")
}

func (e envFlag) Set(v string) error {
	label, kv, ok := strings.Cut(v, ":")
	key, _, hasEq := strings.Cut(kv, "=")
	if !ok || label == "" || !hasEq || key == "" {
		return fmt.Errorf("want LABEL:KEY=VALUE, such as worktree:REMOTETERM_FEATURES={\"outputPause\":false}")
	}
	*e.list = append(*e.list, v)
	return nil
}

func (o *runOptions) registerEnv(fs *flag.FlagSet) {
	fs.Var(envFlag{&o.Env}, "env", "LABEL:KEY=VALUE: set KEY in the drivers of build LABEL only (worktree or a pin's ref), e.g. a negative-control switch; repeatable")
}

// check checks the run flags: the common ones, and -j.
func (o *runOptions) check() error {
	if o.Parallel < 1 {
		return usagef("-j %d: give how many pairings run at once, 1 or more", o.Parallel)
	}
	return o.common.check()
}

// registerFuture registers --future-peers (run and repro).
func (o *runOptions) registerFuture(fs *flag.FlagSet) {
	fs.BoolVar(&o.FuturePeers, "future-peers", false, "after each pairing that involves the working tree, run it again with the frames bound for the working tree rewritten as a later release may send them (docs/contract.md, Future peers); a difference is an intolerant-decoder finding")
}

func (o *runOptions) registerParallel(fs *flag.FlagSet) {
	fs.IntVar(&o.Parallel, "j", harness.DefaultParallel(), "how many pairings run at once (default: two per core; pairings mostly wait)")
}

// newFlagSet makes a command's flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skewtest %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and refuses stray positional arguments.
func parse(fs *flag.FlagSet, args []string, positional int) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return &exitError{exitOK}
		}
		return usagef("%v", err)
	}
	if fs.NArg() != positional {
		if positional == 0 {
			return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
		}
		return usagef("%s: want %d argument(s), got %d", fs.Name(), positional, fs.NArg())
	}
	return nil
}

// list splits a comma-separated flag value.
func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
