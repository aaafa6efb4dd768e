package pins

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// LockFile is the lock file's name, at the root of the subject's working tree.
const LockFile = "skewtest.lock"

// Lock records the commit each release tag pointed at when it was locked, so a tag that
// is moved later (force-pushed, re-tagged) is refused instead of silently re-tested.
//
// The file is text, one tag a line, sorted (stable tags by version, then other tags by
// name), so a change to it reads well in a diff:
//
//	# skewtest.lock: the commit each release tag pointed at when it was locked.
//	v1.4.120 1f0c0b5e2d7a4c1e9b8f6a3d2c1b0a9f8e7d6c5b
//	v1.4.146 7a3e...
//
// Blank lines and lines starting with # are ignored.
type Lock struct {
	Path string                   // where it was read from or is written to
	Tags map[string]plumbing.Hash // tag name → commit
}

// LockError is a malformed lock file, at a line.
type LockError struct {
	File string
	Line int
	Msg  string
}

func (e *LockError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// UserMistake marks a lock file error as the user's to fix (usage.Mistake).
func (*LockError) UserMistake() {}

// ReadLock reads the lock file of the repository containing repoDir. A repository
// without one gives a nil Lock and no error: locking is optional.
func ReadLock(repoDir string) (*Lock, error) {
	root, err := Root(repoDir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(root, LockFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return ParseLock(p, data)
}

// ParseLock parses a lock file's contents; name is used in errors (*LockError).
func ParseLock(name string, data []byte) (*Lock, error) {
	l := &Lock{Path: name, Tags: map[string]plumbing.Hash{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 1
	for ; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, &LockError{name, n, fmt.Sprintf("want \"TAG COMMIT\", got %q", line)}
		}
		if len(f[1]) != 40 || !plumbing.IsHash(f[1]) {
			return nil, &LockError{name, n, fmt.Sprintf("tag %s: %q is not a full 40-digit commit hash", f[0], f[1])}
		}
		if _, dup := l.Tags[f[0]]; dup {
			return nil, &LockError{name, n, fmt.Sprintf("tag %s is locked twice", f[0])}
		}
		l.Tags[f[0]] = plumbing.NewHash(f[1])
	}
	if err := sc.Err(); err != nil { // a line longer than the scanner's 64 KiB: not a lock line
		return nil, &LockError{name, n, fmt.Sprintf("want \"TAG COMMIT\", got a line of more than %d bytes (%v)", bufio.MaxScanTokenSize, err)}
	}
	return l, nil
}

// Check refuses a tag that the lock records at another commit, with an error wrapping
// ErrMovedTag. A tag the lock does not know passes (new releases do not break CI; `skewtest
// pins lock` records them).
func (l *Lock) Check(tag string, commit plumbing.Hash) error {
	if l == nil {
		return nil
	}
	locked, ok := l.Tags[tag]
	if !ok || locked == commit {
		return nil
	}
	return fmt.Errorf("%w: %s points at %s, but %s locked it at %s; "+
		"if the tag was moved on purpose, run `skewtest pins lock` to record the new commit "+
		"(and review the change to %s)",
		ErrMovedTag, tag, commit, l.Path, locked, LockFile)
}

// Format returns the file's contents: a header and one "TAG COMMIT" line a tag, stable
// tags by version, then the others by name.
func (l *Lock) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# skewtest.lock: the commit each release tag pointed at when it was locked.\n" +
		"# skewtest run, repro and build refuse a tag that now points elsewhere.\n" +
		"# Written by `skewtest pins lock`; run it again to record a tag moved on purpose.\n")
	for _, t := range l.sorted() {
		fmt.Fprintf(&b, "%s %s\n", t, l.Tags[t])
	}
	return b.Bytes()
}

func (l *Lock) sorted() []string {
	tags := make([]string, 0, len(l.Tags))
	for t := range l.Tags {
		tags = append(tags, t)
	}
	slices.SortFunc(tags, func(a, b string) int {
		va, ea := ParseVersion(a)
		vb, eb := ParseVersion(b)
		switch {
		case ea == nil && eb == nil:
			if c := va.Compare(vb); c != 0 {
				return c
			}
		case ea == nil:
			return -1
		case eb == nil:
			return 1
		}
		return cmp.Compare(a, b)
	})
	return tags
}

// LockChange is one line of difference between an old lock and a new one.
type LockChange struct {
	Tag      string
	Old, New plumbing.Hash // Old is zero for an added tag, New for a removed one
}

// String returns "v1.4.190: moved 1f0c0b5e2d7a → 9e8d7c6b5a4f", "v1.4.191: added …" or
// "v1.4.100: removed …".
func (c LockChange) String() string {
	switch {
	case c.Old.IsZero():
		return fmt.Sprintf("%s: added at %s", c.Tag, c.New.String()[:12])
	case c.New.IsZero():
		return fmt.Sprintf("%s: removed (was %s)", c.Tag, c.Old.String()[:12])
	}
	return fmt.Sprintf("%s: moved %s → %s", c.Tag, c.Old.String()[:12], c.New.String()[:12])
}

// WriteLock records, in the lock file of the repository containing repoDir, every stable
// tag and every pinned ref of sel that is a tag (an explicitly pinned pre-release, say).
// Branches and commit hashes are not locked: a branch moves by design, a commit cannot.
// It returns the lock written and how it differs from the one it replaced.
func WriteLock(ctx context.Context, repoDir string, sel Selection) (*Lock, []LockChange, error) {
	repo, err := Open(repoDir)
	if err != nil {
		return nil, nil, err
	}
	dir, err := root(repo, repoDir)
	if err != nil {
		return nil, nil, err
	}
	old, err := ReadLock(dir)
	if err != nil {
		return nil, nil, err
	}
	tags, _, err := stableTags(ctx, repo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", repoDir, err)
	}
	l := &Lock{Path: filepath.Join(dir, LockFile), Tags: map[string]plumbing.Hash{}}
	for _, t := range tags {
		l.Tags[t.Name] = t.Commit
	}
	for _, p := range sel.Pins {
		if _, err := repo.Tag(p.Ref); err == nil {
			l.Tags[p.Ref] = p.Commit
		}
	}
	var changes []LockChange
	if old == nil {
		old = &Lock{}
	}
	for _, t := range l.sorted() {
		if o := old.Tags[t]; o != l.Tags[t] {
			changes = append(changes, LockChange{Tag: t, Old: o, New: l.Tags[t]})
		}
	}
	for _, t := range old.sorted() {
		if _, ok := l.Tags[t]; !ok {
			changes = append(changes, LockChange{Tag: t, Old: old.Tags[t]})
		}
	}
	tmp := l.Path + ".tmp"
	if err := os.WriteFile(tmp, l.Format(), 0o644); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", l.Path, err)
	}
	if err := os.Rename(tmp, l.Path); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", l.Path, err)
	}
	return l, changes, nil
}
