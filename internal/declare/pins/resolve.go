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
	Reason string        // "newest stable tag", "explicit", "one of the last 3 stable tags", …
}

// String returns "v1.4.176 (3f2c9a1d0b7e)".
func (p Pin) String() string {
	return fmt.Sprintf("%s (%s)", p.Ref, p.Commit.String()[:12])
}

// Selection is the outcome of Resolve: the pins, in order, and every tag that was not
// pinned, with the reason. Skipped is filled whenever a stable rule ran (Last or Window).
type Selection struct {
	Pins    []Pin
	Skipped []Skipped
	// Unlocked lists pinned tags that Options.Lock does not record (run `skewtest pins
	// lock` to record them). Empty when there is no lock.
	Unlocked []string
}

// Resolve selects the pins of the repository containing repoDir. Explicit refs come first,
// in the order given; then the stable tags that Last and Window select, oldest first,
// leaving out a tag already named explicitly. A ref named twice is pinned once. Every tag
// not pinned is in Skipped with the reason; so is each stable tag that a rule passed
// over. With Options.Lock set, a pinned tag that moved since it was locked is refused
// (ErrMovedTag).
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
	for _, r := range opts.Refs {
		if err := ctx.Err(); err != nil {
			return Selection{}, err
		}
		if seen[r.Ref] {
			continue
		}
		seen[r.Ref] = true
		h, err := resolveRef(repo, repoDir, r.Ref)
		if err != nil {
			return Selection{}, err
		}
		reason := r.Reason
		if reason == "" {
			reason = "explicit"
		}
		sel.Pins = append(sel.Pins, Pin{Ref: r.Ref, Commit: h, Reason: reason})
	}
	if opts.Last > 0 || opts.Window {
		if err := selectStable(ctx, repo, repoDir, &opts, seen, &sel); err != nil {
			return Selection{}, err
		}
	}
	if err := checkLock(repo, opts.Lock, &sel); err != nil {
		return Selection{}, err
	}
	return sel, nil
}

// selectStable runs the stable rules: Last and Window.
func selectStable(ctx context.Context, repo *git.Repository, repoDir string, opts *Options, seen map[string]bool, sel *Selection) error {
	tags, skipped, err := stableTags(ctx, repo)
	if err != nil {
		return fmt.Errorf("%s: %w", repoDir, err)
	}
	var candidates []Tag
	var ignored []Skipped
	for _, t := range tags {
		if seen[t.Name] {
			continue
		}
		if p := opts.ignored(t.Name); p != "" {
			ignored = append(ignored, Skipped{Ref: t.Name, Why: fmt.Sprintf("ignored: matches the ignore pattern %q", p)})
			continue
		}
		candidates = append(candidates, t)
	}
	for i, s := range skipped {
		if p := opts.ignored(s.Ref); p != "" {
			skipped[i].Why = fmt.Sprintf("ignored: matches the ignore pattern %q (and %s)", p, s.Why)
		}
	}
	if opts.Last > 0 && len(candidates) == 0 {
		shallow := ""
		if hs, err := repo.Storer.Shallow(); err == nil && len(hs) > 0 {
			shallow = " (this checkout is a shallow clone)"
		}
		hint := fetchTagsHint
		if len(ignored) > 0 {
			hint = fmt.Sprintf("%d stable tags match an ignore pattern; %s", len(ignored), fetchTagsHint)
		}
		return fmt.Errorf("%w in %s%s%s; %s",
			ErrNoStableTag, repoDir, shallow, describeSkipped(skipped), hint)
	}

	// reasons[i] collects why candidates[i] is pinned; why[i] why it is not.
	reasons := make([][]string, len(candidates))
	why := make([]string, len(candidates))
	if opts.Last > 0 {
		first := max(0, len(candidates)-opts.Last)
		reason := "newest stable tag"
		if opts.Last > 1 {
			reason = fmt.Sprintf("one of the last %d stable tags", opts.Last)
		}
		for i := range candidates {
			if i >= first {
				reasons[i] = append(reasons[i], reason)
			} else if opts.Last == 1 {
				why[i] = fmt.Sprintf("older than the newest stable tag %s", candidates[len(candidates)-1].Name)
			} else {
				why[i] = fmt.Sprintf("older than the last %d stable tags", opts.Last)
			}
		}
	}
	if opts.Window {
		if err := window(ctx, repo, repoDir, opts.ContractOf, candidates, reasons, why); err != nil {
			return err
		}
	}

	var passed []Skipped
	for i, t := range candidates {
		if len(reasons[i]) == 0 {
			passed = append(passed, Skipped{Ref: t.Name, Why: why[i]})
			continue
		}
		seen[t.Name] = true
		sel.Pins = append(sel.Pins, Pin{Ref: t.Name, Commit: t.Commit, Reason: strings.Join(reasons[i], "; ")})
	}
	// Newest first: the tags just below the pins read first.
	for i := len(passed) - 1; i >= 0; i-- {
		sel.Skipped = append(sel.Skipped, passed[i])
	}
	sel.Skipped = append(sel.Skipped, ignored...)
	sel.Skipped = append(sel.Skipped, skipped...)
	return nil
}

