package example

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/results"
)

// history is a subject's history.yaml.
type history struct {
	Author signature `yaml:"author"`
	// FeaturesFile, when set, is where every tree gets its release's feature table: the
	// `set` maps of the releases and commits so far, merged, plus "version" (the tag,
	// "worktree", or an intermediate commit's label, see commitVersion), as JSON.
	FeaturesFile string `yaml:"featuresFile"`
	// BrokenFile is where a commit marked broken gets a Go file that does not compile: a
	// path in a package directory of the subject that its build compiles (the host's main
	// package, say), where the subject has no file. Needed when a commit is broken.
	BrokenFile string `yaml:"brokenFile"`
	// Contract, when set, derives every tree's wire contract from a template.
	Contract *contractSettings `yaml:"contract"`
	Releases []release         `yaml:"releases"`
	Other    []otherTag        `yaml:"otherTags"`
	Worktree struct {
		Set map[string]any `yaml:"set"`
	} `yaml:"worktree"`
	// KnownBugs are the release-skew bugs the history ships on purpose (optional).
	KnownBugs []KnownBug `yaml:"knownBugs"`
	// Adoption, when set, lets the history be written as adopted late (Options.AdoptedAt).
	Adoption *adoption `yaml:"adoption"`
}

// adoption says what a history written as adopted late leaves out of the releases before
// its adoption, and lays over them from the working tree.
type adoption struct {
	// Files are the subject's paths that belong to skewtest (its skewtest.yaml, journeys,
	// drivers …): the releases before the adoption have none of them. The contract, the
	// vendored driver kit and go.mod's lines for it are left out too, without being listed.
	Files []string `yaml:"files"`
	// Overlay are the working tree's paths a versions row lays over each of those releases
	// (their drivers); the kit and go.mod go with them.
	Overlay []string `yaml:"overlay"`
}

// contractSettings says how a release's contract is derived (see deriveContract).
type contractSettings struct {
	// Template is the template's path in the subject's directory: JSON whose objects
	// carrying "feature": "k" are kept only when feature k is on ("!k": off).
	Template string `yaml:"template"`
	// Path is where the contract is written in every tree.
	Path string `yaml:"path"`
	// ProtocolFrom, when set, names the features that hold the protocol version and the
	// minimum compatible version; they are written as the contract's "protocol".
	ProtocolFrom *struct {
		Version       string `yaml:"version"`
		MinCompatible string `yaml:"minCompatible"`
	} `yaml:"protocolFrom"`
}

type signature struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

type release struct {
	Tag     string         `yaml:"tag"`
	Date    time.Time      `yaml:"date"`
	Message string         `yaml:"message"`
	Set     map[string]any `yaml:"set"`
	// Commits are the untagged commits made before the release's own, after the previous
	// release's, oldest first (optional). Their trees have the overlays of the releases
	// before, not the release's own history/<tag>/.
	Commits []commit `yaml:"commits"`
}

// commit is an intermediate commit: ordinary work between two releases, not tagged.
type commit struct {
	// Date must fall strictly after the previous commit's and before its release's.
	Date    time.Time `yaml:"date"`
	Message string    `yaml:"message"`
	// Set is merged into the features carried forward, as a release's set is: later
	// commits and the release itself see it.
	Set map[string]any `yaml:"set"`
	// Broken gives this commit's tree, and no other, the history's BrokenFile: a Go file
	// that does not compile.
	Broken bool `yaml:"broken"`
}

// otherTag is a tag on a release's commit that is not itself a release.
type otherTag struct {
	Tag string `yaml:"tag"`
	At  string `yaml:"at"`
}

// worktreeLabel is the working tree's version, and the name of its overlay directory.
const worktreeLabel = results.WorktreeLabel

// overlayDir holds the overlays: overlayDir/<tag>/ is laid over the tree from that release
// on, overlayDir/worktree/ over the working tree only.
const overlayDir = "history"

// loadHistory reads and checks a subject's history.yaml: unknown keys are errors.
func loadHistory(subject fs.FS) (*history, error) {
	data, err := fs.ReadFile(subject, historyFile)
	if err != nil {
		return nil, err
	}
	var h history
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%s: %w", historyFile, err)
	}
	if err := h.check(subject); err != nil {
		return nil, fmt.Errorf("%s: %w", historyFile, err)
	}
	return &h, nil
}

