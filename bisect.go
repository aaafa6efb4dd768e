package skewtest

import (
	"context"
	"io"
	"time"

	"github.com/skewtest/skewtest/internal/after/bisect"
	"github.com/skewtest/skewtest/results"
)

// BisectConfig is one bisection: `skewtest bisect`, a failing pairing and the side whose
// change is looked for.
type BisectConfig struct {
	// Repo is the subject's repository; ReportDir receives results.json, the reports and
	// one report directory per candidate; CacheDir is the build cache.
	Repo, ReportDir, CacheDir string
	// Host, Client, Kind and Journey are the failing pairing, as its repro line names it.
	Host, Client, Kind, Journey string
	// Side is the side that moves: "host" or "client". Empty: the working tree's side,
	// else the side whose ref is the newer release.
	Side string
	// Good and Bad are the moving side's refs to walk between (default: the fixed side's
	// ref, and the moving side's ref in the pairing).
	Good, Bad string
	// Seed drives every candidate's run (0: 1, so a bisection is the same every time).
	Seed int64
	// Retries reruns a failing candidate; one whose attempts disagree is flaky.
	Retries int
	// Env, Timeout, Quiet, Settle and Parallel are the candidates' runs' (Config).
	Env                    []string
	Timeout, Quiet, Settle time.Duration
	Parallel               int
	// Stdout gets the answer; Stderr a line per candidate; Progress, when set, each
	// candidate's run as it goes. Nil discards.
	Stdout, Stderr, Progress io.Writer
}

// Bisect finds where the moving side's change made the pairing of cfg fail: the release
// first, then the commit between two releases. The run's Bisect says which.
func Bisect(ctx context.Context, cfg BisectConfig) (*results.Run, error) {
	return bisect.Run(ctx, bisect.Config{
		Repo: cfg.Repo, ReportDir: cfg.ReportDir, CacheDir: cfg.CacheDir,
		Host: cfg.Host, Client: cfg.Client, Kind: cfg.Kind, Journey: cfg.Journey,
		Side: cfg.Side, Good: cfg.Good, Bad: cfg.Bad, Seed: cfg.Seed, Retries: cfg.Retries,
		Env: cfg.Env, Timeout: cfg.Timeout, Quiet: cfg.Quiet, Settle: cfg.Settle, Parallel: cfg.Parallel,
		Stdout: cfg.Stdout, Stderr: cfg.Stderr, Progress: cfg.Progress,
	})
}
