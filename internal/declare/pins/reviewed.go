package pins

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Reviewed is a static finding someone reviewed and allowed (an entry of skewtest.yaml's
// `allow:` list): the violations of Rule, about Frame (by name), on Path (a gate's) and at or
// below Pointer, where given, between the pairs of builds Refs selects, with the Reason they
// are acceptable. An allowed violation is still reported, as allowed, and fails nothing.
type Reviewed struct {
	Rule  string `yaml:"rule"`
	Frame string `yaml:"frame"`
	// Path is the WebSocket path of a gate rule's violation (gate-added, gate-removed,
	// gate-changed: the gate on that path).
	Path    string `yaml:"path"`
	Pointer string `yaml:"pointer"`
	// Refs selects the pairs: a semver range over tags that the pair's older build must be
	// in ("<v1.4.173": every pair across the release that made the change), or OLD..NEW for
	// one pair; empty: every pair.
	Refs   string `yaml:"refs"`
	Reason string `yaml:"reason"`
}

// Validate says what is wrong with the entry (callers add file:line); at names it
// ("allow[2]").
func (r *Reviewed) Validate(at string) []string {
	var bad []string
	if _, err := contract.ParseAllowance(r.Rule); err != nil || strings.Contains(r.Rule, "@") {
		bad = append(bad, fmt.Sprintf("%s.rule %q is not a rule of the static tier (contract check lists them in docs/contract.md; e.g. gate-added)", at, r.Rule))
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		bad = append(bad, fmt.Sprintf("%s.path %q is not a WebSocket path such as /ws", at, r.Path))
	}
	if r.Pointer != "" {
		if err := contract.CheckPointer(r.Pointer); err != nil {
			bad = append(bad, fmt.Sprintf("%s.pointer %q is not a JSON pointer into a contract: %v", at, r.Pointer, err))
		}
	}
	if r.Refs != "" {
		if old, newer, ok := strings.Cut(r.Refs, ".."); ok {
			if old == "" || newer == "" {
				bad = append(bad, fmt.Sprintf("%s.refs %q: OLD..NEW needs both refs, e.g. v1.4.172..v1.4.173", at, r.Refs))
			}
		} else if _, err := semver.NewConstraint(r.Refs); err != nil {
			bad = append(bad, fmt.Sprintf("%s.refs %q is neither a semver range of tags such as \"<v1.4.173\" (the pairs whose older build is in it) nor OLD..NEW", at, r.Refs))
		}
	}
	if strings.TrimSpace(r.Reason) == "" {
		bad = append(bad, fmt.Sprintf("%s has no reason: say why the finding is acceptable (a reviewed finding is shown with it)", at))
	}
	return bad
}

// Covers reports whether the entry's refs select the pair older → newer.
func (r *Reviewed) Covers(older, newer string) bool {
	if r.Refs == "" {
		return true
	}
	if o, n, ok := strings.Cut(r.Refs, ".."); ok {
		return o == older && n == newer
	}
	cons, err := semver.NewConstraint(r.Refs)
	if err != nil {
		return false
	}
	v, err := ParseVersion(older)
	return err == nil && cons.Check(v.v)
}

// Allows reports whether the entry allows violation v of the pair older → newer. old and
// newc are the pair's contracts (the one v points into names the frame at its pointer).
func (r *Reviewed) Allows(older, newer string, v contract.Violation, old, newc *contract.Contract) bool {
	if v.Rule != r.Rule || !r.Covers(older, newer) {
		return false
	}
	if r.Pointer != "" && !(contract.Allowance{Rule: r.Rule, Pointer: r.Pointer}).Allows(v) {
		return false
	}
	if r.Path != "" && !strings.HasSuffix(v.Pointer, "/gates/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(r.Path)) {
		return false
	}
	if r.Frame != "" {
		c := newc
		if v.In == contract.SideOld {
			c = old
		}
		if f := c.FrameAt(v.Pointer); f == nil || f.Name != r.Frame {
			return false
		}
	}
	return true
}

// String is the entry as messages name it: "gate-added of OutputSpan for <v1.4.173".
func (r *Reviewed) String() string {
	s := r.Rule
	if r.Frame != "" {
		s += " of " + r.Frame
	}
	if r.Path != "" {
		s += " on " + r.Path
	}
	if r.Pointer != "" {
		s += " at " + r.Pointer
	}
	if r.Refs != "" {
		s += " for " + r.Refs
	}
	return s
}
