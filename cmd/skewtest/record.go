package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/fixtures"
)

// parseRecord parses record's flags and its saved report's directory (Saved); the caller
// sets Stdout.
func parseRecord(args []string, stderr io.Writer) (fixtures.RecordConfig, error) {
	var c fixtures.RecordConfig
	fs := newFlagSet("record", stderr, "record [--repo DIR] [--build LABEL] [--as RELEASE] REPORT_DIR")
	fs.StringVar(&c.Repo, "repo", "", "the subject's repository, whose fixtures directory receives them (default: the one the report's results.json names)")
	fs.StringVar(&c.Build, "build", "", "the build whose pairings with itself are recorded (default: worktree)")
	fs.StringVar(&c.As, "as", "", "the release they are recorded as (default: the build's tag, or the stable tag at HEAD for the working tree)")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return fixtures.RecordConfig{}, err
	}
	c.Saved = pos[0]
	return c, nil
}

// cmdRecord keeps a saved run's reference traffic as the fixtures of a release
// (fixtures.Record).
func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseRecord(args, stderr)
	if err != nil {
		return err
	}
	c.Stdout = stdout
	_, err = fixtures.Record(ctx, c)
	return err
}
