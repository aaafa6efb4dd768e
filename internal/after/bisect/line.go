package bisect

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/results"
)

// point is one build of the moving side on the line from good to bad: a commit (tagged or
// not), or the working tree at the line's end.
type point struct {
	ref    string // what the run names it by: the tag, a short hash, or worktree
	commit plumbing.Hash
	tag    string // the release tag on the commit, if any
	c      *object.Commit
}

// shortHash is how many hex digits name an untagged commit.
const shortHash = 12

// candidate is the point as results.json shows it, verdict still unset.
func (p point) candidate() results.Candidate {
	c := results.Candidate{Ref: p.ref, Tag: p.tag != "" && p.tag == p.ref}
	if !p.commit.IsZero() {
		c.Commit = p.commit.String()
	}
	if p.c != nil {
		c.Subject, _, _ = strings.Cut(strings.TrimSpace(p.c.Message), "\n")
		c.Author, c.Date = p.c.Author.Name, p.c.Author.When.UTC()
	}
	return c
}

// line lists the moving side's points from good to bad along bad's first parents, both
// ends included; bad may be the working tree (after HEAD). good must be on that path.
func line(ctx context.Context, repoDir, good, bad string) ([]point, error) {
	repo, err := pins.Open(repoDir)
	if err != nil {
		return nil, err
	}
	tags, _, err := pins.StableTags(ctx, repoDir)
	if err != nil {
		return nil, err
	}
	tagOf := map[plumbing.Hash]string{}
	for _, t := range tags {
		if _, ok := tagOf[t.Commit]; !ok {
			tagOf[t.Commit] = t.Name
		}
	}
	resolve := func(ref string) (plumbing.Hash, error) {
		if ref == results.WorktreeLabel {
			head, err := repo.Head()
			if err != nil {
				return plumbing.ZeroHash, usage.Errorf("the working tree has no commit: %w", err)
			}
			return head.Hash(), nil
		}
		h, err := pins.ResolveCommit(repo, repoDir, ref)
		if err != nil {
			return plumbing.ZeroHash, usage.Errorf("%w", err)
		}
		return h, nil
	}
	from, err := resolve(good)
	if err != nil {
		return nil, err
	}
	to, err := resolve(bad)
	if err != nil {
		return nil, err
	}
	var back []point // from bad towards good
	if bad == results.WorktreeLabel {
		back = append(back, point{ref: results.WorktreeLabel})
	}
	h := to
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		back = append(back, pointAt(c, tagOf))
		if h == from {
			break
		}
		if len(c.ParentHashes) == 0 {
			return nil, usage.Errorf("good %s (%.12s) is not an ancestor of bad %s along its first parents: nothing to walk from one to the other", good, from, bad)
		}
		h = c.ParentHashes[0]
	}
	pts := make([]point, 0, len(back))
	for i := len(back) - 1; i >= 0; i-- {
		pts = append(pts, back[i])
	}
	// The ends keep the names they were given (a tag given as a commit stays a tag).
	pts[0].ref = good
	if bad != results.WorktreeLabel {
		pts[len(pts)-1].ref = bad
	}
	return pts, nil
}

// pointAt is commit c as a point: named by its release tag, else by its short hash.
func pointAt(c *object.Commit, tagOf map[plumbing.Hash]string) point {
	p := point{commit: c.Hash, tag: tagOf[c.Hash], c: c}
	p.ref = p.tag
	if p.ref == "" {
		p.ref = c.Hash.String()[:shortHash]
	}
	return p
}

// tagged lists the positions of pts that carry a release tag, strictly inside the line,
// with both ends: the points the first walk goes over.
func tagged(pts []point) []int {
	out := []int{0}
	for i := 1; i < len(pts)-1; i++ {
		if pts[i].tag != "" {
			out = append(out, i)
		}
	}
	return append(out, len(pts)-1)
}
