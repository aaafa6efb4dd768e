package example

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/results"
)

// KnownBug is a release-skew bug a subject's history ships on purpose (history.yaml's
// knownBugs): one pairing of its builds that skewtest must find red, with at least the
// finding kinds listed. The subject declares them, so skewtest's core names no product's
// bug; `skewtest demo` runs them and a bug not found is a regression of skewtest's checks.
type KnownBug struct {
	// Host and Client are refs of the written repository (a tag, or "worktree").
	Host   string `yaml:"host"`
	Client string `yaml:"client"`
	// Kind is the client kind, Journey the journey's name in the subject's skewtest.yaml.
	Kind    string `yaml:"kind"`
	Journey string `yaml:"journey"`
	// Finds are the kinds of finding that must be among the pairing's findings: those
	// found every time (a pairing may find more).
	Finds []results.Kind `yaml:"finds"`
	// Why is the bug in one line.
	Why string `yaml:"why"`
}

// Label is the bug's pairing as every report names it.
func (b KnownBug) Label() string {
	return results.PairingLabel(b.Host, b.Kind, b.Client, b.Journey)
}

// Sighting is what one run shows of a known bug.
type Sighting struct {
	Bug KnownBug
	// Pairing is the bug's pairing in the run; nil when the run has none.
	Pairing *results.Pairing
	// Missing says how the run differs from what the bug documents; "" when the bug was
	// found as documented.
	Missing string
}

// Found reports whether the run found the bug as documented.
func (s Sighting) Found() bool { return s.Missing == "" }

// Check looks for the bug in run: found as documented when its pairing failed with every
// kind of Finds among its findings.
func (b KnownBug) Check(run *results.Run) Sighting {
	s := Sighting{Bug: b}
	for _, p := range run.Pairings {
		if p.Host == b.Host && p.Client == b.Client && p.ClientKind == b.Kind && p.Journey == b.Journey && !p.Future {
			s.Pairing = p
			break
		}
	}
	p := s.Pairing
	if p == nil {
		s.Missing = "the run has no such pairing"
		return s
	}
	var have, missing []string
	for _, f := range p.Findings {
		if !slices.Contains(have, string(f.Kind)) {
			have = append(have, string(f.Kind))
		}
	}
	for _, k := range b.Finds {
		if !slices.Contains(have, string(k)) {
			missing = append(missing, string(k))
		}
	}
	switch {
	case p.Status == results.StatusError:
		s.Missing = "the pairing could not be tested: " + p.Error
	case p.Status != results.StatusFail:
		s.Missing = fmt.Sprintf("the pairing's verdict is %s, not fail", p.Status)
		if len(have) > 0 {
			s.Missing += " (findings: " + strings.Join(have, ", ") + ")"
		}
	case len(missing) > 0:
		s.Missing = fmt.Sprintf("no %s finding (it found %s)", strings.Join(missing, ", "), orNothing(have))
	}
	return s
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// checkKnownBugs checks history.yaml's knownBugs: every field given, the builds among refs,
// every kind of finding one skewtest reports, no pairing listed twice.
func checkKnownBugs(bugs []KnownBug, refs []string) error {
	seen := map[string]bool{}
	for i, b := range bugs {
		at := fmt.Sprintf("knownBugs[%d]", i)
		switch {
		case b.Host == "" || b.Client == "" || b.Kind == "" || b.Journey == "":
			return fmt.Errorf("%s: a known bug needs host, client, kind and journey", at)
		case !slices.Contains(refs, b.Host):
			return fmt.Errorf("%s: host %s is no tag of the history (refs: %s)", at, b.Host, strings.Join(refs, ", "))
		case !slices.Contains(refs, b.Client):
			return fmt.Errorf("%s: client %s is no tag of the history (refs: %s)", at, b.Client, strings.Join(refs, ", "))
		case len(b.Finds) == 0:
			return fmt.Errorf("%s (%s): finds: list the kinds of finding the pairing must report", at, b.Label())
		case strings.TrimSpace(b.Why) == "":
			return fmt.Errorf("%s (%s): why: say what the bug is in one line", at, b.Label())
		case seen[b.Label()]:
			return fmt.Errorf("%s: %s is listed twice", at, b.Label())
		}
		seen[b.Label()] = true
		for _, k := range b.Finds {
			if !slices.Contains(results.Kinds, k) {
				var kinds []string
				for _, k := range results.Kinds {
					kinds = append(kinds, string(k))
				}
				return fmt.Errorf("%s (%s): finds: %q is no kind of finding (kinds: %s)", at, b.Label(), k, strings.Join(kinds, ", "))
			}
		}
	}
	return nil
}
