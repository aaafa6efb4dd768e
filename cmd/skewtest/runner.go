package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/builds/container"
	"github.com/skewtest/skewtest/matrix"
)

// Runners for --runner.
const (
	runnerLocal     = "local"
	runnerContainer = "container"
)

// runnerOf makes the runner --runner names for the library (nil: the host's tools).
func runnerOf(name string) func(context.Context, io.Writer) (builds.Runner, func(), error) {
	if name != runnerContainer {
		return nil
	}
	return func(ctx context.Context, log io.Writer) (builds.Runner, func(), error) {
		r, err := container.New(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("--runner container: %w (is the Docker engine running? docker info tells)", err)
		}
		r.Log = log
		return r, func() { _ = r.Close() }, nil
	}
}

// newBuilder makes the Builder of a command that builds (matrix.NewBuilder with its flags).
func newBuilder(ctx context.Context, c *common, w io.Writer) (*builds.Builder, io.Writer, func(), error) {
	return matrix.NewBuilder(ctx, c.CacheDir, c.Verbose, runnerOf(c.Runner), w)
}
