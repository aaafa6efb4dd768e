package example

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

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
// be empty (ErrNotEmpty).
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
	features := map[string]any{}
	var overlays []string
	commits := map[string]plumbing.Hash{}
	for _, r := range h.Releases {
		maps.Copy(features, r.Set)
		overlays = append(overlays, r.Tag)
		if err := t.write(dest, r.Tag, features, overlays); err != nil {
			return nil, fmt.Errorf("release %s: %w", r.Tag, err)
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return nil, fmt.Errorf("release %s: add: %w", r.Tag, err)
		}
		sig := &object.Signature{Name: h.Author.Name, Email: h.Author.Email, When: r.Date}
		hash, err := wt.Commit(r.Message, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			return nil, fmt.Errorf("release %s: commit: %w", r.Tag, err)
		}
		if _, err := repo.CreateTag(r.Tag, hash, &git.CreateTagOptions{Tagger: sig, Message: r.Message}); err != nil {
			return nil, fmt.Errorf("tag %s: %w", r.Tag, err)
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
	maps.Copy(features, h.Worktree.Set)
	if err := t.write(dest, worktreeLabel, features, append(overlays, worktreeLabel)); err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	status, err := wt.Status()
	if err != nil {
		return nil, err
	}
	out.Worktree = slices.Sorted(maps.Keys(status))
	return out, nil
}

// treeWriter lays one version's tree into the repository's directory.
type treeWriter struct {
	src      *Source
	h        *history
	base     []string // the subject's files that every tree gets as they are
	template []byte   // the contract template, when the history derives contracts
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
	return t, nil
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
