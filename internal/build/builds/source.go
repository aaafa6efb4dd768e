package builds

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

// WorktreeLabel is the label of the working-tree build (defined once, in pins, which orders
// builds).
const WorktreeLabel = pins.WorktreeLabel

// Source says which version of the subject to build: the working tree, or a commit with
// the label it is known by (usually a pin's ref).
type Source struct {
	Label  string
	Commit plumbing.Hash // zero for the working tree
}

// Worktree is the working tree with its uncommitted, non-ignored files.
func Worktree() Source { return Source{Label: WorktreeLabel} }

// AtCommit is a commit's tree, labelled (for example a pin: AtCommit(p.Ref, p.Commit)).
func AtCommit(label string, commit plumbing.Hash) Source {
	return Source{Label: label, Commit: commit}
}

// IsWorktree reports whether s is the working tree.
func (s Source) IsWorktree() bool { return s.Commit.IsZero() }

// String returns the label, with the short commit for a commit source.
func (s Source) String() string {
	if s.IsWorktree() {
		return s.Label
	}
	return s.Label + " (" + s.Commit.String()[:12] + ")"
}
