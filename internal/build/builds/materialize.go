package builds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// writeTree writes a commit's tree from the object database into dst, keeping the
// executable bit and symlinks. Submodules are left out (they are not in the tree).
// Content is written as stored: no line-ending or other .gitattributes filters.
func writeTree(ctx context.Context, tree *object.Tree, dst string) error {
	return tree.Files().ForEach(func(f *object.File) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !safePath(f.Name) {
			return fmt.Errorf("tree entry %q: not a path inside the checkout", f.Name)
		}
		target := filepath.Join(dst, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		switch f.Mode {
		case filemode.Symlink:
			link, err := f.Contents()
			if err != nil {
				return fmt.Errorf("read %s: %w", f.Name, err)
			}
			return os.Symlink(link, target)
		case filemode.Executable:
			return writeBlob(f, target, 0o755)
		case filemode.Regular, filemode.Deprecated:
			return writeBlob(f, target, 0o644)
		default:
			return nil
		}
	})
}

func writeBlob(f *object.File, target string, perm os.FileMode) (err error) {
	r, err := f.Reader()
	if err != nil {
		return fmt.Errorf("read %s: %w", f.Name, err)
	}
	defer r.Close()
	w, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("write %s: %w", f.Name, err)
	}
	return nil
}

// safePath reports whether a slash-separated tree path stays inside the checkout and
// does not touch a .git directory.
func safePath(p string) bool {
	if !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, "\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

// worktreeEntry is one file of the working tree, as git would see its mode.
type worktreeEntry struct {
	rel  string            // slash-separated, relative to the worktree root
	mode filemode.FileMode // Regular, Executable or Symlink
	sum  [sha256.Size]byte // of the content, or of the link target
	blob plumbing.Hash     // git's object name of the same bytes
}

// ReportDirMarker is the file every skewtest report directory holds (reports.LockFile, the
// lock a run takes on its report directory, which stays once the run ends). The working
// tree's build leaves out an untracked directory that holds it: a report directory inside
// the repository is not the product, and a run into it rebuilds nothing.
const ReportDirMarker = ".skewtest-run.lock"

// scanOptions narrow scanWorktree.
type scanOptions struct {
	exclude []string // absolute paths left out (a cache directory inside the worktree)
	within  []string // when not nil, only these slash-separated paths (files or trees)
	skip    []string // slash-separated paths left out (the fixtures directory, from overlays)
}

// worktreeSnapshot is the working tree's files and a digest of their paths, modes and
// contents.
type worktreeSnapshot struct {
	root    string
	entries []worktreeEntry
	digest  string
}

// scanWorktree lists and hashes the files of the working tree that a build includes: every
// file on disk except .git, ignored files that are not tracked, untracked report
// directories (ReportDirMarker), and files under opts.exclude (absolute paths, such as a
// cache directory inside the worktree); only those
// under opts.within when it is set (the overlays of a versions row). Files and directories
// that git tracks are included even when an ignore pattern matches them, like git does.
//
// Ignore patterns come from the repository's .gitignore files and .git/info/exclude, not
// from the user's global excludes file, so a build's content does not depend on whose
// machine made it.
func scanWorktree(ctx context.Context, repo *git.Repository, opts scanOptions) (*worktreeSnapshot, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open working tree: %w", err)
	}
	root := wt.Filesystem.Root()
	patterns, err := gitignore.ReadPatterns(wt.Filesystem, nil)
	if err != nil {
		return nil, fmt.Errorf("read ignore patterns: %w", err)
	}
	ignore := gitignore.NewMatcher(patterns)

	tracked := map[string]bool{}
	trackedDirs := map[string]bool{}
	if idx, err := repo.Storer.Index(); err == nil {
		for _, e := range idx.Entries {
			tracked[e.Name] = true
			for d := path.Dir(e.Name); d != "."; d = path.Dir(d) {
				trackedDirs[d] = true
			}
		}
	}

	snap := &worktreeSnapshot{root: root}
	ignoredDir := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.Name() == ".git" || slices.Contains(opts.exclude, p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		relOS, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(relOS)
		if within(rel, opts.skip) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if opts.within != nil && !within(rel, opts.within) {
			if !d.IsDir() {
				return nil
			}
			if !onTheWay(rel, opts.within) {
				return filepath.SkipDir
			}
			// A directory on the way to an overlay: go on, noting whether it is ignored.
		}
		parts := strings.Split(rel, "/")
		parentIgnored := ignoredDir[path.Dir(rel)]
		if d.IsDir() && !trackedDirs[rel] {
			// A report directory of skewtest's own (a run's --report-dir inside the
			// repository) is not the product: runs into it rebuild nothing.
			if _, err := os.Lstat(filepath.Join(p, ReportDirMarker)); err == nil {
				return filepath.SkipDir
			}
		}
		if d.IsDir() {
			ignored := parentIgnored || ignore.Match(parts, true)
			if ignored && !trackedDirs[rel] {
				return filepath.SkipDir
			}
			ignoredDir[rel] = ignored
			return nil
		}
		if !tracked[rel] && (parentIgnored || ignore.Match(parts, false)) {
			return nil
		}
		e := worktreeEntry{rel: rel}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e.mode, e.sum = filemode.Symlink, sha256.Sum256([]byte(link))
			e.blob = plumbing.ComputeHash(plumbing.BlobObject, []byte(link))
		case t.IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			e.mode = filemode.Regular
			if info.Mode()&0o111 != 0 {
				e.mode = filemode.Executable
			}
			blob := plumbing.NewHasher(plumbing.BlobObject, info.Size())
			if e.sum, err = hashFile(p, blob); err != nil {
				return err
			}
			e.blob = blob.Sum()
		default:
			return nil // sockets, pipes, devices
		}
		snap.entries = append(snap.entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan working tree %s: %w", root, err)
	}
	slices.SortFunc(snap.entries, func(a, b worktreeEntry) int { return strings.Compare(a.rel, b.rel) })
	h := sha256.New()
	for _, e := range snap.entries {
		fmt.Fprintf(h, "%s %x %s\x00", e.mode, e.sum, e.rel)
	}
	snap.digest = hex.EncodeToString(h.Sum(nil))
	return snap, nil
}

