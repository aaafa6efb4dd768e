package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/fixtures"
)

// cmdRecord keeps a saved run's reference traffic as the fixtures of a release
// (fixtures.Record).
func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c fixtures.RecordConfig
	fs := newFlagSet("record", stderr, "record [--repo DIR] [--build LABEL] [--as RELEASE] REPORT_DIR")
	fs.StringVar(&c.Repo, "repo", "", "the subject's repository, whose fixtures directory receives them (default: the one the report's results.json names)")
	fs.StringVar(&c.Build, "build", "", "the build whose pairings with itself are recorded (default: worktree)")
	fs.StringVar(&c.As, "as", "", "the release they are recorded as (default: the build's tag, or the stable tag at HEAD for the working tree)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	c.Saved, c.Stdout = fs.Arg(0), stdout
	_, err := fixtures.Record(ctx, c)
	return err
}
