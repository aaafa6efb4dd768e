package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/adopt/doctor"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/results"
)

// cmdDoctor checks a subject's setup step by step (doctor.Run).
func cmdDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c common
	fs := newFlagSet("doctor", stderr, "doctor [--repo DIR] [--all] [--cache-dir D] [--report-dir D] [--runner local|container]")
	fs.StringVar(&c.Repo, "repo", ".", "the subject's repository")
	fs.StringVar(&c.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	fs.StringVar(&c.ReportDir, "report-dir", "", "keep the reference pairing's report and the drivers' logs here (default: a temporary directory, removed)")
	fs.StringVar(&c.Runner, "runner", runnerLocal, "where recipes run: local or container")
	all := fs.Bool("all", false, "run the reference pairing on every journey (default: the first)")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	if c.Runner != runnerLocal && c.Runner != runnerContainer {
		return usagef("--runner %q: want local or container", c.Runner)
	}
	r, err := doctor.Run(ctx, doctor.Config{Repo: c.Repo, CacheDir: c.CacheDir, ReportDir: c.ReportDir, Runner: runnerOf(c.Runner),
		Stdout: stdout, Stderr: stderr, All: *all})
	if err != nil {
		return err
	}
	if failed := r.Failed(); len(failed) > 0 {
		fmt.Fprintf(stdout, "doctor: %s of %d to fix\n", results.Plural(len(failed), "step"), len(r.Steps))
		return &exitError{exitFindings}
	}
	fmt.Fprintf(stdout, "doctor: the subject is ready: %s\n", shell.Join([]string{"skewtest", "run", "--repo", c.Repo}))
	return nil
}
