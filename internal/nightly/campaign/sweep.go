package campaign

import (
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
	b, err := json.Marshal(run)
	if err != nil {
		return 0, err
	}
	named := string(b)
	removed := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		rel := reports.PairingsDir + "/" + e.Name()
		if strings.Contains(named, `"`+rel+`/`) || strings.Contains(named, `"`+rel+`"`) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(reportDir, reports.PairingsDir, e.Name())); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
