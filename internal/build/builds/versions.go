package builds

import (
	"github.com/Masterminds/semver/v3"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

// VersionRule is one row of the versions table of the working tree's skewtest.yaml: how
// to build the pins whose tag falls in Range. It is the one place where version-specific
// build differences live.
type VersionRule struct {
	// Range is a semver range over a pin's tag name ("<v1.4.150", ">=v1.4.120 <v1.4.150",
	// "~1.4", "v1.4.173 || v1.4.180"). Pre-releases inside the range match. The working
	// tree never matches; a pin named by a branch or commit matches through the nearest
	// stable tag below it (pins.RowLabel).
	Range string `yaml:"range"`
	// Overlay are paths of the working tree laid over the older checkout, each replacing
	// that path whole (drivers added after a tag was cut). Their content is part of the
	// cache key.
	Overlay []string `yaml:"overlay"`
	// Recipe, when set, replaces the build.steps of the checkout's own skewtest.yaml.
	Recipe []string `yaml:"recipe"`
	// Toolchain names the toolchain the container runner builds with (image
	// skewtest/toolchain:<name>). The local runner builds with the host's tools.
	Toolchain string `yaml:"toolchain"`
	// Contract, when set, is the wire contract of the pins the row covers, in place of the
	// one their checkout names (or lacks): a path of the working tree, or REF:PATH, a file of
	// a ref. A protobuf descriptorSet it refers to is read beside it, from the same place;
	// protobuf .proto files are compiled from the pin's own tree (subject.ContractFile).
	// See pins.Contracts.
	Contract string `yaml:"contract"`

	// Line is the row's line in skewtest.yaml, for errors.
	Line int `yaml:"-"`

	constraint *semver.Constraints
}

// Versions is the versions table, in file order. The first row whose range matches a pin
// applies; later rows are not consulted.
type Versions []VersionRule

// Match returns the row that applies to the build labelled label, or nil. Only a label
// that is a semantic version (a tag like v1.4.173 or v1.4.191-rc.1) can match.
func (vs Versions) Match(label string) *VersionRule {
	v, ok := pins.TagVersion(label)
	if !ok {
		return nil
	}
	for i := range vs {
		r := &vs[i]
		c := r.constraint // set by ParseConfig
		if c == nil {
			var err error
			if c, err = parseRange(r.Range); err != nil {
				continue // ParseConfig refuses such a row
			}
		}
		if c.Check(v) {
			return r
		}
	}
	return nil
}

func parseRange(s string) (*semver.Constraints, error) { return pins.ParseRange(s) }
