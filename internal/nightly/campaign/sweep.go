package campaign

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

// sweep removes the pairing directories that nothing in run refers to: a campaign runs
// thousands of pairings, and keeps only what its findings, errors and corpus name (a
// passing pack, a pairing the budget cut, a confirmation that showed nothing). A directory
// is kept when any path in results.json names it or a file inside it. It returns how many
// it removed.
func sweep(reportDir string, run *results.Run) (int, error) {
	ents, err := os.ReadDir(filepath.Join(reportDir, reports.PairingsDir))
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(run); err != nil {
		return 0, err
	}
	// The directories results.json names, read from it once: a night's results.json holds
	// hundreds of thousands of cases, and searching all of it for each directory took a
	// 30-minute campaign 15 minutes past its budget.
	named := map[string]bool{}
	prefix := `"` + reports.PairingsDir + "/"
	for rest := b.String(); ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			break
		}
		rest = rest[i+len(prefix):]
		end := strings.IndexAny(rest, `/"`)
		if end < 0 {
			break
		}
		named[rest[:end]] = true
	}
	removed := 0
	for _, e := range ents {
		if !e.IsDir() || named[e.Name()] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(reportDir, reports.PairingsDir, e.Name())); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
