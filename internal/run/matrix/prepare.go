package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/after/fixtures"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/results"
)

// Sources are the builds of a run before building: which sources, the pins that chose
// them, and what each will be, read from its own files.
type Sources struct {
	Srcs []builds.Source
	Sel  pins.Selection
	// Described are the builds as read before building (no Dir).
	Described []*harness.Build
	// HostIdx and ClientIdx index the host and client build of a run of one pair (Host
	// and Client set); -1 otherwise, when the working tree is first and the pins follow.
	HostIdx, ClientIdx int
	// Refs maps each ref that Pairings name to its build's index; nil without Pairings.
	Refs map[string]int
}

// Resolve picks the sources of a run: the builds Pairings name, else Host and Client when
// set, else the working tree and the pins in force (printed on Stdout when printPins), and
// describes each. Env naming no build of the run is refused here, before anything is
// built.
func Resolve(ctx context.Context, s *subject.Subject, o *Config, printPins bool) (*Sources, error) {
	out := &Sources{HostIdx: -1, ClientIdx: -1}
	if len(o.Pairings) > 0 {
		if err := resolvePairs(ctx, s, o.Pairings, out); err != nil {
			return nil, err
		}
	} else if o.Host != "" {
		hs, err := s.Source(ctx, o.Host)
		if err != nil {
			return nil, err
		}
		cs, err := s.Source(ctx, o.Client)
		if err != nil {
			return nil, err
		}
		out.Srcs = append(out.Srcs, hs)
		out.HostIdx, out.ClientIdx = 0, 0
		if cs != hs {
			out.Srcs = append(out.Srcs, cs)
			out.ClientIdx = 1
		}
	} else {
		var err error
		if out.Sel, err = s.SelectPins(ctx, o.Pins, o.Stderr); err != nil {
			return nil, err
		}
		out.Srcs = append(out.Srcs, builds.Worktree())
		for _, p := range out.Sel.Pins {
			if printPins {
				fmt.Fprintf(o.Stdout, "pin %s: %s\n", p, p.Reason)
			}
			out.Srcs = append(out.Srcs, builds.AtCommit(p.Ref, p.Commit))
		}
	}
	var err error
	if out.Described, err = s.Describe(ctx, out.Srcs); err != nil {
		return nil, err
	}
	if err := applyEnv(out.Described, o.Env); err != nil {
		return nil, err // Env names a build this run does not have
	}
	return out, nil
}

// Prepare resolves and builds what a fuzz campaign pairs, as Run does: Host and Client
// (HostIdx and ClientIdx index them in the builds returned), else the working tree (first)
// and the pins, after the static tier's contract check. run records the builds and the
// static findings. Every build returned carries ca, the run's certificate authority for
// TLS transports (harness.Build.CA): the caller made it and closes it once every driver
// of the builds has stopped; nil when it starts none through the harness.
func Prepare(ctx context.Context, o *Config, run *results.Run, ca *harness.CA) ([]*harness.Build, *Sources, error) {
	if err := o.Defaults(); err != nil {
		return nil, nil, err
	}
	if len(o.Pairings) > 0 {
		return nil, nil, usage.Errorf("a fuzz campaign pairs host and client, or the pins with the working tree: it takes no list of pairings")
	}
	s, err := o.Open()
	if err != nil {
		return nil, nil, err
	}
	src, err := Resolve(ctx, s, o, true)
	if err != nil {
		return nil, nil, err
	}
	if !o.namesBuilds() {
		if err := staticTier(ctx, s, src.Sel.Pins, run, o.Stdout, o.Stderr); err != nil {
			return nil, nil, err
		}
	}
	built, err := o.build(ctx, src, run, ca)
	if err != nil {
		return nil, nil, err
	}
	return built, src, nil
}

