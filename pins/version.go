package pins

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
)

// Version is the number of a stable release tag, vMAJOR.MINOR.PATCH.
type Version struct {
	Major, Minor, Patch int
}

var (
	stableTag   = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)
	preRelease  = regexp.MustCompile(`^v\d+\.\d+\.\d+[-+]`)
	foreignName = regexp.MustCompile(`^(.+?)v\d+(\.\d+)*([-+].*)?$`)
)

// ParseVersion parses a stable tag name. A tag that is not stable gives an error whose
// message is the reason, suitable for Skipped.Why.
func ParseVersion(tag string) (Version, error) {
	m := stableTag.FindStringSubmatch(tag)
	if m == nil {
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
	var parts [3]int
	for i := range parts {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return Version{}, fmt.Errorf("version number %s out of range", m[i+1])
		}
		parts[i] = n
	}
	return Version{Major: parts[0], Minor: parts[1], Patch: parts[2]}, nil
}

// Compare returns -1, 0 or +1 as v is older than, equal to or newer than w. Parts compare
// as numbers: v1.4.9 is older than v1.4.10.
func (v Version) Compare(w Version) int {
	if c := cmp.Compare(v.Major, w.Major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Minor, w.Minor); c != 0 {
		return c
	}
	return cmp.Compare(v.Patch, w.Patch)
}

// String returns the canonical tag name, "v1.4.176".
func (v Version) String() string {
	return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch)
}
