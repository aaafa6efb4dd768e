package example

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/results"
)

// history is a subject's history.yaml.
type history struct {
	Author signature `yaml:"author"`
	// FeaturesFile, when set, is where every tree gets its release's feature table: the
	// releases' `set` maps so far, merged, plus "version" (the tag, or "worktree"), as JSON.
	FeaturesFile string `yaml:"featuresFile"`
	// Contract, when set, derives every tree's wire contract from a template.
	Contract *contractSettings `yaml:"contract"`
	Releases []release         `yaml:"releases"`
	Other    []otherTag        `yaml:"otherTags"`
	Worktree struct {
		Set map[string]any `yaml:"set"`
	} `yaml:"worktree"`
	// KnownBugs are the release-skew bugs the history ships on purpose (optional).
	KnownBugs []KnownBug `yaml:"knownBugs"`
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
