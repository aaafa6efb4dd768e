package example

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/example/internal/bundle"
)

// ErrNotEmpty is a destination that already holds files.
var ErrNotEmpty = errors.New("is not empty; give a new or empty directory")

// Written says what Write made.
type Written struct {
	Dir      string
	Tags     []string
	Worktree []string // files changed in the working tree and left uncommitted
	// KnownBugs are the release-skew bugs the history declares (history.yaml's knownBugs):
	// pairings of the written repository that must be found red.
	KnownBugs []KnownBug
}

// Write writes the subject's history as a git repository in dest, which must not exist or
// be empty (ErrNotEmpty): for each release, its intermediate commits and then its own
// commit, which it tags.
func Write(src *Source, dest string) (*Written, error) {
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s %w", dest, ErrNotEmpty)
	}
	h, err := loadHistory(src.subject)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	t, err := newTreeWriter(src, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	repo, err := git.PlainInit(dest, false)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dest, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	out := &Written{Dir: dest, KnownBugs: h.KnownBugs}
	c := &committer{dest: dest, repo: repo, wt: wt, t: t, author: h.Author, features: map[string]any{}}
	commits := map[string]plumbing.Hash{}
	for _, r := range h.Releases {
		hash, err := c.release(r)
		if err != nil {
			return nil, fmt.Errorf("release %s: %w", r.Tag, err)
		}
		commits[r.Tag] = hash
		out.Tags = append(out.Tags, r.Tag)
	}
	for _, o := range h.Other {
		if _, err := repo.CreateTag(o.Tag, commits[o.At], nil); err != nil {
			return nil, fmt.Errorf("tag %s: %w", o.Tag, err)
		}
		out.Tags = append(out.Tags, o.Tag)
	}
	maps.Copy(c.features, h.Worktree.Set)
	if err := t.write(dest, worktreeLabel, c.features, append(c.overlays, worktreeLabel)); err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	status, err := wt.Status()
	if err != nil {
		return nil, err
	}
	out.Worktree = slices.Sorted(maps.Keys(status))
	return out, nil
}

// committer commits the history's trees, oldest first, carrying its features and
// overlays forward from one commit to the next.
type committer struct {
	dest     string
	repo     *git.Repository
	wt       *git.Worktree
	t        *treeWriter
	author   signature
	features map[string]any // the sets so far, merged
	overlays []string       // the releases so far, whose overlays every tree gets
}

// release commits r's intermediate commits, then r's own commit, which it tags; it returns
// the tagged commit.
func (c *committer) release(r release) (plumbing.Hash, error) {
	for j, ic := range r.Commits {
		maps.Copy(c.features, ic.Set)
		if _, err := c.commit(commitVersion(r.Tag, j), ic.Date, ic.Message, ic.Broken); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("commits[%d]: %w", j, err)
		}
	}
	maps.Copy(c.features, r.Set)
	c.overlays = append(c.overlays, r.Tag)
	hash, err := c.commit(r.Tag, r.Date, r.Message, false)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	opts := &git.CreateTagOptions{Tagger: c.signature(r.Date), Message: r.Message}
	if _, err := c.repo.CreateTag(r.Tag, hash, opts); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("tag: %w", err)
	}
	return hash, nil
}

// commit lays version's tree into the directory, with the broken file when broken and
// without it otherwise, and commits everything, authored and committed at when.
func (c *committer) commit(version string, when time.Time, message string, broken bool) (plumbing.Hash, error) {
	if err := c.t.write(c.dest, version, c.features, c.overlays); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := c.t.writeBroken(c.dest, broken); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := c.wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("add: %w", err)
	}
	sig := c.signature(when)
	hash, err := c.wt.Commit(message, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("commit: %w", err)
	}
	return hash, nil
}

func (c *committer) signature(when time.Time) *object.Signature {
	return &object.Signature{Name: c.author.Name, Email: c.author.Email, When: when}
}

