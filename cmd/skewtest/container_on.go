//go:build !nocontainer

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/builds/container"
)

// The container runner (builds/container, on testcontainers-go) is built in unless
// -tags nocontainer; container_off.go is the other half.

// newContainerRunner connects the container runner to the Docker engine; progress
// receives its notes when verbose; release lets it go.
func newContainerRunner(ctx context.Context, verbose bool, progress io.Writer) (r builds.Runner, release func(), err error) {
	cr, err := container.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (is the Docker engine running? docker info tells)", err)
	}
	if verbose {
		cr.Log = progress
	}
	return cr, func() { _ = cr.Close() }, nil
}

// pruneContainers removes build containers left by killed processes, when a Docker engine
// answers; without one there is nothing to remove.
func pruneContainers(ctx context.Context, stdout io.Writer) error {
	if err := container.Healthy(ctx); errors.Is(err, container.ErrNoEngine) {
		return nil
	}
	r, err := container.New(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	left, err := r.Prune(ctx)
	for _, c := range left {
		what := "removed"
		if !c.Removed {
			what = "kept (its build is running)"
		}
		fmt.Fprintf(stdout, "container %.12s of build %s (%s): %s\n", c.ID, c.Build, c.State, what)
	}
	return err
}
