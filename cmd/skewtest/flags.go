package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// flagOf names the flag that sets each option a library error may be about
// (usage.OptionError): the library names the Config field a Go caller set, and the
// command the flag its user typed. Every command that has the flag gives it the same name.
var flagOf = map[string]string{
	"Shard":                        "--shard",
	"LastFailed":                   "--last-failed",
	"ReportDir":                    "--report-dir",
	"Env":                          "--env",
	"Kinds":                        "--kind",
	"Generators":                   "--generator",
	"Exclude":                      "--exclude",
	"Good":                         "--good",
	"AdoptedAt":                    "--adopted-at",
	"As":                           "--as",
	"Transport":                    "--transport",
	"Path":                         "--path",
	"Module":                       "--module",
	"Stream.Framing":               "--framing",
	"Stream.Path":                  "--path",
	"Contract":                     "--contract",
	"Stream.Length.Offset":         "--length-offset",
	"Stream.Length.Header":         "--header-length",
	"Stream.Length.IncludesHeader": "--length-includes-header",
}

// flagged is err naming the flag where it names an option of flagOf (usage.Rename).
func flagged(err error) error { return usage.Rename(err, flagOf) }

// common are the flags every command that runs pairings takes.
type common struct {
	Repo      string
	ReportDir string
	CacheDir  string
	Timeout   time.Duration
	Quiet     time.Duration
	Settle    time.Duration
	Seed      int64
	Verbose   bool
	Runner    string
}

// register registers every common flag: those of a command that runs pairings.
func (c *common) register(fs *flag.FlagSet) {
	c.registerBuild(fs)
	fs.StringVar(&c.ReportDir, "report-dir", "skewtest-report", "where results.json, junit.xml, summary.md and transcripts go")
	fs.Var(positiveDuration{&c.Timeout}, "timeout", "override every step barrier's timeout with `D`, e.g. 30s (default: the journey's, else 10s)")
	fs.Var(offFlag{&c.Quiet, "2s", "fast stalls"}, "quiet", "give a barrier up as a stall once nothing has happened for `D` (default: the journey's, else 2s; 0 turns fast stalls off)")
	fs.Var(offFlag{&c.Settle, "50ms", "the quiet period"}, "settle", "end a step that met its barriers once no frame has crossed the tap for `D` (default: the journey's, else 50ms; fuzz: 0 for its cases; 0 turns the quiet period off); docs/journeys.md")
	fs.Int64Var(&c.Seed, "seed", 0, "seed for every random choice (default: a new one, printed)")
}

// registerBuild registers the common flags a command that only builds uses.
func (c *common) registerBuild(fs *flag.FlagSet) {
	fs.StringVar(&c.Repo, "repo", "", "the subject's git repository (required)")
	fs.StringVar(&c.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	fs.BoolVar(&c.Verbose, "v", false, "print progress for every build and pairing")
	fs.StringVar(&c.Runner, "runner", runnerLocal, "where recipes run: local (the host's tools) or container (a local Docker engine, image skewtest/toolchain:<name>)")
}

// positiveDuration is a duration flag that must be more than zero when given (unset is
// zero: the default).
type positiveDuration struct{ d *time.Duration }

func (p positiveDuration) String() string {
	if p.d == nil || *p.d == 0 {
		return ""
	}
	return p.d.String()
}

func (p positiveDuration) Set(v string) error {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return fmt.Errorf("want a duration such as 30s")
	case d <= 0:
		return fmt.Errorf("want a positive duration such as 30s (leave the flag out for the default)")
	}
	*p.d = d
	return nil
}

// countFlag is an integer flag with a smallest value, said in its error.
type countFlag struct {
	n    *int
	min  int
	what string // what the number counts, for the error: "how many pairings run at once"
}

func (c countFlag) String() string {
	if c.n == nil || *c.n == 0 {
		return ""
	}
	return strconv.Itoa(*c.n)
}

func (c countFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return fmt.Errorf("want a whole number: %s, %d or more", c.what, c.min)
	case n < c.min:
		return fmt.Errorf("%d is too small: give %s, %d or more", n, c.what, c.min)
	}
	*c.n = n
	return nil
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
	} else if fi, err := os.Stat(c.CacheDir); err == nil && !fi.IsDir() {
		return usagef("--cache-dir %s is a file, not a directory: give a directory (skewtest creates it if it is missing)", c.CacheDir)
	}
	if c.Timeout < 0 {
		return usagef("--timeout must be positive")
	}
	if c.Runner != "" && c.Runner != runnerLocal && c.Runner != runnerContainer {
		return usagef("--runner %q: want local or container", c.Runner)
	}
	return nil
}

// offFlag is a duration flag where 0 (said on purpose) turns something off, which harness
// options say with a negative value (--quiet, --settle); unset leaves the default.
type offFlag struct {
	d *time.Duration
	// example is a duration to show, off what 0 turns off.
	example, off string
}

func (q offFlag) String() string {
	if q.d == nil || *q.d == 0 {
		return ""
	}
	if *q.d < 0 {
		return "0"
	}
	return q.d.String()
}

func (q offFlag) Set(v string) error {
	if v == "0" {
		*q.d = -1
		return nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return fmt.Errorf("want a duration such as %s, or 0 to turn %s off", q.example, q.off)
	case d < 0:
		return fmt.Errorf("want a positive duration such as %s, or 0 to turn %s off", q.example, q.off)
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
	o.Parallel = harness.DefaultParallel()
	fs.Var(countFlag{&o.Parallel, 1, "how many pairings run at once"}, "j", "run `N` pairings at once (default: two per core; pairings mostly wait)")
}

// listFlag is a comma-separated list flag (given again, it adds to the list). A value with
// no item in it (--pins "", --kind ,) is refused: leaving the flag out means the default,
// and an empty value must not silently mean it too.
type listFlag struct{ list *[]string }

func (l listFlag) String() string {
	if l.list == nil {
		return ""
	}
	return strings.Join(*l.list, ",")
}

func (l listFlag) Set(v string) error {
	items := list(v)
	if len(items) == 0 {
		return fmt.Errorf("an empty list: give one or more, comma-separated, or leave the flag out for the default")
	}
	*l.list = append(*l.list, items...)
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
