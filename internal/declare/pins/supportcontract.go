package pins

import (
	"github.com/Masterminds/semver/v3"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// ContractAllowed is what the support policy allows the static tier (contract.Diff) to
// find between the contract of release older and a newer build's, given every stable tag:
//
//   - protocol-cut, when a declared cut (of either role) covers older: the cut is
//     deliberate and its reason is written down;
//   - command-version-dropped, when the policy requires older in neither role (or a
//     declared cut releases it): nothing the working tree must serve calls those versions.
//
// An empty policy allows nothing: every cut and every dropped command version is reported,
// for the policy to declare it.
func (s *Support) ContractAllowed(older string, stable []string) func(contract.Violation) bool {
	if s.Empty() {
		return func(contract.Violation) bool { return false }
	}
	cut, required := false, false
	for _, role := range []string{"client", "host"} {
		req, _, _ := s.Requirement(role, older, stable)
		required = required || req
		cut = cut || s.cuts(role, older)
	}
	return func(v contract.Violation) bool {
		switch v.Rule {
		case contract.RuleProtocolCut:
			return cut
		case contract.RuleCommandVersionDropped:
			return !required
		}
		return false
	}
}

// cuts reports whether a declared cut of role covers release label.
func (s *Support) cuts(role, label string) bool {
	v, err := ParseVersion(label)
	if err != nil {
		return false
	}
	for _, c := range s.Cuts {
		if c.Role != role {
			continue
		}
		if cons, err := semver.NewConstraint(c.Range); err == nil && cons.Check(v.v) {
			return true
		}
	}
	return false
}