// window adds "inside the protocol window" to the reasons of every candidate whose
// protocol window overlaps the working tree's, and says why of the others (unless
// another rule already gave a reason not to pin them that reads better).
// A tag's window comes from contractOf when it is given (Options.ContractOf).
func window(ctx context.Context, repo *git.Repository, repoDir string, contractOf func(context.Context, string, plumbing.Hash) (ContractFile, error),
	candidates []Tag, reasons [][]string, why []string) error {
	dir, err := root(repo, repoDir)
	if err != nil {
		return err
	}
	wt, contract, err := worktreeProtocol(dir)
	if err != nil {
		return err
	}
	for i, t := range candidates {
		if err := ctx.Err(); err != nil {
			return err
		}
		var p Protocol
		if contractOf != nil {
			var cf ContractFile
			if cf, err = contractOf(ctx, t.Name, t.Commit); err == nil {
				p, err = parseProtocol(cf.Name, cf.Data)
			}
		} else {
			c, cerr := repo.CommitObject(t.Commit)
			if cerr != nil {
				return fmt.Errorf("commit %s of %s: %w", t.Commit, t.Name, cerr)
			}
			p, err = commitProtocol(c, t.Name, contract)
		}
		// A tag that declares no protocol version speaks the working tree's default for a
		// peer that omits it, if it has one (protocol.omitted; Protocol.Overlaps).
		if errors.Is(err, errNoVersion) && wt.Omitted > 0 {
			err = nil
		}
		switch {
		case err != nil:
			why[i] = "protocol window unknown: " + err.Error()
		case p.Overlaps(wt):
			reasons[i] = append(reasons[i], fmt.Sprintf("inside the protocol window: %s, working tree %s", p, wt))
		default:
			why[i] = fmt.Sprintf("outside the protocol window: %s, working tree %s", p, wt)
		}
	}
	return nil
}

// checkLock refuses a pinned tag that moved, and lists pinned tags the lock lacks.
func checkLock(repo *git.Repository, lock *Lock, sel *Selection) error {
	if lock == nil {
		return nil
	}
	for _, p := range sel.Pins {
		if _, err := repo.Tag(p.Ref); err != nil {
			continue // a branch or a commit: not locked
		}
		if _, ok := lock.Tags[p.Ref]; !ok {
			sel.Unlocked = append(sel.Unlocked, p.Ref)
			continue
		}
		if err := lock.Check(p.Ref, p.Commit); err != nil {
			return err
		}
	}
	return nil
}

// ResolveCommit is resolveRef: the commit ref names in repo (opened from repoDir).
func ResolveCommit(repo *git.Repository, repoDir, ref string) (plumbing.Hash, error) {
	return resolveRef(repo, repoDir, ref)
}

// resolveRef resolves a tag, branch, other ref or hex commit prefix to a commit, peeling
// annotated tags. Any failure wraps ErrUnknownRef.
func resolveRef(repo *git.Repository, repoDir, ref string) (plumbing.Hash, error) {
	// A tag first, as git does, peeled however deeply it is nested.
	if t, err := repo.Tag(ref); err == nil {
		h, err := peel(repo, t.Hash())
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w %q in %s: %w", ErrUnknownRef, ref, repoDir, err)
		}
		return h, nil
	}
	h, err := repo.ResolveRevision(plumbing.Revision(ref))
	switch {
	case err == nil:
		return *h, nil
	case errors.Is(err, plumbing.ErrReferenceNotFound), errors.Is(err, plumbing.ErrObjectNotFound), invalidRevision(err):
		// The fetch advice only where it can help: a shallow clone, or one without tags.
		hint := "; `skewtest pins --last 100` lists the release tags"
		if shallowOrTagless(repo) {
			hint = "; " + fetchTagsHint
		}
		return plumbing.ZeroHash, fmt.Errorf("%w %q in %s: not a tag, branch or commit%s",
			ErrUnknownRef, ref, repoDir, hint)
	default:
		return plumbing.ZeroHash, fmt.Errorf("%w %q in %s: %w", ErrUnknownRef, ref, repoDir, err)
	}
}

// invalidRevision says err is go-git's refusal of a name no revision can have, such as one
// that starts with "/" (a path): "Revision invalid : must not start with \"/\"". Its type
// is in an internal package, so it is known by its text.
func invalidRevision(err error) bool {
	return strings.HasPrefix(err.Error(), "Revision invalid")
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

// shallowOrTagless reports whether repo is a shallow clone or has no tags at all: where a
// missing ref may only be missing from this checkout.
func shallowOrTagless(repo *git.Repository) bool {
	if hs, err := repo.Storer.Shallow(); err == nil && len(hs) > 0 {
		return true
	}
	iter, err := repo.Tags()
	if err != nil {
		return true
	}
	defer iter.Close()
	_, err = iter.Next()
	return err != nil
}
