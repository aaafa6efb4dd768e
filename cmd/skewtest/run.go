package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/journeys"
	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/results"
)

// runOptions are the flags of run (and, narrowed, of repro).
type runOptions struct {
	common
	// PlanOnly prints the plan instead of running it (skewtest plan).
	PlanOnly bool
	pinFlags
	Matrix   string
	Kinds    []string
	Journeys []string
	// Host and Client are set by repro: exactly one pairing of builds.
	Host, Client string
}

func parseRun(args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := newFlagSet("run", stderr, "run --repo DIR [flags]")
	o.register(fs)
	var kinds, journeyList string
	o.registerPins(fs)
	fs.StringVar(&o.Matrix, "matrix", "default", "default: each pin with the working tree both ways, plus references; full: every build with every build")
	fs.StringVar(&kinds, "kind", "", "client kinds to cover, comma-separated (default: every kind both builds support)")
	fs.StringVar(&journeyList, "journey", "", "journeys to run, comma-separated names or files (default: every built-in journey)")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	o.Kinds, o.Journeys = list(kinds), list(journeyList)
	return o, o.check()
}

// cmdPlan resolves pins, builds (cached builds cost nothing) and prints the plan, so a
// matrix can be read, and its repro lines copied, before anything runs.
func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	o.PlanOnly = true
	return execute(ctx, o, stdout, stderr)
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	return execute(ctx, o, stdout, stderr)
}

// loadJourneys reads the named journeys, or every built-in one.
func loadJourneys(names []string) ([]*journeys.Journey, error) {
	if len(names) == 0 {
		names = journeys.BuiltinNames()
	}
	var out []*journeys.Journey
	for _, n := range names {
		j, err := journeys.Load(n)
		if err != nil {
			return nil, err
		}
		if err := harness.Validate(j); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// execute resolves pins, builds, plans, runs every pairing and writes the reports.
func execute(ctx context.Context, o *runOptions, stdout, stderr io.Writer) error {
	js, err := loadJourneys(o.Journeys)
	if err != nil {
		return err
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Seed: o.Seed, Repo: o.Repo, Started: time.Now()}
	fmt.Fprintf(stdout, "skewtest: seed %d\n", o.Seed)

	var srcs []builds.Source
	subject, hostIdx, clientIdx := 0, -1, -1
	if o.Host != "" {
		hs, err := sourceOf(ctx, o.Repo, o.Host)
		if err != nil {
			return err
		}
		cs, err := sourceOf(ctx, o.Repo, o.Client)
		if err != nil {
			return err
		}
		srcs = append(srcs, hs)
		hostIdx, clientIdx = 0, 0
		if cs != hs {
			srcs = append(srcs, cs)
			clientIdx = 1
		}
	} else {
		sel, err := selectPins(ctx, o.Repo, o.pinFlags.options(), stderr)
		if err != nil {
			return err
		}
		srcs = append(srcs, builds.Worktree())
		for _, p := range sel.Pins {
			fmt.Fprintf(stdout, "pin %s: %s\n", p, p.Reason)
			srcs = append(srcs, builds.AtCommit(p.Ref, p.Commit))
		}
	}
	b, buildProgress, done, err := newBuilder(ctx, &o.common, stderr)
	if err != nil {
		return err
	}
	built, recs, err := harness.BuildAll(ctx, b, o.Repo, srcs, buildProgress)
	done()
	if err != nil {
		return err
	}
	run.Builds = recs

	var plan []harness.Pairing
	if hostIdx >= 0 {
		plan = harness.Journeys(built[hostIdx], built[clientIdx], harness.PlanOptions{Kinds: o.Kinds, Journeys: js})
	} else {
		plan, err = harness.Plan(built[subject], built[1:], harness.PlanOptions{Matrix: harness.Matrix(o.Matrix), Kinds: o.Kinds, Journeys: js})
		if err != nil {
			return usagef("%v", err)
		}
	}
	if len(plan) == 0 {
		return usagef("nothing to run: no journey matches the client kinds %v", o.Kinds)
	}
	plan = harness.WithReferences(plan)
	fmt.Fprintf(stdout, "plan: %d pairings\n", len(plan))
	if o.PlanOnly {
		for i, p := range plan {
			harness.PrintPlan(stdout, plan[i:i+1], i+1)
			fmt.Fprintf(stdout, "     %s\n", reproLine(o, p))
		}
		return nil
	}
	if o.Verbose {
		harness.PrintPlan(stderr, plan, 1)
	}
	harness.Execute(ctx, plan, run, harness.ExecuteOptions{
		ReportDir: o.ReportDir,
		Pairing:   harness.Options{Timeout: o.Timeout},
		Repro:     func(p harness.Pairing) string { return reproLine(o, p) },
		Progress:  stderr,
		Verbose:   o.Verbose,
	})
	run.Finished = time.Now()
	if err := reports.Write(o.ReportDir, run); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	fmt.Fprintln(stdout)
	reports.Matrix(stdout, run)
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return &exitError{run.ExitCode()}
}

// source resolves a REF of repro: "worktree" or a ref of the repository.
func sourceOf(ctx context.Context, repo, ref string) (builds.Source, error) {
	if ref == builds.WorktreeLabel {
		return builds.Worktree(), nil
	}
	p, err := resolveRef(ctx, repo, ref)
	if err != nil {
		return builds.Source{}, err
	}
	return builds.AtCommit(p.Ref, p.Commit), nil
}

func reproLine(o *runOptions, p harness.Pairing) string {
	return fmt.Sprintf("skewtest repro --repo %s --host %s --client %s --kind %s --journey %s --seed %d",
		shellQuote(o.Repo), p.Host.Label, p.Client.Label, p.Kind, p.Journey.Name, o.Seed)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$\\*?;&|<>()") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