// differsFrom reports whether the snapshot's files are not tree's: a file changed, added
// (untracked and not ignored) or of another mode, or a file of tree missing, except under
// the paths skip leaves out (what the scan excluded).
func (s *worktreeSnapshot) differsFrom(tree *object.Tree, skip func(rel string) bool) (bool, error) {
	have := make(map[string]worktreeEntry, len(s.entries))
	for _, e := range s.entries {
		have[e.rel] = e
	}
	seen := 0
	err := tree.Files().ForEach(func(f *object.File) error {
		if f.Mode == filemode.Submodule || skip(f.Name) {
			return nil
		}
		e, ok := have[f.Name]
		if !ok || e.blob != f.Hash || e.mode != f.Mode {
			return errDiffers
		}
		seen++
		return nil
	})
	if errors.Is(err, errDiffers) {
		return true, nil
	}
	return seen != len(s.entries), err
}

var errDiffers = errors.New("differs")

// hashFile returns the SHA-256 of a file's content, copying it to w as well when w is not
// nil.
func hashFile(p string, w io.Writer) (sum [sha256.Size]byte, err error) {
	f, err := os.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	var dst io.Writer = h
	if w != nil {
		dst = io.MultiWriter(h, w)
	}
	if _, err := io.Copy(dst, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// errWorktreeChanged means a file changed between hashing the working tree and copying
// it; the build would not match its key.
var errWorktreeChanged = errors.New("changed while it was being copied; run again")

// write copies the snapshot's files into dst, checking that each still has the content
// that was hashed.
func (s *worktreeSnapshot) write(ctx context.Context, dst string) error {
	for _, e := range s.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		from := filepath.Join(s.root, filepath.FromSlash(e.rel))
		to := filepath.Join(dst, filepath.FromSlash(e.rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := copyEntry(e, from, to); err != nil {
			return fmt.Errorf("copy %s: %w", e.rel, err)
		}
	}
	return nil
}

func copyEntry(e worktreeEntry, from, to string) (err error) {
	if e.mode == filemode.Symlink {
		link, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if sha256.Sum256([]byte(link)) != e.sum {
			return errWorktreeChanged
		}
		return os.Symlink(link, to)
	}
	perm := os.FileMode(0o644)
	if e.mode == filemode.Executable {
		perm = 0o755
	}
	w, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	sum, err := hashFile(from, w)
	if err != nil {
		return err
	}
	if sum != e.sum {
		return errWorktreeChanged
	}
	return nil
}

// has reports whether the snapshot holds rel or anything under it.
func (s *worktreeSnapshot) has(rel string) bool {
	for _, e := range s.entries {
		if e.rel == rel || strings.HasPrefix(e.rel, rel+"/") {
			return true
		}
	}
	return false
}
