// Package example writes the bundled reference subject, remoteterm, as a real git repository:
// one commit and tag per release of its history, extra tags that pin selection must ignore,
// and the working tree's uncommitted changes. The history is data (examples/remoteterm/
// history.yaml); every release is the subject's source with that release's feature table and
// contract.
package example

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"go.yaml.in/yaml/v3"
)

// SourceDir is the subject's directory inside the skewtest repository.
const SourceDir = "examples/remoteterm"

// History is history.yaml.
type History struct {
	Author   Signature  `yaml:"author"`
	Releases []Release  `yaml:"releases"`
	Other    []OtherTag `yaml:"otherTags"`
	Worktree struct {
		Set map[string]any `yaml:"set"`
	} `yaml:"worktree"`
}

// Signature is a commit's author.
type Signature struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// Release is one tagged release.
type Release struct {
	Tag     string         `yaml:"tag"`
	Date    time.Time      `yaml:"date"`
	Message string         `yaml:"message"`
	Set     map[string]any `yaml:"set"`
}

// OtherTag is a tag on a release's commit that is not itself a release.
type OtherTag struct {
	Tag string `yaml:"tag"`
	At  string `yaml:"at"`
}

// Written says what Write made.
type Written struct {
	Dir      string
	Tags     []string
	Worktree []string // files changed in the working tree and left uncommitted
}

// files the generator writes itself, and files of the source that are not part of the product.
const (
	releaseFile  = "release/release.json"
	contractFile = "skewtest-contract.json"
	templateFile = "contract.template.json"
	historyFile  = "history.yaml"
	overlayDir   = "history"
)

// FindSource looks for the subject's source: dir itself when given, else examples/remoteterm
// under the working directory or any of its parents, else beside the executable.
func FindSource(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, historyFile)); err != nil {
			return "", fmt.Errorf("%s is not the reference subject's source (no %s)", dir, historyFile)
		}
		return dir, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for d := s; ; d = filepath.Dir(d) {
			cand := filepath.Join(d, SourceDir)
			if _, err := os.Stat(filepath.Join(cand, historyFile)); err == nil {
				return cand, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find the reference subject's source (%s/%s) above the working directory or the skewtest binary: run from a skewtest checkout or pass --source", SourceDir, historyFile)
}

// LoadHistory reads history.yaml strictly.
func LoadHistory(path string) (*History, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h History
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(h.Releases) == 0 {
		return nil, fmt.Errorf("%s: no releases", path)
	}
	return &h, nil
}

// Write writes the subject's history as a git repository in dest, which must not exist or be
// empty.
func Write(src, dest string) (*Written, error) {
	h, err := LoadHistory(filepath.Join(src, historyFile))
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty; give a new or empty directory", dest)
	}
	template, err := os.ReadFile(filepath.Join(src, templateFile))
	if err != nil {
		return nil, err
	}
	base, err := sourceFiles(src)
	if err != nil {
		return nil, err
	}
	repo, err := git.PlainInit(dest, false)
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dest, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	out := &Written{Dir: dest}
	features := map[string]any{}
	commits := map[string]plumbing.Hash{}
	for _, r := range h.Releases {
		for k, v := range r.Set {
			features[k] = v
		}
		if err := writeTree(src, dest, base, r.Tag, features, template); err != nil {
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
		hash, ok := commits[o.At]
		if !ok {
			return nil, fmt.Errorf("%s: tag %s is at %s, which is not a release", historyFile, o.Tag, o.At)
		}
		if _, err := repo.CreateTag(o.Tag, hash, nil); err != nil {
			return nil, fmt.Errorf("tag %s: %w", o.Tag, err)
		}
		out.Tags = append(out.Tags, o.Tag)
	}
	for k, v := range h.Worktree.Set {
		features[k] = v
	}
	if err := writeTree(src, dest, base, "worktree", features, template); err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	status, err := wt.Status()
	if err != nil {
		return nil, err
	}
	for f := range status {
		out.Worktree = append(out.Worktree, f)
	}
	sort.Strings(out.Worktree)
	return out, nil
}

// sourceFiles lists the product's files in src, relative and sorted.
func sourceFiles(src string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (rel == overlayDir || strings.HasPrefix(d.Name(), ".")) && rel != ".":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case rel == historyFile || rel == templateFile || rel == releaseFile || rel == contractFile,
			strings.HasSuffix(rel, ".test"), !d.Type().IsRegular():
			return nil
		}
		files = append(files, rel)
		return nil
	})
	sort.Strings(files)
	return files, err
}

// writeTree lays the release's tree into dest: the source, the overlays of every release up
// to this one, its release.json and its contract.
func writeTree(src, dest string, files []string, version string, features map[string]any, template []byte) error {
	for _, f := range files {
		if err := copyFile(filepath.Join(src, f), filepath.Join(dest, f)); err != nil {
			return err
		}
	}
	if version != "worktree" {
		ov := filepath.Join(src, overlayDir, version)
		if _, err := os.Stat(ov); err == nil {
			err := filepath.WalkDir(ov, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(ov, p)
				return copyFile(p, filepath.Join(dest, rel))
			})
			if err != nil {
				return err
			}
		}
	}
	rel := map[string]any{}
	for k, v := range features {
		rel[k] = v
	}
	rel["version"] = version
	data, err := json.MarshalIndent(rel, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dest, releaseFile), append(data, '\n')); err != nil {
		return err
	}
	c, err := Contract(template, version, features)
	if err != nil {
		return fmt.Errorf("%s: %w", templateFile, err)
	}
	return writeFile(filepath.Join(dest, contractFile), c)
}

// Contract derives a release's contract from the template: an object carrying
// "feature": "key" is kept only when that feature is on ("!key": off), and the key is
// dropped; version and protocol come from the release.
func Contract(template []byte, version string, features map[string]any) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(template))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	kept, keep, err := filter(doc, features)
	if err != nil {
		return nil, err
	}
	m, ok := kept.(map[string]any)
	if !keep || !ok {
		return nil, errors.New("the template's top level must be an unconditional object")
	}
	m["version"] = version
	m["protocol"] = map[string]any{"version": number(features["sessionProtocol"], 1), "minCompatible": number(features["sessionMinCompatible"], 1)}
	out, err := json.MarshalIndent(m, "", "  ")
	return append(out, '\n'), err
}

func filter(v any, features map[string]any) (any, bool, error) {
	switch v := v.(type) {
	case map[string]any:
		if f, ok := v["feature"]; ok {
			name, ok := f.(string)
			if !ok || name == "" || name == "!" {
				return nil, false, fmt.Errorf("\"feature\" must name a feature, got %v", f)
			}
			want := true
			if strings.HasPrefix(name, "!") {
				want, name = false, name[1:]
			}
			if truthy(features[name]) != want {
				return nil, false, nil
			}
		}
		out := map[string]any{}
		for k, e := range v {
			if k == "feature" {
				continue
			}
			fe, keep, err := filter(e, features)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out[k] = fe
			}
		}
		return out, true, nil
	case []any:
		out := []any{}
		for _, e := range v {
			fe, keep, err := filter(e, features)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out = append(out, fe)
			}
		}
		return out, true, nil
	}
	return v, true, nil
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

func number(v any, def int) any {
	if v == nil {
		return def
	}
	return v
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return writeFile(to, data)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
