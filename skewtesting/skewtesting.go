// Package skewtesting runs a product's skew matrix from `go test`.
//
// In a plain Go test, Run runs the matrix (skewtest.Run) and makes each pairing a subtest;
// every finding fails its subtest with its message, its evidence and the repro line that
// reruns the pairing alone:
//
//	func TestSkew(t *testing.T) {
//		skewtesting.Run(t, skewtest.Config{Repo: "..", Pins: skewtest.Pins{Last: 2}})
//	}
//
// In a Ginkgo suite, Matrix runs it and BeCompatible is the assertion:
//
//	It("understands the last two releases both ways", func(ctx SpecContext) {
//		Expect(skewtesting.Matrix(ctx, skewtest.Config{Repo: ".."})).To(skewtesting.BeCompatible())
//	})
//
// The reports (report.html, results.json, the transcripts) go to Config.ReportDir; left
// empty, Run puts them in the test's temporary directory and logs where.
package skewtesting

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/onsi/gomega/types"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/results"
)

// Run runs the matrix of cfg inside t: each pairing is a subtest named by its label (host
// × kind client, journey), and each finding fails it with its repro line. The contract
// check's findings fail a subtest of their own, "contract-check". A run that cannot be
// made (a bad configuration, a broken build tool) fails t at once. Run returns the run, for
// assertions of the test's own.
func Run(t *testing.T, cfg skewtest.Config) *results.Run {
	t.Helper()
	if cfg.ReportDir == "" {
		cfg.ReportDir = t.TempDir()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = logWriter{t}
	}
	if cfg.Stderr == nil {
		cfg.Stderr = logWriter{t}
	}
	if len(cfg.Command) == 0 {
		cfg.Command = []string{"go test", t.Name()}
	}
	run, err := skewtest.Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("skewtest: %v", err)
	}
	if run == nil {
		return nil // PlanOnly
	}
	t.Logf("skewtest reports: %s", cfg.ReportDir)
	Report(t, run)
	return run
}

// Report makes each pairing of run a subtest of t, failed by its findings, its error or
// its flakiness, each with the pairing's repro line; the contract check's findings fail a
// subtest of their own, "contract-check", and the fixture tier's one named "fixtures". Run calls it; a test that ran the matrix itself
// (or read a results.json with results.Load) can too.
func Report(t *testing.T, run *results.Run) {
	t.Helper()
	if len(results.Failing(run.Findings)) > 0 {
		t.Run("contract-check", func(t *testing.T) {
			for _, f := range results.Failing(run.Findings) {
				t.Error(findingText(f, ""))
			}
		})
	}
	if run.Fixtures != nil && len(run.Fixtures.Findings) > 0 {
		t.Run("fixtures", func(t *testing.T) {
			for _, f := range run.Fixtures.Findings {
				t.Error(findingText(f, ""))
			}
		})
	}
	for i := range run.Pairings {
		p := run.Pairings[i]
		name := p.Label()
		if p.Future {
			name += " (future peers)"
		}
		t.Run(name, func(t *testing.T) {
			for _, line := range pairingFailures(p) {
				t.Error(line)
			}
		})
	}
}

// Matrix runs the matrix of cfg for a Ginkgo spec (or any caller with a context): the run,
// or the error that kept it from being made. Give it a ReportDir (GinkgoT().TempDir()).
func Matrix(ctx context.Context, cfg skewtest.Config) (*results.Run, error) {
	return skewtest.Run(ctx, cfg)
}

// Failures lists what fails in run, one entry a finding or an error, each with its repro
// line: empty when the run is compatible.
func Failures(run *results.Run) []string {
	if run == nil {
		return nil
	}
	var out []string
	for _, f := range results.Failing(run.Findings) {
		out = append(out, findingText(f, ""))
	}
	if run.Fixtures != nil {
		for _, f := range run.Fixtures.Findings {
			out = append(out, "fixtures: "+findingText(f, ""))
		}
	}
	for i := range run.Pairings {
		p := run.Pairings[i]
		for _, line := range pairingFailures(p) {
			out = append(out, p.Label()+": "+line)
		}
	}
	return out
}

// pairingFailures is what fails one pairing: its findings and its error, with its repro
// line. A flaky pairing fails too: its verdict depends on timing.
func pairingFailures(p *results.Pairing) []string {
	var out []string
	switch p.Status {
	case results.StatusPass, results.StatusExpectedRefusal:
		return nil
	case results.StatusError:
		out = append(out, fmt.Sprintf("error: %s\nrepro: %s", p.Error, p.Repro))
	case results.StatusFlaky:
		out = append(out, fmt.Sprintf("flaky: its attempts disagreed (%v)\nrepro: %s", p.Attempts, p.Repro))
	}
	for _, f := range results.Failing(p.Findings) {
		out = append(out, findingText(f, p.Repro))
	}
	return out
}

func findingText(f results.Finding, repro string) string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	if f.Step != "" {
		fmt.Fprintf(&b, " in step %s", f.Step)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	if f.Detail != "" {
		fmt.Fprintf(&b, "\n%s", f.Detail)
	}
	if repro != "" {
		fmt.Fprintf(&b, "\nrepro: %s", repro)
	}
	return b.String()
}

// BeCompatible succeeds on a run with no failing finding, no error and no flaky pairing;
// its failure message lists every failure with its repro line.
func BeCompatible() types.GomegaMatcher { return compatible{} }

type compatible struct{}

func (compatible) Match(actual any) (bool, error) {
	run, ok := actual.(*results.Run)
	if !ok {
		return false, fmt.Errorf("BeCompatible expects a *results.Run, got %T", actual)
	}
	if run == nil {
		return false, fmt.Errorf("BeCompatible: no run (PlanOnly, or the run could not be made)")
	}
	return len(Failures(run)) == 0, nil
}

func (compatible) FailureMessage(actual any) string {
	run := actual.(*results.Run)
	return fmt.Sprintf("expected a compatible run; %d failure(s):\n\n%s", len(Failures(run)), strings.Join(Failures(run), "\n\n"))
}

func (compatible) NegatedFailureMessage(any) string {
	return "expected the run to fail, but every pairing passed"
}

// logWriter writes the run's output to the test's log, a line at a time.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
