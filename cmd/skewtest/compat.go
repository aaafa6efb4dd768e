package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skewtest/skewtest/internal/adopt/compat"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// cmdCompat audits a subject's compatibility shims (compat.Run).
func cmdCompat(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c     common
		prove string
	)
	fs := newFlagSet("compat", stderr, "compat [--repo DIR] [--prove NAME [--cache-dir D] [--report-dir D] [--runner local|container]]")
	fs.StringVar(&c.Repo, "repo", ".", "the subject's repository")
	fs.StringVar(&prove, "prove", "", "run the pairings the support policy requires with shim NAME turned off (its marker's \"Turn off:\" switch), and say which break")
	fs.StringVar(&c.CacheDir, "cache-dir", "", "build cache for --prove (default: the user cache directory's skewtest)")
	fs.StringVar(&c.ReportDir, "report-dir", "skewtest-compat", "where --prove's run writes its reports")
	fs.StringVar(&c.Runner, "runner", runnerLocal, "where --prove's recipes run: local or container")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	if c.Runner != runnerLocal && c.Runner != runnerContainer {
		return usagef("--runner %q: want local or container", c.Runner)
	}
	a, err := compat.Run(ctx, c.Repo)
	if err != nil {
		return err
	}
	if prove != "" {
		return proveShim(ctx, a, prove, c, stdout, stderr)
	}
	overdue, err := a.Write(stdout)
	if err != nil {
		return err
	}
	if overdue > 0 {
		return &exitError{exitFindings} // dead weight shipped in a release already
	}
	return nil
}

// proveShim runs the supported pairings with one shim turned off (compat.Prove).
func proveShim(ctx context.Context, a *compat.Audit, name string, c common, stdout, stderr io.Writer) error {
	sh, err := a.Shim(name)
	if err != nil {
		return err
	}
	o := &runOptions{common: c, Matrix: "default", Parallel: harness.DefaultParallel()}
	o.command, o.args = "compat", []string{"--prove", name}
	p, err := compat.Prove(ctx, a, *sh, o.config(io.Discard, stderr)) // the two runs' matrices are in their reports
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "compat: COMPAT(%s) (%s:%d) turned off with %s, against %s\n", sh.Name, sh.File, sh.Line, sh.Switch, strings.Join(a.Releases, ", "))
	for _, f := range p.Failing {
		fmt.Fprintf(stdout, "  failing with the shim too (not its doing): %s\n", f)
	}
	if len(p.Broken) == 0 {
		fmt.Fprintf(stdout, "compat: nothing broke: no release the working tree must still serve needs COMPAT(%s) (the audit said: %s)\n", sh.Name, sh.Verdict)
		return nil
	}
	for _, b := range p.Broken {
		fmt.Fprintf(stdout, "  broke: %s\n", b)
	}
	fmt.Fprintf(stdout, "compat: removing COMPAT(%s) breaks %s the working tree must still pass (the audit said: %s; reports: %s)\n",
		sh.Name, results.Plural(len(p.Broken), "pairing"), sh.Verdict, c.ReportDir)
	return &exitError{exitFindings}
}
