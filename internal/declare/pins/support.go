package pins

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Support is the working tree's support policy (the `support:` section of skewtest.yaml):
// which released versions, per role, it must still work with. A pairing of the working tree
// with such a release must not end in a refusal; a deliberate cut is declared, with its
// reason, and then the refusal is expected.
type Support struct {
	// Clients says which released clients a working-tree host must serve; Hosts which
	// released hosts a working-tree client must work with.
	Clients SupportRule `yaml:"clients"`
	Hosts   SupportRule `yaml:"hosts"`
	// Cuts are releases the working tree stops serving on purpose.
	Cuts []Cut `yaml:"cuts"`
}

// SupportRule picks releases: the newest Last stable tags, and every stable tag from Since
// on. The zero rule picks none.
type SupportRule struct {
	Last  int    `yaml:"last"`
	Since string `yaml:"since"`
}

// Cut is a deliberate end of support: releases of Role (client or host) inside Range (a
// semver range over tags) are no longer served, for Reason.
type Cut struct {
	Role   string `yaml:"role"`
	Range  string `yaml:"range"`
	Reason string `yaml:"reason"`
}

// Validate checks the policy; the messages say what is wrong (callers add file:line).
func (s *Support) Validate() []string {
	var bad []string
	for _, r := range []struct {
		name string
		rule SupportRule
	}{{"clients", s.Clients}, {"hosts", s.Hosts}} {
		if r.rule.Last < 0 {
			bad = append(bad, fmt.Sprintf("support.%s.last is %d: give how many of the newest stable releases must be served", r.name, r.rule.Last))
		}
		if r.rule.Since != "" {
			if _, err := ParseVersion(r.rule.Since); err != nil {
				bad = append(bad, fmt.Sprintf("support.%s.since %q is not a stable tag vX.Y.Z", r.name, r.rule.Since))
			}
		}
	}
	for i, c := range s.Cuts {
		if c.Role != "client" && c.Role != "host" {
			bad = append(bad, fmt.Sprintf("support.cuts[%d].role %q: want client or host", i, c.Role))
		}
		if _, err := semver.NewConstraint(c.Range); err != nil || strings.TrimSpace(c.Range) == "" {
			bad = append(bad, fmt.Sprintf("support.cuts[%d].range %q is not a semver range of tags such as \"<v1.4.185\"", i, c.Range))
		}
		if strings.TrimSpace(c.Reason) == "" {
			bad = append(bad, fmt.Sprintf("support.cuts[%d] has no reason: say why the working tree stops serving those releases", i))
		}
	}
	return bad
}

// Empty reports whether the policy requires nothing.
func (s *Support) Empty() bool {
	return s == nil || (s.Clients == (SupportRule{}) && s.Hosts == (SupportRule{}) && len(s.Cuts) == 0)
}

// Requirement says whether the working tree must work with release label in role (the
// release's role: "client" for a released client of a working-tree host), given every stable
// tag of the repository. why says which rule requires it; cut, when set, is the reason of a
// declared cut that releases it (then it is not required).
func (s *Support) Requirement(role, label string, stable []string) (required bool, why, cut string) {
	if s == nil {
		return false, "", ""
	}
	v, err := ParseVersion(label)
	if err != nil {
		return false, "", ""
	}
	rule, name := s.Clients, "clients"
	if role == "host" {
		rule, name = s.Hosts, "hosts"
	}
	switch {
	case rule.Last > 0 && newest(stable, rule.Last, v):
		why = fmt.Sprintf("support.%s.last: %d (one of the newest %d stable releases)", name, rule.Last, rule.Last)
	case rule.Since != "":
		if since, err := ParseVersion(rule.Since); err == nil && v.Compare(since) >= 0 {
			why = fmt.Sprintf("support.%s.since: %s", name, rule.Since)
		}
	}
	if why == "" {
		return false, "", ""
	}
	for _, c := range s.Cuts {
		if c.Role != role {
			continue
		}
		if cons, err := semver.NewConstraint(c.Range); err == nil && cons.Check(v.v) {
			return false, why, c.Reason
		}
	}
	return true, why, ""
}

// newest reports whether v is among the newest n of the stable tags.
func newest(stable []string, n int, v Version) bool {
	newer := 0
	for _, t := range stable {
		if w, err := ParseVersion(t); err == nil && w.Compare(v) > 0 {
			newer++
		}
	}
	return newer < n
}
