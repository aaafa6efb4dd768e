package reports

import (
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/results"
)

// ownBug is one finding a release shows with itself (results.Finding.Own): the reference
// pairing that shows it, and the skew pairings that show it too. It is reported apart
// from the skew findings, and still fails the run.
type ownBug struct {
	Build     string
	Finding   results.Finding
	Reference string   // the reference pairing's label: the build with itself
	Also      []string // the skew pairings that show it too
}

// ownBugs lists the run's own bugs, one per build and finding, in the order the pairings
// show them first.
func ownBugs(run *results.Run) []ownBug {
	var out []ownBug
	at := map[string]int{}
	for _, p := range run.Pairings {
		for _, f := range p.Findings {
			if f.Own == "" {
				continue
			}
			key := strings.Join([]string{f.Own, p.ClientKind, p.Journey, string(f.Kind), f.Step, f.Direction}, "\x00")
			i, ok := at[key]
			if !ok {
				i = len(out)
				at[key] = i
				out = append(out, ownBug{Build: f.Own, Finding: f, Reference: results.PairingLabel(f.Own, p.ClientKind, f.Own, p.Journey)})
			}
			if p.Host != p.Client {
				out[i].Also = append(out[i].Also, p.Label())
			} else {
				out[i].Finding = f // the reference's own words
			}
		}
	}
	return out
}

// ownLine is an own bug in one line, for the text and Markdown reports.
func ownLine(o ownBug) string {
	line := fmt.Sprintf("%s: %s; its reference shows it (%s)", o.Build, FindingLine(o.Finding), o.Reference)
	if len(o.Also) > 0 {
		line += "; also in " + strings.Join(o.Also, ", ")
	}
	return line
}

// ownHeading introduces the own bugs in every report.
const ownHeading = "findings a release shows with itself: its own bugs, not skew between builds (they still fail the run)"
