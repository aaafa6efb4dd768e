package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// exampleOptions are the flags of example and the directory it writes.
type exampleOptions struct {
	Subject, Source string
	Dir             string
	example.Options
}

func parseExample(args []string, stderr io.Writer) (*exampleOptions, error) {
	o := &exampleOptions{}
	fs := newFlagSet("example", stderr, "example [--subject NAME] [--source DIR] [--adopted-at TAG] DIR")
	fs.StringVar(&o.Subject, "subject", "", "the example subject: "+strings.Join(example.Subjects(), ", ")+" (default "+example.Subjects()[0]+")")
	fs.StringVar(&o.Source, "source", "", "the subject's directory (default: the subject of the skewtest checkout around the working directory, else the copy built into skewtest)")
	fs.StringVar(&o.AdoptedAt, "adopted-at", "", "write it as adopted late: the releases before TAG have no skewtest files, and the working tree builds them through versions rows")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return nil, err
	}
	o.Dir = pos[0]
	return o, nil
}

func cmdExample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseExample(args, stderr)
	if err != nil {
		return err
	}
	s, err := exampleSource(o.Subject, o.Source)
	if err != nil {
		return err
	}
	w, err := example.WriteWith(s, o.Dir, o.Options)
	if errors.Is(err, example.ErrNotEmpty) || errors.Is(err, example.ErrOptions) {
		return usagef("%w", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the %s history (from %s) to %s\n  tags: %v\n  uncommitted in the working tree: %v\n", s.Name, s.From, w.Dir, w.Tags, w.Worktree)
	if w.AdoptedAt != "" {
		fmt.Fprintf(stdout, "  adopted at %s: the releases before it have no skewtest files; skewtest.yaml's versions rows build them\n", w.AdoptedAt)
	}
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
	fs := newFlagSet("demo", stderr, "demo [--subject NAME] [--source DIR] [--adopted-at TAG] [--report-dir D] [--cache-dir D] [--known-bugs=false] [-v]")
	subject := fs.String("subject", "", "the example subject: "+strings.Join(example.Subjects(), ", ")+" (default "+example.Subjects()[0]+")")
	src := fs.String("source", "", "the subject's directory (default: the subject of the skewtest checkout around the working directory, else the copy built into skewtest)")
	reportDir := fs.String("report-dir", "", "where reports go (default: inside the demo's temporary directory); the known bugs' go to its known-bugs/")
	cacheDir := fs.String("cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	knownBugs := fs.Bool("known-bugs", true, "after the default plan, run the release-skew bugs the history declares (history.yaml knownBugs): each must be found red")
	verbose := fs.Bool("v", false, "print progress")
	var eo example.Options
	fs.StringVar(&eo.AdoptedAt, "adopted-at", "", "write the history as adopted late at TAG (see example -h): the releases before it are built from the working tree's versions rows")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	s, err := exampleSource(*subject, *src)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "skewtest-demo-")
	if err != nil {
		return err
	}
	// Each demo writes a new temporary directory: say so, and how to remove it (D15).
	defer fmt.Fprintf(stdout, "skewtest demo: the subject's history and the reports stay in %s; remove it with %s\n", tmp, shell.Join([]string{"rm", "-rf", tmp}))
	repo := filepath.Join(tmp, s.Name)
	w, err := example.WriteWith(s, repo, eo)
	if errors.Is(err, example.ErrOptions) {
		return usagef("%w", err)
	}
	if err != nil {
		return err
	}
	if *reportDir == "" {
		*reportDir = filepath.Join(tmp, "report")
	}
	fmt.Fprintf(stdout, "skewtest demo: wrote the %s history (from %s) to %s\n", s.Name, s.From, repo)
	o := &runOptions{common: common{Repo: repo, ReportDir: *reportDir, CacheDir: *cacheDir, Verbose: *verbose}, Matrix: "default", Parallel: harness.DefaultParallel()}
	if err := o.check(); err != nil {
		return err
	}
	o.command, o.args = "demo", args
	run, err := matrix.Run(ctx, o.config(stdout, stderr))
	if err != nil {
		return err
	}
	code := run.ExitCode()
	if code == exitOK {
		fmt.Fprintln(stdout, "skewtest demo: the default plan passed: the working tree and its pinned releases understand each other, both ways")
	} else {
		fmt.Fprintf(stdout, "skewtest demo: the default plan did not pass (exit %d): it should, on this history\n", code)
	}
	switch {
	case !*knownBugs:
		fmt.Fprintln(stdout, "skewtest demo: --known-bugs=false: the history's known release-skew bugs were not run")
	case len(w.KnownBugs) == 0:
		fmt.Fprintf(stdout, "skewtest demo: the %s history declares no known release-skew bugs (history.yaml knownBugs): nothing more to run\n", s.Name)
	default:
		kcode, err := demoKnownBugs(ctx, o, s.Name, w.KnownBugs, stdout, stderr)
		if err != nil {
			return err
		}
		code = max(code, kcode)
	}
	return &exitError{code}
}

// demoKnownBugs runs the known bugs as one run of exactly their pairings, into the
// report directory's known-bugs/, and says of each whether it was found as documented,
// with its repro line. Its exit code is 0 when every one was, 1 when one was not (a
// regression of skewtest's checks), 3 when a pairing could not be tested.
func demoKnownBugs(ctx context.Context, o *runOptions, name string, bugs []example.KnownBug, stdout, stderr io.Writer) (int, error) {
	fmt.Fprintf(stdout, "\nskewtest demo: now the %s the %s history ships on purpose (history.yaml knownBugs), which must be found red\n",
		results.Plural(len(bugs), "known release-skew bug"), name)
	cfg := o.config(stdout, stderr)
	cfg.ReportDir = filepath.Join(o.ReportDir, "known-bugs")
	cfg.Command = []string{"demo", "(known bugs)"}
	for _, b := range bugs {
		cfg.Pairings = append(cfg.Pairings, matrix.Pair{Host: b.Host, Client: b.Client, Kind: b.Kind, Journey: b.Journey})
	}
	run, err := matrix.Run(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("known bugs: %w", err)
	}
	fmt.Fprintln(stdout)
	missed := 0
	declared := map[string]bool{}
	for _, b := range bugs {
		declared[b.Label()] = true
		s := b.Check(run)
		if s.Found() {
			fmt.Fprintf(stdout, "found as documented: %s\n  %s: %s\n", b.Why, b.Label(), kindsFound(s.Pairing))
		} else {
			missed++
			fmt.Fprintf(stdout, "NOT FOUND: %s\n  %s: %s (documented: %s)\n", b.Why, b.Label(), s.Missing, kindList(b.Finds))
		}
		if s.Pairing != nil && s.Pairing.Repro != "" {
			fmt.Fprintf(stdout, "  %s\n", s.Pairing.Repro)
		}
	}
	// The references the bugs are checked against may be red too (a build that fails with
	// its own peer): say so, so the count of failed pairings is explained.
	for _, p := range run.Pairings {
		if p.Status == results.StatusFail && !declared[p.Label()] {
			what := "not declared"
			if p.Host == p.Client {
				what = "a reference: the build fails with its own peer"
			}
			fmt.Fprintf(stdout, "also red (%s): %s: %s\n", what, p.Label(), kindsFound(p))
		}
	}
	page := filepath.Join(cfg.ReportDir, reports.HTMLFile)
	code := exitOK
	if missed == 0 {
		them := "them"
		if len(bugs) == 1 {
			them = "it"
		}
		fmt.Fprintf(stdout, "skewtest demo: %s found as documented; open %s to see %s red\n", results.Plural(len(bugs), "known release-skew bug"), page, them)
	} else {
		code = exitFindings
		fmt.Fprintf(stdout, "skewtest demo: %d of %s NOT FOUND as documented: a regression of skewtest's checks (or of the history); see %s\n",
			missed, results.Plural(len(bugs), "known release-skew bug"), page)
	}
	if run.ExitCode() == exitInfra {
		code = exitInfra // a pairing could not be tested: an infrastructure error outranks the rest
	}
	return code, nil
}

// kindsFound lists the kinds of a pairing's findings, each once.
func kindsFound(p *results.Pairing) string {
	var kinds []results.Kind
	for _, f := range p.Findings {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	return kindList(kinds)
}

func kindList(kinds []results.Kind) string {
	var out []string
	for _, k := range kinds {
		out = append(out, string(k))
	}
	return strings.Join(out, ", ")
}
