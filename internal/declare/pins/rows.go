package pins

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"
)

// ParseRange compiles a semver range over tag names, pre-releases inside it included: the
// versions table's ranges ("<v1.4.150", ">=v1.4.120 <v1.4.150", "~1.4").
func ParseRange(s string) (*semver.Constraints, error) {
	c, err := semver.NewConstraint(s)
	if err != nil {
		return nil, err
	}
	c.IncludePrerelease = true
	return c, nil
}

// TagVersion is the semantic version a label names (v1.4.173, v1.4.191-rc.1); false for the
// working tree, a branch or a commit.
func TagVersion(label string) (*semver.Version, bool) {
	if label == WorktreeLabel {
		return nil, false
	}
	v, err := semver.StrictNewVersion(strings.TrimPrefix(label, "v"))
	return v, err == nil
}

// contractRow is a row of the working tree's versions table, as far as contracts go: the
// first row whose range covers a tag applies to it, and gives its contract when it names one.
type contractRow struct {
	Range    string `yaml:"range"`
	Contract string `yaml:"contract"`
	line     int
	cons     *semver.Constraints
}

func (r *contractRow) UnmarshalYAML(n *yaml.Node) error {
	type plain contractRow
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	r.line = n.Line
	return nil
}

// contractRows reads the versions table of the working tree's skewtest.yaml (data). Rows
// whose range does not parse are left out: loading the configuration refuses them.
func contractRows(data []byte) []contractRow {
	var doc struct {
		Versions []contractRow `yaml:"versions"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []contractRow
	for _, r := range doc.Versions {
		if cons, err := ParseRange(r.Range); err == nil {
			r.cons = cons
			out = append(out, r)
		}
	}
	return out
}

// fromRow reads the contract the working tree's versions table gives the tag label: the
// first row that covers it, when that row names a contract (a working-tree path, or
// REF:PATH). ok is false when no row gives one.
func (c *Contracts) fromRow(label string) (cf ContractFile, ok bool, err error) {
	v, isTag := TagVersion(label)
	if !isTag {
		return ContractFile{}, false, nil
	}
	for _, r := range c.rows {
		if !r.cons.Check(v) {
			continue
		}
		if r.Contract == "" {
			return ContractFile{}, false, nil
		}
		from := fmt.Sprintf("%s:%d (versions row %q)", configFile, r.line, r.Range)
		if ref, p, isRef := strings.Cut(r.Contract, ":"); isRef {
			cf, err = c.AtPath(ref, p)
		} else {
			name := filepath.Join(c.root, filepath.FromSlash(path.Clean(r.Contract)))
			var data []byte
			if data, err = os.ReadFile(name); err == nil {
				cf = ContractFile{Name: name, Data: data, Files: os.DirFS(filepath.Dir(name))}
			} else {
				err = fmt.Errorf("%w: %s names %s for %s: %w", ErrNoContract, from, r.Contract, label, err)
			}
		}
		if err != nil {
			return ContractFile{}, true, err
		}
		cf.From = from + ": " + r.Contract
		return cf, true, nil
	}
	return ContractFile{}, false, nil
}
