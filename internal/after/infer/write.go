package infer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes the draft to file and its report beside it (file with .txt for .json);
// it returns the report's path.
func (r *Result) WriteFile(file string) (report string, err error) {
	report = strings.TrimSuffix(file, ".json") + ".txt"
	if err := os.WriteFile(file, r.Document, 0o644); err != nil {
		return "", err
	}
	f, err := os.Create(report)
	if err != nil {
		return "", err
	}
	if err := r.Report(f); err != nil {
		f.Close()
		return "", err
	}
	return report, f.Close()
}

// Written is one build's draft that PerBuild wrote.
type Written struct {
	Label        string // the build
	File, Report string // the draft and its report
	*Result
}

// PerBuild drafts one contract per recorded build, from the frames that build sent
// (BySender), and writes each into dir (created if need be) as LABEL.json with its report
// LABEL.txt; a "/" in a label becomes "_". Drafts come in label order.
func PerBuild(recs []Recording, dir string) ([]Written, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	labels, by := BySender(recs)
	out := make([]Written, 0, len(labels))
	for _, l := range labels {
		r, err := Draft(by[l])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l, err)
		}
		file := filepath.Join(dir, strings.NewReplacer("/", "_", string(filepath.Separator), "_").Replace(l)+".json")
		report, err := r.WriteFile(file)
		if err != nil {
			return nil, err
		}
		out = append(out, Written{Label: l, File: file, Report: report, Result: r})
	}
	return out, nil
}