func (h *history) check(subject fs.FS) error {
	if len(h.Releases) == 0 {
		return fmt.Errorf("no releases")
	}
	tags := map[string]bool{}
	for i, r := range h.Releases {
		switch {
		case r.Tag == "" || r.Tag == worktreeLabel:
			return fmt.Errorf("releases[%d]: a release needs a tag (not %q)", i, r.Tag)
		case tags[r.Tag]:
			return fmt.Errorf("releases[%d]: tag %s is listed twice", i, r.Tag)
		case r.Date.IsZero():
			return fmt.Errorf("releases[%d] (%s): a release needs a date, so the repository is the same every time", i, r.Tag)
		}
		tags[r.Tag] = true
		if err := h.checkCommits(i); err != nil {
			return err
		}
	}
	if err := h.checkBrokenFile(subject); err != nil {
		return err
	}
	for _, o := range h.Other {
		if !tags[o.At] {
			return fmt.Errorf("otherTags: tag %s is at %s, which is not a release", o.Tag, o.At)
		}
	}
	if err := checkKnownBugs(h.KnownBugs, h.refs()); err != nil {
		return err
	}
	for _, p := range []string{h.FeaturesFile, h.contractPath(), h.templatePath()} {
		if p != "" && !fs.ValidPath(p) {
			return fmt.Errorf("%q is not a clean relative path", p)
		}
	}
	if a := h.Adoption; a != nil {
		for _, p := range append(slices.Clone(a.Files), a.Overlay...) {
			if !fs.ValidPath(p) || p == "." {
				return fmt.Errorf("adoption: %q is not a clean relative path", p)
			}
		}
		if !slices.Contains(a.Files, "skewtest.yaml") {
			return fmt.Errorf("adoption.files must list skewtest.yaml: a release before the adoption has none")
		}
	}
	if c := h.Contract; c != nil {
		if c.Template == "" || c.Path == "" {
			return fmt.Errorf("contract needs template and path")
		}
		if c.ProtocolFrom != nil && (c.ProtocolFrom.Version == "" || c.ProtocolFrom.MinCompatible == "") {
			return fmt.Errorf("contract.protocolFrom needs version and minCompatible: the features that hold them")
		}
	}
	// Every overlay must name a release (or the working tree): a typo would be ignored.
	entries, err := fs.ReadDir(subject, overlayDir)
	if err != nil {
		return nil // no overlays
	}
	for _, e := range entries {
		if !e.IsDir() {
			return fmt.Errorf("%s: only directories named for a release, or worktree", path.Join(overlayDir, e.Name()))
		}
		if !tags[e.Name()] && e.Name() != worktreeLabel {
			return fmt.Errorf("%s/: no release is tagged %s", path.Join(overlayDir, e.Name()), e.Name())
		}
	}
	return nil
}

// checkCommits checks the intermediate commits of releases[i]: each has a message and a
// date strictly after the previous commit's (the previous release's, for the first) and
// before the release's.
func (h *history) checkCommits(i int) error {
	r := h.Releases[i]
	var prev time.Time
	if i > 0 {
		prev = h.Releases[i-1].Date
	}
	for j, c := range r.Commits {
		at := fmt.Sprintf("releases[%d] (%s): commits[%d]", i, r.Tag, j)
		switch {
		case c.Date.IsZero():
			return fmt.Errorf("%s: a commit needs a date, so the repository is the same every time", at)
		case strings.TrimSpace(c.Message) == "":
			return fmt.Errorf("%s: a commit needs a message", at)
		case !c.Date.Before(r.Date):
			return fmt.Errorf("%s: date %s is not before the release's (%s): a release's commits come before it",
				at, c.Date.Format(time.RFC3339), r.Date.Format(time.RFC3339))
		case !prev.IsZero() && !c.Date.After(prev):
			return fmt.Errorf("%s: date %s is not after the previous commit's (%s): list commits oldest first",
				at, c.Date.Format(time.RFC3339), prev.Format(time.RFC3339))
		}
		prev = c.Date
	}
	return nil
}

// broken reports whether a commit of the history is marked broken.
func (h *history) broken() bool {
	for _, r := range h.Releases {
		for _, c := range r.Commits {
			if c.Broken {
				return true
			}
		}
	}
	return false
}

// checkBrokenFile checks brokenFile: given when a commit is broken, a clean path of a Go
// file that neither the subject nor an overlay has (the commit after a broken one drops it).
func (h *history) checkBrokenFile(subject fs.FS) error {
	p := h.BrokenFile
	switch {
	case p == "" && h.broken():
		return fmt.Errorf("a commit is broken: true, but brokenFile does not say where its Go file that does not compile goes")
	case p == "":
		return nil
	case !fs.ValidPath(p) || path.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go"):
		return fmt.Errorf("brokenFile %q: give a clean relative path of a Go file that is not a test", p)
	}
	for _, f := range append([]string{p}, h.overlayPaths(p)...) {
		if _, err := fs.Stat(subject, f); err == nil {
			return fmt.Errorf("brokenFile %s: the subject has %s; pick a name no tree has", p, f)
		}
	}
	return nil
}

// overlayPaths returns where every overlay would hold the file p.
func (h *history) overlayPaths(p string) []string {
	var out []string
	for _, r := range h.Releases {
		out = append(out, path.Join(overlayDir, r.Tag, p))
	}
	return append(out, path.Join(overlayDir, worktreeLabel, p))
}

// refs lists what a build of the written repository can be named by: every tag, and
// worktree.
func (h *history) refs() []string {
	var out []string
	for _, r := range h.Releases {
		out = append(out, r.Tag)
	}
	for _, o := range h.Other {
		out = append(out, o.Tag)
	}
	return append(out, worktreeLabel)
}

// checkAdoptedAt checks Options.AdoptedAt: a release after the first, of a history that
// says what adopting late leaves out.
func (h *history) checkAdoptedAt(tag string) error {
	if tag == "" {
		return nil
	}
	if h.Adoption == nil {
		return usage.Optionf("AdoptedAt", "%s: %s declares no adoption (what a release before it leaves out)", tag, historyFile)
	}
	for i, r := range h.Releases {
		if r.Tag != tag {
			continue
		}
		if i == 0 {
			return usage.Optionf("AdoptedAt", "%s: the first release: no release predates it", tag)
		}
		return nil
	}
	return usage.Optionf("AdoptedAt", "%s: no release is tagged so (releases: %s)", tag, strings.Join(h.refs()[:len(h.Releases)], ", "))
}

func (h *history) contractPath() string {
	if h.Contract == nil {
		return ""
	}
	return h.Contract.Path
}

func (h *history) templatePath() string {
	if h.Contract == nil {
		return ""
	}
	return h.Contract.Template
}
