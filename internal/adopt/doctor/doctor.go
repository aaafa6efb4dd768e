// Package doctor checks a subject's setup step by step and says what to fix (skewtest
// doctor): the skewtest.yaml, the contract and the journeys parse; the working tree builds;
// each declared driver speaks the driver protocol (package drivercheck), its host binding
// and reporting its port; one reference pairing passes; and every stable tag either carries
// its own skewtest.yaml or is covered by a versions: row. A step that cannot be made because
// an earlier one failed is skipped, saying which.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/adopt/drivercheck"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// Config is one doctor's visit.
type Config struct {
	// Repo is the subject's repository; CacheDir the build cache (matrix.Config's).
	Repo, CacheDir string
	// ReportDir keeps the reference pairing's report and the drivers' logs (default: a
	// temporary directory, removed at the end).
	ReportDir string
	// Runner makes where recipes run (matrix.Config.Runner).
	Runner func(ctx context.Context, log io.Writer) (builds.Runner, func(), error)
	// Stdout gets each step as it is made; Stderr the build's progress. Nil discards.
	Stdout, Stderr io.Writer
	// All runs the reference pairing on every journey; by default, on the first only.
	All bool
}

// Step is one thing the doctor looked at.
type Step struct {
	Name string
	// OK says it is right; Skipped that an earlier step kept it from being looked at.
	OK, Skipped bool
	// Detail says what was found; Fix, for a failed step, what to do.
	Detail, Fix string
}

func (s Step) String() string {
	mark := "ok  "
	switch {
	case s.Skipped:
		mark = "skip"
	case !s.OK:
		mark = "FAIL"
	}
	line := mark + " " + s.Name
	if s.Detail != "" {
		line += ": " + s.Detail
	}
	if s.Fix != "" {
		line += "\n       fix: " + s.Fix
	}
	return line
}

// Report is every step, in order.
type Report struct {
	Steps []Step
}

// Failed lists the steps that failed.
func (r *Report) Failed() []Step {
	var out []Step
	for _, s := range r.Steps {
		if !s.OK && !s.Skipped {
			out = append(out, s)
		}
	}
	return out
}

type visit struct {
	c   Config
	r   *Report
	out io.Writer
	// kept says the report directory outlives the visit (Config.ReportDir was given).
	kept bool
}

// where says where a step's evidence is, or how to keep it.
func (v *visit) where(dir string) string {
	if v.kept {
		return "in " + dir
	}
	return "(doctor --report-dir DIR keeps them)"
}

func (v *visit) step(s Step) {
	v.r.Steps = append(v.r.Steps, s)
	fmt.Fprintln(v.out, s)
}

func (v *visit) ok(name, format string, a ...any) {
	v.step(Step{Name: name, OK: true, Detail: fmt.Sprintf(format, a...)})
}

func (v *visit) fail(name, fix, format string, a ...any) {
	v.step(Step{Name: name, Detail: fmt.Sprintf(format, a...), Fix: fix})
}

func (v *visit) skip(name, why string) {
	v.step(Step{Name: name, Skipped: true, Detail: why})
}

