package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/recheck"
)

// cmdRecheck re-judges a saved report's transcripts with today's checks (recheck.Run).
func cmdRecheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var repo, out string
	fs := newFlagSet("recheck", stderr, "recheck [--repo DIR] [--report-dir D] REPORT_DIR")
	fs.StringVar(&repo, "repo", "", "the subject's repository (default: the one the report's results.json names)")
	fs.StringVar(&out, "report-dir", "", "where the rechecked reports go (default: REPORT_DIR/recheck)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	run, _, err := recheck.Run(ctx, recheck.Config{Saved: fs.Arg(0), Repo: repo, ReportDir: out, Stdout: stdout})
	if err != nil {
		return err
	}
	return &exitError{run.ExitCode()}
}