// build builds every source through the cache and records the builds in run; every build
// carries ca, the run's certificate authority.
func (o *Config) build(ctx context.Context, src *Sources, run *results.Run, ca *harness.CA) ([]*harness.Build, error) {
	b, progress, done, err := NewBuilder(ctx, o.CacheDir, o.Verbose, o.Runner, o.Stderr)
	if err != nil {
		return nil, err
	}
	built, recs, err := BuildAll(ctx, b, o.Repo, src.Srcs, src.Described, progress)
	done()
	if err != nil {
		return nil, err
	}
	run.Builds = recs
	for _, b := range built {
		b.CA = ca
	}
	if err := applyEnv(built, o.Env); err != nil {
		return nil, err
	}
	return built, nil
}

// NewBuilder makes a Builder: its cache, its runner (nil: local), and progress shown on
// w (live on a terminal). The returned close stops the progress and releases the runner;
// call it once the builds are done.
func NewBuilder(ctx context.Context, cacheDir string, verbose bool, runner func(context.Context, io.Writer) (builds.Runner, func(), error), w io.Writer) (*builds.Builder, io.Writer, func(), error) {
	progress := newBuildProgress(w, verbose)
	b := &builds.Builder{CacheDir: cacheDir, Progress: progress.Event}
	closers := []func(){progress.Close}
	if runner != nil {
		var log io.Writer = io.Discard
		if verbose {
			log = progress
		}
		r, closeRunner, err := runner(ctx, log)
		if err != nil {
			progress.Close()
			return nil, nil, nil, err
		}
		b.Runner = r
		closers = append(closers, closeRunner)
	}
	done := false
	return b, progress, func() {
		if done {
			return
		}
		done = true
		for _, f := range closers {
			f()
		}
	}, nil
}

// applyEnv adds LABEL:KEY=VALUE settings to the drivers of the build with that label: a
// negative-control switch reaches one build, never the others.
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
			return usage.Optionf("Env", "%s: no build %q in this run (builds: %s)", e, label, strings.Join(labels, ", "))
		}
	}
	return nil
}

// staticTier runs the static tier (Subject.StaticCheck) into run's findings and prints
// them, with the working tree contract's warnings: seconds, no process, the cheap answer
// before the expensive one.
func staticTier(ctx context.Context, s *subject.Subject, pinned []pins.Pin, run *results.Run, stdout, stderr io.Writer) error {
	var err error
	if run.Findings, err = s.StaticCheck(ctx, pinned, nil, stderr); err != nil {
		return err
	}
	failing := results.Failing(run.Findings)
	allowed := ""
	if n := len(run.Findings) - len(failing); n > 0 {
		allowed = fmt.Sprintf(" (%d reviewed and allowed)", n)
	}
	fmt.Fprintf(stdout, "contract check: %s%s\n", results.Plural(len(failing), "violation"), allowed)
	for _, f := range run.Findings {
		fmt.Fprintf(stdout, "  %s\n", reports.FindingLine(f))
	}
	return s.Warnings(stderr)
}

// fixtureTier replays the committed fixtures of earlier releases into the working tree's
// decoders (package fixtures), once it is built and before any pairing runs; nil when the
// working tree has no fixtures or did not build (its pairings say why).
func fixtureTier(ctx context.Context, s *subject.Subject, worktree *harness.Build, support func(host, client string) checks.Support, o *Config) (*results.Fixtures, error) {
	if worktree.Label != pins.WorktreeLabel || worktree.Err != nil {
		return nil, nil
	}
	cfg, err := s.WorktreeConfig()
	if err != nil {
		return nil, err
	}
	dir := cfg.FixturesDir()
	f, err := fixtures.Tier(ctx, fixtures.TierConfig{Repo: s.Dir, Dir: dir, Build: worktree, Support: support,
		LogDir: filepath.Join(o.ReportDir, reports.DriversDir, "fixtures"), Parallel: o.Parallel, Stdout: o.Stdout})
	if errors.Is(err, harness.ErrNoDecode) {
		return nil, usage.Errorf("%s holds fixtures, but %w: replaying them needs the decode action (docs/driver-protocol.md)", dir, err)
	}
	return f, err
}
