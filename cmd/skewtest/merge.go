package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

// mergeOptions are the flags of merge-reports.
type mergeOptions struct {
	ReportDir string
	Dirs      []string // the shards' report directories
}

func parseMerge(args []string, stderr io.Writer) (*mergeOptions, error) {
	o := &mergeOptions{}
	fs := newFlagSet("merge-reports", stderr, "merge-reports [--report-dir OUT] DIR...")
	fs.StringVar(&o.ReportDir, "report-dir", "skewtest-report", "where the merged results.json, junit.xml, summary.md, report.html and pairings go")
	var err error
	if o.Dirs, err = parse(fs, args, anyArgs); err != nil {
		return nil, err
	}
	if len(o.Dirs) == 0 {
		fs.Usage()
		return nil, usagef("merge-reports: give the report directory of every shard")
	}
	return o, nil
}

// cmdMerge merges the reports of a plan's shards (run --shard k/n) into one, and exits as
// the whole run would have.
func cmdMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseMerge(args, stderr)
	if err != nil {
		return err
	}
	run, err := reports.MergeDirs(o.ReportDir, o.Dirs...)
	switch {
	case errors.Is(err, reports.ErrMergeInput), errors.Is(err, results.ErrSeedConflict), errors.Is(err, results.ErrBuildConflict),
		errors.Is(err, results.ErrShardConflict), errors.Is(err, results.ErrNoIndex):
		return usagef("merge-reports: %v", err)
	case err != nil:
		return fmt.Errorf("merge-reports: %w", err)
	}
	fmt.Fprintf(stdout, "merged %d reports: %d pairings\n\n", len(o.Dirs), len(run.Pairings))
	reports.Matrix(stdout, run)
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	return &exitError{run.ExitCode()}
}