// Run makes every step it can and returns them; an error means the doctor itself could not
// work (ctx ended, no temporary directory), never that the subject is unwell.
func Run(ctx context.Context, c Config) (*Report, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	kept := c.ReportDir != ""
	if !kept {
		dir, err := os.MkdirTemp("", "skewtest-doctor-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		c.ReportDir = dir
	}
	v := &visit{c: c, r: &Report{}, out: c.Stdout, kept: kept}
	err := v.run(ctx)
	if ctx.Err() != nil {
		return v.r, ctx.Err()
	}
	return v.r, err
}

func (v *visit) run(ctx context.Context) error {
	s, err := subject.Open(v.c.Repo)
	if err != nil {
		v.fail("repository", "run skewtest in a git repository (or give --repo), with its history and tags", "%v", err)
		return nil
	}
	v.ok("repository", "%s", v.c.Repo)

	cfg, err := s.WorktreeConfig()
	switch {
	case err != nil:
		v.fail("skewtest.yaml", "correct the line the error names (docs/subject.md)", "%v", err)
	case cfg == nil:
		v.fail("skewtest.yaml", "write one: skewtest init writes a commented skeleton", "none at the repository's root")
	default:
		v.ok("skewtest.yaml", "product %s, %s", cfg.Product, kindsOf(cfg))
	}
	if cfg == nil {
		for _, name := range []string{"contract", "journeys", "build", "drivers", "reference pairing", "old tags"} {
			v.skip(name, "no usable skewtest.yaml")
		}
		return nil
	}

	contractOK := v.contract(s, cfg)
	js := v.journeys(s)
	var built *harness.Build
	if contractOK {
		built = v.build(ctx, cfg)
	} else {
		v.skip("build", "the contract is not right yet (a build is described by its contract)")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	driversOK := v.drivers(ctx, built)
	v.reference(ctx, built, js, driversOK)
	return v.oldTags(ctx, s, cfg)
}

func kindsOf(cfg *builds.Config) string {
	var kinds []string
	for k := range cfg.Drivers.Clients {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return "a host and " + results.Plural(len(kinds), "client kind") + " (" + strings.Join(kinds, ", ") + ")"
}

// contract says whether the working tree's contract parses.
func (v *visit) contract(s *subject.Subject, cfg *builds.Config) bool {
	cs, err := s.Contracts()
	if err == nil {
		var cf pins.ContractFile
		if cf, err = cs.Worktree(); err == nil {
			if _, err = subject.ParseContractFile(cf); err == nil {
				v.ok("contract", "%s", cfg.Contract)
				return true
			}
		}
	}
	fix := "correct it where the error says (docs/contract.md); skewtest contract decode tries it on sample frames"
	if errors.Is(err, pins.ErrNoContract) || errors.Is(err, os.ErrNotExist) {
		fix = "write the contract at the path skewtest.yaml's contract: names (docs/contract.md)"
	}
	v.fail("contract", fix, "%v", err)
	return false
}

func (v *visit) journeys(s *subject.Subject) []string {
	js, err := s.Journeys(nil)
	if err != nil {
		v.fail("journeys", "list journey files under journeys: in skewtest.yaml, and correct the line the error names (docs/journeys.md)", "%v", err)
		return nil
	}
	var names []string
	for _, j := range js {
		names = append(names, j.Name)
	}
	v.ok("journeys", "%s", strings.Join(names, ", "))
	return names
}

// build builds the working tree alone; nil when it did not build.
func (v *visit) build(ctx context.Context, cfg *builds.Config) *harness.Build {
	run := &results.Run{}
	mc := matrix.Config{Repo: v.c.Repo, CacheDir: v.c.CacheDir, ReportDir: v.c.ReportDir, Runner: v.c.Runner,
		Host: pins.WorktreeLabel, Client: pins.WorktreeLabel, Stdout: io.Discard, Stderr: v.c.Stderr}
	// No CA: the doctor starts no driver of this build through the harness (drivercheck
	// makes its own; the reference pairing is a matrix.Run of its own).
	built, _, err := matrix.Prepare(ctx, &mc, run, nil)
	if err != nil {
		v.fail("build", "make build.steps write the drivers to $SKEWTEST_OUT (docs/subject.md)", "%v", err)
		return nil
	}
	b := built[0]
	if b.Err != nil {
		log := ""
		if len(run.Builds) > 0 && run.Builds[0].Log != "" {
			log = " (log: " + run.Builds[0].Log + ")"
		}
		v.fail("build", "make build.steps succeed and write the drivers to $SKEWTEST_OUT; skewtest build --repo . -v shows each step", "%v%s", b.Err, log)
		return nil
	}
	v.ok("build", "the working tree, with %s", strings.Join(cfg.Build.Steps, "; "))
	return b
}

// drivers checks each declared driver against the protocol; it says whether all passed.
func (v *visit) drivers(ctx context.Context, b *harness.Build) bool {
	if b == nil {
		v.skip("drivers", "the working tree was not built")
		return false
	}
	type one struct {
		name, kind string
		argv       []string
	}
	all := []one{{name: "host driver", argv: b.Host}}
	var kinds []string
	for k := range b.Clients {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		all = append(all, one{name: k + " client driver", kind: k, argv: b.Clients[k]})
	}
	ok := true
	for _, d := range all {
		role := "host"
		if d.kind != "" {
			role = "client"
		}
		logs := filepath.Join(v.c.ReportDir, "drivers", strings.ReplaceAll(d.name, " ", "-"))
		if err := os.MkdirAll(logs, 0o755); err != nil {
			return false
		}
		r, err := drivercheck.Run(ctx, drivercheck.Config{Argv: d.argv, Dir: b.Dir, Role: role, Kind: d.kind, Env: b.Env, LogDir: logs})
		if err != nil {
			v.fail(d.name, "", "%v", err)
			ok = false
			continue
		}
		if failed := r.Failed(); len(failed) > 0 {
			var what []string
			for _, f := range failed {
				what = append(what, f.String())
			}
			v.fail(d.name, fmt.Sprintf("%s shows each check; its logs %s (docs/driver-authors.md)",
				shell.Join(driverCheck(role, d.kind, d.argv)), v.where(logs)), "%s", strings.Join(what, "; "))
			ok = false
			continue
		}
		detail := "speaks the protocol"
		for _, ch := range r.Checks {
			if ch.Name == "ready" && ch.Detail != "" {
				detail += ", " + ch.Detail
			}
		}
		v.ok(d.name, "%s", detail)
	}
	return ok
}

// driverCheck is the command that runs the driver checks on one driver, word by word.
func driverCheck(role, kind string, argv []string) []string {
	words := []string{"skewtest", "driver", "check", "--role", role}
	if kind != "" {
		words = append(words, "--kind", kind)
	}
	return append(append(words, "--"), argv...)
}

// reference runs the working tree with itself on the first journey, or on every one (All).
func (v *visit) reference(ctx context.Context, b *harness.Build, js []string, driversOK bool) {
	switch {
	case b == nil || !driversOK:
		v.skip("reference pairing", "the drivers are not right yet")
		return
	case len(js) == 0:
		v.skip("reference pairing", "no journey")
		return
	}
	dir := filepath.Join(v.c.ReportDir, "reference")
	run, err := matrix.Run(ctx, matrix.Config{Repo: v.c.Repo, CacheDir: v.c.CacheDir, ReportDir: dir, Runner: v.c.Runner,
		Host: pins.WorktreeLabel, Client: pins.WorktreeLabel, Journeys: v.referenceJourneys(js), Seed: 1, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		v.fail("reference pairing", "", "%v", err)
		return
	}
	for _, p := range run.Pairings {
		if p.Status != results.StatusPass {
			what := string(p.Status)
			if p.Error != "" {
				what += ": " + p.Error
			}
			for _, f := range p.Findings {
				what += "; " + string(f.Kind) + ": " + f.Message
			}
			v.fail("reference pairing", "a build paired with itself must pass: read its transcript (skewtest transcript) and its drivers' logs "+v.where(dir),
				"%s: %s", p.Label(), what)
			return
		}
	}
	ran := v.referenceJourneys(js)
	detail := fmt.Sprintf("%s of %s passed", results.Plural(len(run.Pairings), "pairing"), strings.Join(ran, ", "))
	if len(ran) < len(js) {
		detail += fmt.Sprintf(" (the first journey only; doctor --all runs all %d)", len(js))
	}
	v.ok("reference pairing", "%s", detail)
}

// referenceJourneys are the journeys the reference pairing runs: the first, or all.
func (v *visit) referenceJourneys(js []string) []string {
	if v.c.All {
		return js
	}
	return js[:1]
}

// oldTags says which stable tags can be built and driven: with their own skewtest.yaml, or
// with the working tree's through a versions: row.
func (v *visit) oldTags(ctx context.Context, s *subject.Subject, cfg *builds.Config) error {
	tags, err := s.StableTags(ctx)
	if err != nil {
		v.fail("old tags", "fetch the tags (a shallow clone has none)", "%v", err)
		return nil
	}
	if len(tags) == 0 {
		v.ok("old tags", "no stable vX.Y.Z tag yet: nothing to pair with")
		return nil
	}
	var own, rows, bare []string
	for _, t := range tags {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := s.Repo.CommitObject(t.Commit)
		if err != nil {
			return err
		}
		tree, err := c.Tree()
		if err != nil {
			return err
		}
		switch _, err := tree.File(builds.ConfigFile); {
		case err == nil:
			own = append(own, t.Name)
		case cfg.Versions.Match(t.Name) != nil:
			rows = append(rows, t.Name)
		default:
			bare = append(bare, t.Name)
		}
	}
	detail := fmt.Sprintf("%s: %d with their own skewtest.yaml, %d through a versions: row", results.Plural(len(tags), "stable tag"), len(own), len(rows))
	if len(bare) > 0 {
		v.fail("old tags", "add a versions: row whose range covers them, laying the working tree's drivers over them (overlay:) and giving their recipe (docs/subject.md, versions)",
			"%s; %d with neither, which no run can build: %s", detail, len(bare), strings.Join(bare, ", "))
		return nil
	}
	v.ok("old tags", "%s", detail)
	return nil
}
