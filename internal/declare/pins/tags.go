package pins

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tag is a stable release tag resolved to its commit.
type Tag struct {
	Name    string
	Version Version
	Commit  plumbing.Hash
}

// Skipped is a tag the stable rule passed over, and why.
type Skipped struct {
	Ref string
	Why string
}

// StableTags lists the stable tags (vX.Y.Z) of the repository containing repoDir, oldest
// first, and the other tags with the reason each one is not stable (sorted by name).
// Lightweight and annotated tags both count; a tag that does not point at a commit is
// skipped. Two stable tags with equal versions (v1.4.0, v1.04.0) sort by name.
func StableTags(ctx context.Context, repoDir string) ([]Tag, []Skipped, error) {
	repo, err := Open(repoDir)
	if err != nil {
		return nil, nil, err
	}
	return stableTags(ctx, repo)
}

func stableTags(ctx context.Context, repo *git.Repository) ([]Tag, []Skipped, error) {
	iter, err := repo.Tags()
	if err != nil {
		return nil, nil, fmt.Errorf("list tags: %w", err)
	}
	var (
		tags    []Tag
		skipped []Skipped
	)
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := ref.Name().Short()
		v, err := ParseVersion(name)
		if err != nil {
			skipped = append(skipped, Skipped{Ref: name, Why: err.Error()})
			return nil
		}
		commit, err := peel(repo, ref.Hash())
		if err != nil {
			skipped = append(skipped, Skipped{Ref: name, Why: err.Error()})
			return nil
		}
		tags = append(tags, Tag{Name: name, Version: v, Commit: commit})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list tags: %w", err)
	}
	slices.SortFunc(tags, func(a, b Tag) int {
		if c := a.Version.Compare(b.Version); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	slices.SortFunc(skipped, func(a, b Skipped) int { return cmp.Compare(a.Ref, b.Ref) })
	return tags, skipped, nil
}

// peel follows annotated tags (possibly nested) to the commit they name.
func peel(repo *git.Repository, h plumbing.Hash) (plumbing.Hash, error) {
	for range 10 {
		obj, err := repo.Object(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read object %s: %w", h, err)
		}
		switch o := obj.(type) {
		case *object.Commit:
			return o.Hash, nil
		case *object.Tag:
			h = o.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("points at a %s, not a commit", obj.Type())
		}
	}
	return plumbing.ZeroHash, errors.New("annotated tags nested too deep")
}

// RowLabel is the label the working tree's versions rows are matched against for the build
// of commit, labelled label: the label itself when it is a release tag; for a commit that
// is not one (a bisect candidate, a branch), the nearest stable tag below it by ancestry,
// the newest stable tag whose commit is commit or one of its ancestors, so a commit
// between two old tags builds as the older tag does. "" when no stable tag is below it, and
// for the working tree.
func RowLabel(ctx context.Context, repo *git.Repository, label string, commit plumbing.Hash) (string, error) {
	if _, ok := TagVersion(label); ok {
		return label, nil
	}
	if commit.IsZero() {
		return "", nil
	}
	tags, _, err := stableTags(ctx, repo)
	if err != nil || len(tags) == 0 {
		return "", err
	}
	below := map[plumbing.Hash]bool{}
	iter, err := repo.Log(&git.LogOptions{From: commit})
	if err != nil {
		return "", fmt.Errorf("history of %s: %w", label, err)
	}
	err = iter.ForEach(func(c *object.Commit) error {
		below[c.Hash] = true
		return ctx.Err()
	})
	if err != nil {
		return "", fmt.Errorf("history of %s: %w", label, err)
	}
	for _, t := range slices.Backward(tags) { // newest first
		if below[t.Commit] {
			return t.Name, nil
		}
	}
	return "", nil
}
