package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/example"
	"github.com/skewtest/skewtest/harness"
)

func cmdExample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("example", stderr, "example [--subject NAME] [--source DIR] DIR")
	subject := fs.String("subject", "", "the example subject: "+strings.Join(example.Subjects(), ", ")+" (default "+example.Subjects()[0]+")")
	src := fs.String("source", "", "the subject's directory (default: the subject of the skewtest checkout around the working directory, else the copy built into skewtest)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	s, err := exampleSource(*subject, *src)
	if err != nil {
		return err
	}
	w, err := example.Write(s, fs.Arg(0))
	if errors.Is(err, example.ErrNotEmpty) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the %s history (from %s) to %s\n  tags: %v\n  uncommitted in the working tree: %v\n", s.Name, s.From, w.Dir, w.Tags, w.Worktree)
	return nil
}

// exampleSource finds an example subject's source: --source, else the named subject.
func exampleSource(subject, dir string) (*example.Source, error) {
	var (
		s   *example.Source
		err error
	)
	if dir != "" {
		s, err = example.SourceDir(dir)
		if err == nil && subject != "" {
			s.Name = subject
		}
	} else {
		s, err = example.FindSource(subject)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	return s, nil
}

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr, "demo [--subject NAME] [--report-dir D] [-v]")
	subject := fs.String("subject", "", "the example subject: "+strings.Join(example.Subjects(), ", ")+" (default "+example.Subjects()[0]+")")
	reportDir := fs.String("report-dir", "", "where reports go (default: inside the demo's temporary directory)")
	verbose := fs.Bool("v", false, "print progress")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	src, err := exampleSource(*subject, "")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "skewtest-demo-")
	if err != nil {
		return err
	}
	repo := filepath.Join(tmp, src.Name)
	if _, err := example.Write(src, repo); err != nil {
		return err
	}
	if *reportDir == "" {
		*reportDir = filepath.Join(tmp, "report")
	}
	fmt.Fprintf(stdout, "skewtest demo: wrote the %s history (from %s) to %s\n", src.Name, src.From, repo)
	o := &runOptions{common: common{Repo: repo, ReportDir: *reportDir, Verbose: *verbose}, Matrix: "default", Parallel: harness.DefaultParallel()}
	if err := o.check(); err != nil {
		return err
	}
	o.command = "demo"
	err = runMatrix(ctx, o, stdout, stderr)
	// Each demo writes a new temporary directory: say so, and how to remove it (D15).
	fmt.Fprintf(stdout, "skewtest demo: the subject's history and the reports stay in %s; remove it with rm -rf %s\n", tmp, tmp)
	return err
}