// commitVersion is the version an intermediate commit's tree says it is: a pre-release of
// the release it leads to (the first commit before v1.4.147 is v1.4.147-dev.1). j counts
// the release's commits from 0.
func commitVersion(tag string, j int) string {
	return fmt.Sprintf("%s-dev.%d", tag, j+1)
}

// treeWriter lays one version's tree into the repository's directory.
type treeWriter struct {
	src      *Source
	h        *history
	base     []string // the subject's files that every tree gets as they are
	template []byte   // the contract template, when the history derives contracts
	broken   []byte   // the broken file, when a commit is broken
	kit      kit
}

func newTreeWriter(src *Source, h *history) (*treeWriter, error) {
	files, err := bundle.SubjectFiles(src.subject, ".")
	if err != nil {
		return nil, err
	}
	// Not copied: the history and its overlays, the template, and what the writer writes.
	skip := map[string]bool{historyFile: true, h.FeaturesFile: true, h.templatePath(): true, h.contractPath(): true}
	t := &treeWriter{src: src, h: h}
	for _, f := range files {
		if !skip[f] && !inDir(f, overlayDir) {
			t.base = append(t.base, f)
		}
	}
	if h.Contract != nil {
		if t.template, err = fs.ReadFile(src.subject, h.Contract.Template); err != nil {
			return nil, err
		}
	}
	if t.kit, err = loadKit(src.kit); err != nil {
		return nil, err
	}
	if h.broken() {
		if t.broken, err = brokenSource(src.subject, h.BrokenFile); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// brokenSource is the broken file's text: a Go file of the package in its directory
// that calls a function nobody declares, so the package does not compile.
func brokenSource(subject fs.FS, file string) ([]byte, error) {
	dir := path.Dir(file)
	entries, err := fs.ReadDir(subject, dir)
	if err != nil {
		return nil, fmt.Errorf("brokenFile %s: %w", file, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(subject, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.PackageClauseOnly)
		if err != nil {
			return nil, fmt.Errorf("brokenFile %s: %w", file, err)
		}
		return fmt.Appendf(nil, "package %s\n\n// work in progress\nfunc broken() { undefined_symbol() }\n", f.Name.Name), nil
	}
	return nil, fmt.Errorf("brokenFile %s: %s holds no Go package to break; put it in a package the build compiles", file, dir)
}

// writeBroken writes the broken file into dest when on, and removes it otherwise (the
// commit after a broken one does not have it).
func (t *treeWriter) writeBroken(dest string, on bool) error {
	if t.h.BrokenFile == "" {
		return nil
	}
	p := filepath.Join(dest, filepath.FromSlash(t.h.BrokenFile))
	if on {
		return writeFile(p, t.broken)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// write lays version's tree into dest: the subject's files, then the overlays named (in
// order, a later one winning), the features file, the contract, and the driver kit.
func (t *treeWriter) write(dest, version string, features map[string]any, overlays []string) error {
	for _, f := range t.base {
		if err := t.copy(f, dest, f); err != nil {
			return err
		}
	}
	for _, o := range overlays {
		dir := path.Join(overlayDir, o)
		files, err := bundle.SubjectFiles(t.src.subject, dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
		for _, f := range files {
			if err := t.copy(path.Join(dir, f), dest, f); err != nil {
				return err
			}
		}
	}
	if t.h.FeaturesFile != "" {
		rel := maps.Clone(features)
		rel["version"] = version
		data, err := json.MarshalIndent(rel, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(t.h.FeaturesFile)), append(data, '\n')); err != nil {
			return err
		}
	}
	if t.h.Contract != nil {
		c, err := deriveContract(t.template, version, features, t.h.Contract)
		if err != nil {
			return fmt.Errorf("%s: %w", t.h.Contract.Template, err)
		}
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(t.h.Contract.Path)), c); err != nil {
			return err
		}
	}
	return vendorKit(dest, t.kit)
}

func (t *treeWriter) copy(from, dest, to string) error {
	data, err := fs.ReadFile(t.src.subject, from)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dest, filepath.FromSlash(to)), data)
}

// inDir reports whether the slash path p is inside dir.
func inDir(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
