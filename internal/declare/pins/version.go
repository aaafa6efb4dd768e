package pins

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/skewtest/skewtest/results"
)

// Version is the number of a stable release tag, vMAJOR.MINOR.PATCH. Versions are parsed
// and ordered by the one semver library skewtest uses (Masterminds semver, as the versions
// table's ranges are); this file only decides which tag names count as stable, and why not.
type Version struct {
	v *semver.Version
}

var (
	stableTag   = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
	preRelease  = regexp.MustCompile(`^v\d+\.\d+\.\d+[-+]`)
	foreignName = regexp.MustCompile(`^(.+?)v\d+(\.\d+)*([-+].*)?$`)
)

// ParseVersion parses a stable tag name. A tag that is not stable gives an error whose
// message is the reason, suitable for Skipped.Why.
func ParseVersion(tag string) (Version, error) {
	if !stableTag.MatchString(tag) {
		switch {
		case preRelease.MatchString(tag):
			return Version{}, fmt.Errorf("pre-release or build metadata: only vX.Y.Z is stable")
		case foreignName.MatchString(tag):
			p := foreignName.FindStringSubmatch(tag)[1]
			return Version{}, fmt.Errorf("foreign prefix %q: only vX.Y.Z is stable", p)
		default:
			return Version{}, fmt.Errorf("not vX.Y.Z")
		}
	}
	v, err := semver.StrictNewVersion(strings.TrimPrefix(tag, "v"))
	if err != nil {
		return Version{}, fmt.Errorf("not vX.Y.Z: %v", err)
	}
	return Version{v}, nil
}

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w. Parts compare
// as numbers: v1.4.9 is older than v1.4.10.
func (v Version) Compare(w Version) int { return v.v.Compare(w.v) }

// String returns the canonical tag name, "v1.4.176".
func (v Version) String() string { return "v" + v.v.String() }

// WorktreeLabel is the label of the working-tree build: newer than every release.
const WorktreeLabel = results.WorktreeLabel

// Older reports whether build label a is an older release than b: stable release tags
// compare as versions, and the working tree is newer than every tag. Labels that are
// neither (branches, commits, pre-releases) compare as not older, so a check that needs
// the order runs only where it is known.
func Older(a, b string) bool {
	switch {
	case a == b || a == WorktreeLabel:
		return false
	case b == WorktreeLabel:
		_, err := ParseVersion(a)
		return err == nil
	}
	va, err1 := ParseVersion(a)
	vb, err2 := ParseVersion(b)
	return err1 == nil && err2 == nil && va.Compare(vb) < 0
}
