package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// cmdBuild builds the working tree and the pins, in parallel, without running anything:
// the cache is warm for the next run. Exit 3 when a build failed.
func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := &runOptions{}
	fs := newFlagSet("build", stderr, "build --repo DIR [--pins REF,...] [--last N] [--window] [--ignore GLOB] [--runner local|container]")
	o.registerBuild(fs)
	o.registerPins(fs)
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	if err := o.common.check(); err != nil {
		return err
	}
	sel, err := selectPins(ctx, o.Repo, o.pinFlags.options(), stderr)
	if err != nil {
		return err
	}
	srcs := []builds.Source{builds.Worktree()}
	for _, p := range sel.Pins {
		fmt.Fprintf(stdout, "pin %s: %s\n", p, p.Reason)
		srcs = append(srcs, builds.AtCommit(p.Ref, p.Commit))
	}
	// Each build's contract as run reads it (a versions row's, an overlay's, its own).
	subj, err := subject.Open(o.Repo)
	if err != nil {
		return err
	}
	described, err := subj.Describe(ctx, srcs)
	if err != nil {
		return err
	}
	b, progress, done, err := newBuilder(ctx, &o.common, stderr)
	if err != nil {
		return err
	}
	_, recs, err := matrix.BuildAll(ctx, b, o.Repo, srcs, described, progress)
	done()
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range recs {
		where := r.Dir
		if r.Status == "error" {
			failed++
			where = "log: " + r.Log
		}
		fmt.Fprintf(stdout, "%-10s %-8s %s\n", r.Label, r.Status, where)
	}
	if failed > 0 {
		return &exitError{exitInfra}
	}
	return nil
}
