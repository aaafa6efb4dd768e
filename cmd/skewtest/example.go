package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/skewtest/skewtest/example"
	"github.com/skewtest/skewtest/harness"
)

func cmdExample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("example", stderr, "example [--source DIR] DIR")
	src := fs.String("source", "", "the reference subject's source (default: examples/remoteterm of this skewtest checkout)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	dir, err := example.FindSource(*src)
	if err != nil {
		return usagef("%v", err)
	}
	w, err := example.Write(dir, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the remoteterm history to %s\n  tags: %v\n  uncommitted in the working tree: %v\n", w.Dir, w.Tags, w.Worktree)
	return nil
}

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr, "demo [--report-dir D] [-v]")
	reportDir := fs.String("report-dir", "", "where reports go (default: inside the demo's temporary directory)")
	verbose := fs.Bool("v", false, "print progress")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	src, err := example.FindSource("")
	if err != nil {
		return usagef("%v", err)
	}
	tmp, err := os.MkdirTemp("", "skewtest-demo-")
	if err != nil {
		return err
	}
	repo := filepath.Join(tmp, "remoteterm")
	if _, err := example.Write(src, repo); err != nil {
		return err
	}
	if *reportDir == "" {
		*reportDir = filepath.Join(tmp, "report")
	}
	fmt.Fprintf(stdout, "skewtest demo: wrote the reference subject's history to %s\n", repo)
	o := &runOptions{common: common{Repo: repo, ReportDir: *reportDir, Verbose: *verbose}, Matrix: "default", Parallel: harness.DefaultParallel()}
	if err := o.check(); err != nil {
		return err
	}
	return execute(ctx, o, stdout, stderr)
}

func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v += " " + s.Value
			}
		}
	}
	fmt.Fprintf(stdout, "skewtest %s (driver protocol 1, contract 1, results schema 1)\n", v)
	return nil
}
