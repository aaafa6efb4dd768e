package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// Runners for --runner.
const (
	runnerLocal     = "local"
	runnerContainer = "container"
)

// runnerOf makes the runner --runner names for the library (nil: the host's tools). The
// container runner is built in unless -tags nocontainer (container_on.go, container_off.go).
func runnerOf(name string) func(context.Context, io.Writer) (builds.Runner, func(), error) {
	if name != runnerContainer {
		return nil
	}
	return func(ctx context.Context, log io.Writer) (builds.Runner, func(), error) {
		// matrix.NewBuilder gives the runner a log only with -v.
		r, release, err := newContainerRunner(ctx, true, log)
		if err != nil {
			return nil, nil, fmt.Errorf("--runner container: %w", err)
		}
		return r, release, nil
	}
}

// newBuilder makes the Builder of a command that builds (matrix.NewBuilder with its flags).
func newBuilder(ctx context.Context, c *common, w io.Writer) (*builds.Builder, io.Writer, func(), error) {
	return matrix.NewBuilder(ctx, c.CacheDir, c.Verbose, runnerOf(c.Runner), w)
}
