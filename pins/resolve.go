package pins

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Pin is a release ref chosen to pair against, the commit it resolves to, and why it was
// chosen.
type Pin struct {
	Ref    string        // as the user or the rule named it: "v1.4.176", "main", "3f2c9a1"
	Commit plumbing.Hash // the commit the ref resolves to (annotated tags are peeled)
	Reason string        // "newest stable tag", "explicit", "one of the last 3 stable tags"
}

// String returns "v1.4.176 (3f2c9a1d0b7e)".
func (p Pin) String() string {
	return fmt.Sprintf("%s (%s)", p.Ref, p.Commit.String()[:12])
}

// Selection is the outcome of Resolve: the pins, in order, and the tags the stable rule
// passed over. Skipped is filled whenever the stable rule ran (LastN > 0).
type Selection struct {
	Pins    []Pin
	Skipped []Skipped
}

// Options says which refs to pin. The zero value pins the newest stable tag.
type Options struct {
	// Refs are explicit refs (tags, branches or hex commit prefixes), as given with
	// --pins a,b. Each resolves to a commit or Resolve fails with ErrUnknownRef.
	Refs []string
	// LastN pins the newest N stable tags as well. Validate sets it to 1 when Refs is
	// empty, which is the default rule.
	LastN int
}

// Validate checks the options and fills the defaults.
func (o *Options) Validate() error {
	if o.LastN < 0 {
		return fmt.Errorf("last %d stable tags: N must not be negative", o.LastN)
	}
	refs := o.Refs[:0:0]
	for _, r := range o.Refs {
		r = strings.TrimSpace(r)
		if r == "" {
			return errors.New("empty ref in the pin list")
		}
		refs = append(refs, r)
	}
	o.Refs = refs
	if len(o.Refs) == 0 && o.LastN == 0 {
		o.LastN = 1
	}
	return nil
}

// Resolve selects the pins of the repository containing repoDir. Explicit refs come first,
// in the order given, with reason "explicit"; then the newest LastN stable tags, oldest
// first, leaving out a tag already named explicitly. A ref named twice is pinned once.
func Resolve(ctx context.Context, repoDir string, opts Options) (Selection, error) {
	if err := opts.Validate(); err != nil {
		return Selection{}, err
	}
	repo, err := Open(repoDir)
	if err != nil {
		return Selection{}, err
	}
	var sel Selection
	seen := map[string]bool{}
	for _, ref := range opts.Refs {
		if err := ctx.Err(); err != nil {
			return Selection{}, err
		}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		h, err := resolveRef(repo, repoDir, ref)
		if err != nil {
			return Selection{}, err
		}
		sel.Pins = append(sel.Pins, Pin{Ref: ref, Commit: h, Reason: "explicit"})
	}
	if opts.LastN == 0 {
		return sel, nil
	}

	tags, skipped, err := stableTags(ctx, repo)
	if err != nil {
		return Selection{}, fmt.Errorf("%s: %w", repoDir, err)
	}
	sel.Skipped = skipped
	if len(tags) == 0 {
		shallow := ""
		if hs, err := repo.Storer.Shallow(); err == nil && len(hs) > 0 {
			shallow = " (this checkout is a shallow clone)"
		}
		return Selection{}, fmt.Errorf("%w in %s%s%s; %s",
			ErrNoStableTag, repoDir, shallow, describeSkipped(skipped), fetchTagsHint)
	}
	reason := "newest stable tag"
	if opts.LastN > 1 {
		reason = fmt.Sprintf("one of the last %d stable tags", opts.LastN)
	}
	for _, t := range tags[max(0, len(tags)-opts.LastN):] {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		sel.Pins = append(sel.Pins, Pin{Ref: t.Name, Commit: t.Commit, Reason: reason})
	}
	return sel, nil
}

// resolveRef resolves a tag, branch, other ref or hex commit prefix to a commit, peeling
// annotated tags. Any failure wraps ErrUnknownRef.
func resolveRef(repo *git.Repository, repoDir, ref string) (plumbing.Hash, error) {
	h, err := repo.ResolveRevision(plumbing.Revision(ref))
	switch {
	case err == nil:
		return *h, nil
	case errors.Is(err, plumbing.ErrReferenceNotFound), errors.Is(err, plumbing.ErrObjectNotFound):
		return plumbing.ZeroHash, fmt.Errorf("%w %q in %s: not a tag, branch or commit; %s",
			ErrUnknownRef, ref, repoDir, fetchTagsHint)
	default:
		return plumbing.ZeroHash, fmt.Errorf("%w %q in %s: %w", ErrUnknownRef, ref, repoDir, err)
	}
}

func describeSkipped(skipped []Skipped) string {
	if len(skipped) == 0 {
		return ""
	}
	names := make([]string, 0, 3)
	for _, s := range skipped[:min(3, len(skipped))] {
		names = append(names, s.Ref)
	}
	more := ""
	if len(skipped) > 3 {
		more = fmt.Sprintf(" and %d more", len(skipped)-3)
	}
	return fmt.Sprintf(" (%d tags are not stable: %s%s)", len(skipped), strings.Join(names, ", "), more)
}
