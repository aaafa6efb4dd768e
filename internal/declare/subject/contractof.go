package subject

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

// ContractFile is a build's contract file, the one every command reads for src: run (which
// reads it before building, Describe, and hands it to the harness once built), its static
// tier, contract check, contract diff REF, bisect --contract, replay and the fixture tier
// (through run's builds). It reads files only, never builds: git objects for a commit, the
// disk for the working tree, decided as the build of src will be made (builds.Describe):
//
//   - the working tree: the contract its skewtest.yaml names, uncommitted changes included;
//   - a tag a versions row covers, when the row names a contract: that file (a path of the
//     working tree, or REF:PATH);
//   - a build whose versions row overlays its contract's path: the working tree's file at
//     that path, as the overlay lays it over the checkout;
//   - else the commit's own file, at the path its own skewtest.yaml names (the working
//     tree's, for a tag a versions row builds with the working tree's skewtest.yaml).
//
// A build no run can make (a tag with no skewtest.yaml that no versions row covers) or one
// with no contract at that path is an error that names the fix (a versions row); errors
// that mean "no contract" wrap pins.ErrNoContract. The contract a build's code speaks
// (contractCommand) is not read here: only contract verify asks for it, and it needs the
// build.
func (s *Subject) ContractFile(ctx context.Context, src builds.Source) (pins.ContractFile, error) {
	cs, err := s.Contracts()
	if err != nil {
		return pins.ContractFile{}, err
	}
	if src.IsWorktree() {
		return cs.Worktree()
	}
	d, err := builds.Describe(ctx, s.Dir, src)
	if err != nil {
		var ce *builds.ConfigError
		if errors.As(err, &ce) {
			// The checkout's own skewtest.yaml is missing (and no row builds it) or bad: no
			// run can build it, so it has no contract to read.
			return pins.ContractFile{}, fmt.Errorf("%w at %s: %w", pins.ErrNoContract, src.Label, err)
		}
		return pins.ContractFile{}, err
	}
	return contractFile(ctx, cs, src, d)
}

// contractFile is ContractFile for a pinned build that d describes. Whatever file the
// contract comes from, its .proto files are the build's own: the commit's tree with the
// versions row's overlays laid over it, as the build's checkout is.
func contractFile(ctx context.Context, cs *pins.Contracts, src builds.Source, d *builds.Description) (pins.ContractFile, error) {
	cf, err := contractText(ctx, cs, src, d)
	if err != nil {
		return cf, err
	}
	if cf.Sources, err = cs.CommitSources(src.Label, src.Commit); err != nil {
		return cf, err
	}
	if d.Version != nil && len(d.Version.Overlay) > 0 {
		cf.Sources.Tree = overlaid{tree: cf.Sources.Tree, worktree: cs.WorktreeSources().Tree, paths: d.Version.Overlay}
	}
	return cf, nil
}

// contractText finds the contract file of a pinned build that d describes.
func contractText(ctx context.Context, cs *pins.Contracts, src builds.Source, d *builds.Description) (pins.ContractFile, error) {
	switch {
	case d.Version != nil && d.Version.Contract != "":
		return cs.At(ctx, src.Label, src.Commit) // the row's contract
	case d.ContractInWorktree:
		cf, err := cs.WorktreeFile(d.Config.Contract)
		if err != nil {
			return cf, fmt.Errorf("%s: the versions row at %s:%d overlays %s: %w", src.Label, builds.ConfigFile, d.Version.Line, d.Config.Contract, err)
		}
		cf.From = fmt.Sprintf("the working tree's, laid over it (versions row at %s:%d)", builds.ConfigFile, d.Version.Line)
		return cf, nil
	}
	cf, err := cs.CommitFile(src.Label, src.Commit, d.Config.Contract)
	if errors.Is(err, pins.ErrNoContract) {
		err = fmt.Errorf("%w: %s", err, RowFix(src.Label))
	}
	return cf, err
}

// overlaid is a commit's tree with a versions row's overlay paths taken from the working
// tree, as builds lays them over the checkout.
type overlaid struct {
	tree, worktree fs.FS
	paths          []string
}

func (o overlaid) Open(name string) (fs.File, error) {
	for _, p := range o.paths {
		if p = path.Clean(p); name == p || strings.HasPrefix(name, p+"/") {
			return o.worktree.Open(name)
		}
	}
	return o.tree.Open(name)
}

// RowFix says how to give a build whose own contract cannot be read one: a versions row.
func RowFix(label string) string {
	if _, isTag := pins.TagVersion(label); !isTag {
		return fmt.Sprintf("%s is no release tag, and only a release tag's contract can come from a versions: row; give it a contract in its own checkout", label)
	}
	return fmt.Sprintf("add a versions: row to %s whose range covers %s and lays a contract over it (contract: a path of the working tree or REF:PATH, or an overlay holding the contract's path), see docs/subject.md",
		builds.ConfigFile, label)
}
