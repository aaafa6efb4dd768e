package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/recheck"
)

// parseRecheck parses recheck's flags and its saved report's directory (Saved); the caller
// sets Stdout.
func parseRecheck(args []string, stderr io.Writer) (recheck.Config, error) {
	var c recheck.Config
	fs := newFlagSet("recheck", stderr, "recheck [--repo DIR] [--report-dir D] REPORT_DIR")
	fs.StringVar(&c.Repo, "repo", "", "the subject's repository (default: the one the report's results.json names)")
	fs.StringVar(&c.ReportDir, "report-dir", "", "where the rechecked reports go (default: REPORT_DIR/recheck)")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return recheck.Config{}, err
	}
	c.Saved = pos[0]
	return c, nil
}

// cmdRecheck re-judges a saved report's transcripts with today's checks (recheck.Run).
func cmdRecheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseRecheck(args, stderr)
	if err != nil {
		return err
	}
	c.Stdout = stdout
	run, _, err := recheck.Run(ctx, c)
	if err != nil {
		return err
	}
	return &exitError{run.ExitCode()}
}
