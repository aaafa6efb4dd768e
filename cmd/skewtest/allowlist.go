package main

import (
	"fmt"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/pins"
)

// allowList is the working tree's skewtest.yaml `allow:` list: static findings the team
// reviewed and accepts. A violation it allows is reported as allowed, with its reason, and
// fails nothing; used remembers which entries allowed something, for the stale ones' warning.
type allowList struct {
	entries []pins.Reviewed
	lines   []int
	used    []bool
	// covered remembers which entries selected a pair that was diffed at all: an entry whose
	// refs select none of a run's pairs is not judged by that run.
	covered []bool
}

// loadAllowList reads the working tree's allow list (none without a skewtest.yaml).
func loadAllowList(repo string) (*allowList, error) {
	cfg, err := builds.LoadWorktreeConfig(repo)
	if err != nil || cfg == nil {
		return &allowList{}, err
	}
	a := &allowList{entries: cfg.Allow, used: make([]bool, len(cfg.Allow)), covered: make([]bool, len(cfg.Allow))}
	for i := range cfg.Allow {
		a.lines = append(a.lines, cfg.AllowLine(i))
	}
	return a, nil
}

// split separates a pair's violations into those the list allows and the rest.
func (a *allowList) split(older, newer string, vs []contract.Violation, oc, nc *contract.Contract) (rest []contract.Violation, allowed []allowedViolation) {
	if a == nil {
		return vs, nil
	}
	for i := range a.entries {
		if a.entries[i].Covers(older, newer) {
			a.covered[i] = true
		}
	}
	for _, v := range vs {
		by := -1
		for i := range a.entries {
			if a.entries[i].Allows(older, newer, v, oc, nc) {
				by = i
				break
			}
		}
		if by < 0 {
			rest = append(rest, v)
			continue
		}
		a.used[by] = true
		allowed = append(allowed, allowedViolation{Violation: v, By: &a.entries[by], Line: a.lines[by]})
	}
	return rest, allowed
}

// stale lists the entries that selected a pair this command diffed and allowed nothing
// there, as warnings: a reviewed finding that no longer occurs is an entry to remove.
func (a *allowList) stale() []string {
	if a == nil {
		return nil
	}
	var out []string
	for i, e := range a.entries {
		if a.covered[i] && !a.used[i] {
			out = append(out, fmt.Sprintf("%s:%d: warning: allow entry %s matched no finding: remove it, or fix its rule, frame, pointer or refs",
				builds.ConfigFile, a.lines[i], e.String()))
		}
	}
	return out
}

// allowedViolation is a violation the allow list allows, with the entry that does.
type allowedViolation struct {
	contract.Violation
	By   *pins.Reviewed
	Line int // the entry's line in skewtest.yaml
}

func (v allowedViolation) String() string {
	return fmt.Sprintf("%s (allowed, %s:%d: %s)", v.Violation, builds.ConfigFile, v.Line, v.By.Reason)
}
