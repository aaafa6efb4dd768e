//go:build nocontainer

package main

import (
	"context"
	"errors"
	"io"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// Built with -tags nocontainer: no container runner, and none of testcontainers-go's
// module tree (a faster build, a smaller binary). container_on.go is the other half.

// errNoContainerRunner is --runner container in a binary built without the runner.
var errNoContainerRunner = errors.New("this skewtest was built with -tags nocontainer and has no container runner: " +
	"install one without that tag (go install github.com/skewtest/skewtest/cmd/skewtest@latest, or make build in a clone)")

func newContainerRunner(context.Context, bool, io.Writer) (builds.Runner, func(), error) {
	return nil, nil, errNoContainerRunner
}

// pruneContainers has nothing to do: this binary cannot reach build containers (one built
// with the runner removes those killed processes left).
func pruneContainers(context.Context, io.Writer) error { return nil }
