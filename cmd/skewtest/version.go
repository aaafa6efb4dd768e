package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// cmdVersion prints the module version skewtest was built as (go install …@v1.2.3 stamps
// it; a build from a checkout says (devel) and its commit), with the versions of the
// interfaces it speaks. skewtest --version is the same.
func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr, "version")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
	return nil
}

// versionLine is the line version prints for the build information bi (ok false: none).
func versionLine(bi *debug.BuildInfo, ok bool) string {
	v := "(devel)"
	if ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		var rev, modified string
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				rev = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = "+modified"
			}
		}
		if rev != "" {
			v += " " + rev + modified
		}
		if bi.GoVersion != "" {
			v += " " + bi.GoVersion
		}
	}
	return fmt.Sprintf("skewtest %s (driver protocol 1, contract %d, results schema %d)", v, contract.Version, results.SchemaVersion)
}
