package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// cmdVersion prints the version skewtest was built as (version.String: make build stamps
// it from git; go install …@v1.2.3 records v1.2.3), the Go version and the platform it was
// built with, and the versions of the interfaces it speaks. skewtest --version is the same.
func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr, "version")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionLine(version.String(), runtime.Version(), version.Platform()))
	return nil
}

// versionLine is the line version prints for skewtest version v, built by Go goVersion for
// platform (GOOS/GOARCH).
func versionLine(v, goVersion, platform string) string {
	return fmt.Sprintf("skewtest %s %s %s (driver protocol 1, contract %d, results schema %d)", v, goVersion, platform, contract.Version, results.SchemaVersion)
}
