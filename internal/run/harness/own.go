package harness

import "github.com/skewtest/skewtest/results"

// markOwn labels the findings that are a release's own bugs: every finding of a reference
// pairing (a build with itself) is its build's, and a finding of a skew pairing that the
// same-build reference of either side also shows (same kind and journey) is that build's.
// refs are the plan's reference results, helper references (another shard's) included.
// A marked finding still fails its pairing: an own bug is reported apart from the skew
// findings, never hidden.
func markOwn(pairings, refs []*results.Pairing) {
	byKey := map[refKey]*results.Pairing{}
	for _, r := range refs {
		if r != nil && r.Host == r.Client && !r.Future {
			byKey[refKey{r.Host, r.ClientKind, r.Journey}] = r
		}
	}
	for _, p := range pairings {
		if p == nil || p.Future {
			continue
		}
		for i := range p.Findings {
			f := &p.Findings[i]
			if p.Host == p.Client {
				f.Own = p.Host
				continue
			}
			for _, label := range []string{p.Client, p.Host} {
				if r := byKey[refKey{label, p.ClientKind, p.Journey}]; r != nil && showsSame(r, *f) {
					f.Own = label
					break
				}
			}
		}
	}
}

// showsSame says whether pairing r has a finding that reports what f does: the same kind
// at the same step, in the same direction and of the same frame where both say.
func showsSame(r *results.Pairing, f results.Finding) bool {
	for _, g := range r.Findings {
		switch {
		case f.Kind != g.Kind || f.Step != g.Step:
		case f.Direction != "" && g.Direction != "" && f.Direction != g.Direction:
		case f.Frame != nil && g.Frame != nil && f.Frame.Name != g.Frame.Name:
		default:
			return true
		}
	}
	return false
}
