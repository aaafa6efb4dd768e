// Package reports renders a results.Run: results.json, JUnit XML, a Markdown summary and the
// matrix printed at the end of a run. Every renderer reads only the results model, so a saved
// results.json can be rendered again.
package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewtest/skewtest/results"
)

// Files written by Write, relative to the report directory.
const (
	ResultsFile = "results.json"
	JUnitFile   = "junit.xml"
	SummaryFile = "summary.md"
)

// Write writes every report of run into dir.
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
	return os.WriteFile(filepath.Join(dir, SummaryFile), []byte(Markdown(run)), 0o644)
}

// Load reads a results.json.
func Load(path string) (*results.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var run results.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if run.SchemaVersion > results.SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d is newer than this skewtest (%d)", path, run.SchemaVersion, results.SchemaVersion)
	}
	return &run, nil
}
