package skewtest

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/replay"
	"github.com/skewtest/skewtest/results"
)

// ReplayConfig is one replay: `skewtest replay`.
type ReplayConfig struct {
	// Saved is the report directory whose transcripts are replayed.
	Saved string
	// Repo is the subject's repository (default: the one the saved results.json names);
	// ReportDir receives the replay's reports; CacheDir is the build cache.
	Repo, ReportDir, CacheDir string
	// Pins are the builds to replay into, with the working tree.
	Pins Pins
	// Parallel is how many cells are asked at once (two per core when 0).
	Parallel int
	// Stdout gets the matrix and the totals; Stderr progress. Nil discards.
	Stdout, Stderr io.Writer
}

// Replay feeds every frame of a saved run into every build's real decoders, with no peer:
// a frame a build refuses is a finding of the cell (frame's sender build, receiving build).
func Replay(ctx context.Context, cfg ReplayConfig) (*results.Run, error) {
	return replay.Run(ctx, replay.Config{Saved: cfg.Saved, Repo: cfg.Repo, ReportDir: cfg.ReportDir,
		CacheDir: cfg.CacheDir, Pins: cfg.Pins.options(), Parallel: cfg.Parallel,
		Stdout: cfg.Stdout, Stderr: cfg.Stderr})
}
