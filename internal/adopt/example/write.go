package example

import (
	"bytes"
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

	"github.com/skewtest/skewtest/internal/adopt/example/internal/bundle"
)

// ErrNotEmpty is a destination that already holds files.
var ErrNotEmpty = errors.New("is not empty; give a new or empty directory")

// ErrOptions is an option the history cannot be written with.
var ErrOptions = errors.New("bad option")

// Written says what Write made.
type Written struct {
	Dir  string
	Tags []string
	// AdoptedAt is the release the history was written as adopting skewtest at (Options).
	AdoptedAt string
	Worktree  []string // files changed in the working tree and left uncommitted
	// KnownBugs are the release-skew bugs the history declares (history.yaml's knownBugs):
	// pairings of the written repository that must be found red.
	KnownBugs []KnownBug
}

// Options change how Write writes a history.
type Options struct {
	// AdoptedAt, when set, writes the history of a product that adopted skewtest at that
	// release: the releases (and their commits) before it carry none of skewtest's files
	// (history.yaml's adoption: its skewtest.yaml, contract, journeys, drivers and the
	// vendored kit), as a history that never heard of skewtest. From it on, skewtest.yaml
	// builds each of them through a versions row: the working tree's drivers laid over it,
	// and the contract it spoke, reconstructed under skewtest/contracts/RELEASE.json.
	AdoptedAt string
}

// adoptedContracts is where a late-adopted history keeps the contracts of its releases
// before the adoption.
const adoptedContracts = "skewtest/contracts"

// Write writes the subject's history as a git repository in dest, which must not exist or
// be empty (ErrNotEmpty): for each release, its intermediate commits and then its own
// commit, which it tags.
func Write(src *Source, dest string) (*Written, error) {
	return WriteWith(src, dest, Options{})
}

// WriteWith is Write with options.
func WriteWith(src *Source, dest string, o Options) (*Written, error) {
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s %w", dest, ErrNotEmpty)
	}
	h, err := loadHistory(src.subject)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name, err)
	}
	if err := h.checkAdoptedAt(o.AdoptedAt); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", src.Name, ErrOptions, err)
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
	out := &Written{Dir: dest, KnownBugs: h.KnownBugs, AdoptedAt: o.AdoptedAt}
	c := &committer{dest: dest, repo: repo, wt: wt, t: t, author: h.Author, features: map[string]any{},
		adoptedAt: o.AdoptedAt, bare: o.AdoptedAt != ""}
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
	if err := t.write(dest, worktreeLabel, c.features, append(c.overlays, worktreeLabel), treeMode{old: c.old}); err != nil {
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

	adoptedAt string       // Options.AdoptedAt
	bare      bool         // the trees written now predate the adoption
	old       []oldRelease // the releases before the adoption, once it came
}

// release commits r's intermediate commits, then r's own commit, which it tags; it returns
// the tagged commit.
func (c *committer) release(r release) (plumbing.Hash, error) {
	if r.Tag == c.adoptedAt {
		c.bare = false
	}
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
	if c.bare {
		contract, err := c.t.contract(r.Tag, c.features)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		c.old = append(c.old, oldRelease{tag: r.Tag, contract: contract})
	}
	return hash, nil
}

// commit lays version's tree into the directory, with the broken file when broken and
// without it otherwise, and commits everything, authored and committed at when.
func (c *committer) commit(version string, when time.Time, message string, broken bool) (plumbing.Hash, error) {
	m := treeMode{bare: c.bare}
	if !c.bare {
		m.old = c.old
	}
	if err := c.t.write(c.dest, version, c.features, c.overlays, m); err != nil {
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

// treeMode says how a tree differs for a history adopted late (Options.AdoptedAt).
type treeMode struct {
	// bare: the tree predates the adoption and has none of skewtest's files.
	bare bool
	// old are the releases before the adoption, which the tree's skewtest.yaml builds
	// through versions rows (empty: none, or the tree predates the adoption).
	old []oldRelease
}

// oldRelease is a release before the adoption, with the contract it spoke.
type oldRelease struct {
	tag      string
	contract []byte
}

// write lays version's tree into dest: the subject's files, then the overlays named (in
// order, a later one winning), the features file, the contract, and the driver kit. A bare
// tree (m) gets none of skewtest's files; a tree after a late adoption gets the contracts of
// the releases before it and the versions rows that build them.
func (t *treeWriter) write(dest, version string, features map[string]any, overlays []string, m treeMode) error {
	for _, f := range t.base {
		if m.bare && t.skewtestFile(f) {
			continue
		}
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
			if m.bare && t.skewtestFile(f) {
				continue
			}
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
	if m.bare {
		return dropKit(dest)
	}
	if t.h.Contract != nil {
		c, err := t.contract(version, features)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(t.h.Contract.Path)), c); err != nil {
			return err
		}
	}
	if err := vendorKit(dest, t.kit); err != nil {
		return err
	}
	return t.writeAdopted(dest, m.old)
}

// contract is version's contract, derived from the template for its features.
func (t *treeWriter) contract(version string, features map[string]any) ([]byte, error) {
	c, err := deriveContract(t.template, version, features, t.h.Contract)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.h.Contract.Template, err)
	}
	return c, nil
}

// skewtestFile reports whether the subject's file f belongs to skewtest (history.yaml's
// adoption.files, and the contract).
func (t *treeWriter) skewtestFile(f string) bool {
	if f == t.h.contractPath() {
		return true
	}
	for _, p := range t.h.Adoption.Files {
		if f == p || inDir(f, p) {
			return true
		}
	}
	return false
}

// writeAdopted gives a tree after a late adoption the contracts of the releases before it,
// and appends to its skewtest.yaml the versions rows that build each of them with the
// working tree's drivers and that contract.
func (t *treeWriter) writeAdopted(dest string, old []oldRelease) error {
	if len(old) == 0 {
		return nil
	}
	overlay := slices.Clone(t.h.Adoption.Overlay)
	if _, err := os.Stat(filepath.Join(dest, kitDest)); err == nil {
		overlay = append(overlay, kitDest, "go.mod") // the kit the drivers import, and go.mod's lines for it
	}
	var rows strings.Builder
	fmt.Fprintf(&rows, "\n# The releases before %s predate skewtest (written by skewtest example --adopted-at): they\n", t.adoptedAt(old))
	rows.WriteString("# have no skewtest.yaml, contract or drivers of their own. Each is built with this file and\n")
	rows.WriteString("# the working tree's drivers laid over it, and read with the contract it spoke, kept here.\n")
	rows.WriteString("versions:\n")
	for _, r := range old {
		p := path.Join(adoptedContracts, r.tag+".json")
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(p)), r.contract); err != nil {
			return err
		}
		fmt.Fprintf(&rows, "  - range: %q\n    overlay: [%s]\n    contract: %s\n", r.tag, strings.Join(overlay, ", "), p)
	}
	cfg := filepath.Join(dest, "skewtest.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		return err
	}
	if bytes.Contains(data, []byte("\nversions:")) || bytes.HasPrefix(data, []byte("versions:")) {
		return fmt.Errorf("adoption: skewtest.yaml has a versions table already: the adopted releases' rows cannot be added to it")
	}
	return writeFile(cfg, append(data, rows.String()...))
}

// adoptedAt is the release after the last of old, named for the rows' comment.
func (t *treeWriter) adoptedAt(old []oldRelease) string {
	last := old[len(old)-1].tag
	for i, r := range t.h.Releases {
		if r.Tag == last && i+1 < len(t.h.Releases) {
			return t.h.Releases[i+1].Tag
		}
	}
	return "the adoption"
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
