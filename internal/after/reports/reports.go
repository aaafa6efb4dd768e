// Package reports renders a results.Run: results.json, JUnit XML, a Markdown summary, a
// self-contained HTML report and the matrix printed at the end of a run. Every renderer
// reads only the results model, so a saved results.json can be rendered again, and the
// reports of shards can be merged (MergeDirs).
package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/results"
)

// Files written by Write, relative to the report directory.
const (
	ResultsFile = "results.json"
	JUnitFile   = "junit.xml"
	SummaryFile = "summary.md"
	HTMLFile    = "report.html"
)

// StepSummaryEnv names the file GitHub Actions shows as a job's summary: when it is set,
// Write appends summary.md to it.
const StepSummaryEnv = "GITHUB_STEP_SUMMARY"

// stepSummaryLimit keeps an appended summary under GitHub's 1 MiB per step, with room for
// what else the job writes.
const stepSummaryLimit = 900 << 10

// Write writes every report of run into dir: results.json, junit.xml, summary.md and
// report.html. When $GITHUB_STEP_SUMMARY is set it also appends summary.md to that file.
func Write(dir string, run *results.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Frame labels read "H>C …": keep them readable rather than HTML-escaped.
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(run); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), data.Bytes(), 0o644); err != nil {
		return err
	}
	junit, err := JUnit(run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, JUnitFile), junit, 0o644); err != nil {
		return err
	}
	summary := Markdown(run)
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(summary), 0o644); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := HTML(&page, run); err != nil {
		return fmt.Errorf("render %s: %w", HTMLFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, HTMLFile), page.Bytes(), 0o644); err != nil {
		return err
	}
	if path := os.Getenv(StepSummaryEnv); path != "" {
		if err := AppendStepSummary(path, summary); err != nil {
			return fmt.Errorf("$%s: %w", StepSummaryEnv, err)
		}
	}
	return nil
}

// AppendStepSummary appends a Markdown summary to a GitHub Actions step summary file,
// cut short (saying so) where GitHub would refuse it.
func AppendStepSummary(path, summary string) error {
	if len(summary) > stepSummaryLimit {
		cut := strings.LastIndex(summary[:stepSummaryLimit], "\n")
		summary = summary[:cut+1] + "\n… cut short: the whole summary is summary.md in the report.\n"
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(summary + "\n")
	return errors.Join(err, f.Close())
}
