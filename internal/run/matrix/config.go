// Package matrix runs a subject's compatibility matrix: it resolves the pins, checks what
// can be checked before building (the static tier, the journeys' names against the
// contracts), builds every build through the cache, plans the pairings, runs them and
// writes the reports. Run is `skewtest run`, `plan` and `repro` as a function over a
// Config; Prepare is the part a fuzz campaign shares with it.
//
// Compatibility problems are findings in the returned results.Run; an error means the
// run could not be made. An error that wraps a *usage.Error (or another
// configuration error of builds, journeys or pins) is the user's to fix.
package matrix

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// Config is one run of the matrix.
type Config struct {
	// Repo is the subject's repository; Subject, when set, is it opened (Repo is then
	// Subject.Dir).
	Repo    string
	Subject *subject.Subject
	// ReportDir receives results.json, the other reports and the transcripts.
	ReportDir string
	// CacheDir is the build cache (builds.DefaultCacheDir when empty).
	CacheDir string
	// Timeout, Quiet and Settle override the journeys' (harness.Options); a negative Quiet
	// or Settle turns it off.
	Timeout, Quiet, Settle time.Duration
	// Seed drives every random choice (0: a new one, set by Defaults).
	Seed    int64
	Verbose bool
	// Runner makes where recipes run; nil runs them with the host's tools. Its log (the
	// container runner's) goes to the progress writer given.
	Runner func(ctx context.Context, log io.Writer) (builds.Runner, func(), error)

	// Pins are the pin rules given; the working tree's skewtest.yaml fills what they leave.
	Pins pins.Options
	// Matrix is "default" (each pin with the working tree both ways) or "full".
	Matrix string
	// Kinds and Journeys narrow the plan (default: every kind, every journey listed).
	Kinds, Journeys []string
	// Env holds LABEL:KEY=VALUE settings for one build's drivers.
	Env []string
	// Parallel is how many pairings run at once (harness.DefaultParallel when 0).
	Parallel int
	// Shard is "K/N": run shard K of N of the plan ("" for all of it).
	Shard string
	// Retries reruns a failing pairing; LastFailed runs only what failed in ReportDir's
	// previous results.json.
	Retries    int
	LastFailed bool
	// Host and Client, when set, run the journeys on exactly that pair of builds (repro):
	// refs, or "worktree".
	Host, Client string
	// Pairings, when set, are exactly the pairings to run instead of a planned matrix (with
	// the references they need): each distinct ref is resolved and built once. Neither the
	// pins nor Matrix, Kinds, Journeys, Host or Client apply; a pair whose journey the
	// subject does not have, whose journey does not drive its kind, or whose client build
	// has no driver of the kind is a usage error naming it.
	Pairings []Pair
	// FuturePeers runs the future-peer pass after the pairings of the working tree.
	FuturePeers bool
	// PlanOnly prints the plan and builds nothing.
	PlanOnly bool

	// Command names this run to another that finds its report directory taken.
	Command []string
	// Stdout gets the plan, the matrix and the reports' place; Stderr progress and
	// warnings. Nil discards.
	Stdout, Stderr io.Writer
}

// Defaults fills what the caller left out: Run and Prepare call it.
func (o *Config) Defaults() error {
	if o.Subject != nil {
		o.Repo = o.Subject.Dir
	}
	if o.Repo == "" {
		return usage.Errorf("no repository: give the subject's repository")
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Matrix == "" {
		o.Matrix = "default"
	}
	if o.Parallel < 1 {
		o.Parallel = harness.DefaultParallel()
	}
	if o.ReportDir == "" {
		o.ReportDir = "skewtest-report"
	}
	if o.CacheDir == "" {
		dir, err := builds.DefaultCacheDir()
		if err != nil {
			return usage.Errorf("no user cache directory (%w): give a cache directory", err)
		}
		o.CacheDir = dir
	}
	if o.Seed == 0 {
		o.Seed = rand.Int64N(1<<53-1) + 1
	}
	if len(o.Command) == 0 {
		o.Command = []string{"run"}
	}
	if _, _, err := ParseShard(o.Shard); err != nil {
		return err
	}
	return checkPairs(o)
}

// namesBuilds reports whether the run names its builds (Host and Client, or Pairings)
// rather than taking the working tree and the pins: no static tier then, which compares
// the pins with the working tree.
func (o *Config) namesBuilds() bool { return o.Host != "" || len(o.Pairings) > 0 }

// Open opens the subject once (Subject, else Repo).
func (o *Config) Open() (*subject.Subject, error) {
	if o.Subject == nil {
		s, err := subject.Open(o.Repo)
		if err != nil {
			return nil, err
		}
		o.Subject = s
	}
	return o.Subject, nil
}

// ReproLine is the one command that reruns a pairing, with extra words after it (such as
// --future-peers): a journey the subject lists is named by its name, any other by its
// file's absolute path (so the line works from anywhere and never picks a listed journey
// that shares the file's name). Every word is quoted for a POSIX shell (internal/shell):
// pasted into one, the line runs skewtest with exactly these words, whatever a ref, a
// label or a path holds.
func (o *Config) ReproLine(p harness.Pairing, extra ...string) string {
	journey := p.Journey.Name
	if !p.Journey.Listed {
		journey = p.Journey.File
		if abs, err := filepath.Abs(journey); err == nil {
			journey = abs
		}
	}
	argv := []string{"skewtest", "repro", "--repo", o.Repo, "--host", p.Host.Label, "--client", p.Client.Label,
		"--kind", p.Kind, "--journey", journey, "--seed", strconv.FormatInt(o.Seed, 10)}
	for _, e := range o.Env {
		if label, _, _ := strings.Cut(e, ":"); label == p.Host.Label || label == p.Client.Label {
			argv = append(argv, "--env", e)
		}
	}
	return shell.Join(append(argv, extra...))
}

// ParseShard reads a shard K/N; "" is no sharding (0, 0). A value that is none is an
// *usage.OptionError about Shard.
func ParseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || fmt.Sprintf("%d/%d", k, n) != s || n < 1 || k < 1 || k > n {
		return 0, 0, usage.Optionf("Shard", "%q: want K/N with 1 <= K <= N, such as 2/3", s)
	}
	return k, n, nil
}
