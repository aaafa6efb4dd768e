package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/builds"
)

// Runners for --runner.
const (
	runnerLocal     = "local"
	runnerContainer = "container"
)

// newBuilder makes the Builder of a command: its cache, its runner (--runner), and
// progress shown on w (live on a terminal). The returned close stops the progress and
// releases the runner; call it once the builds are done.
func newBuilder(ctx context.Context, c *common, w io.Writer) (*builds.Builder, *buildProgress, func(), error) {
	progress := newBuildProgress(w, c.Verbose)
	b := &builds.Builder{CacheDir: c.CacheDir, Progress: progress.Event}
	closers := []func(){progress.Close}
	switch c.Runner {
	case "", runnerLocal:
	case runnerContainer:
		r, release, err := newContainerRunner(ctx, c.Verbose, progress)
		if err != nil {
			progress.Close()
			return nil, nil, nil, fmt.Errorf("--runner container: %w", err)
		}
		b.Runner = r
		closers = append(closers, release)
	default:
		progress.Close()
		return nil, nil, nil, usagef("--runner %q: want local or container", c.Runner)
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
