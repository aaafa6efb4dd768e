package builds

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

// plan is what Build knows about a source before building it.
type plan struct {
	label    string
	revision string
	dirty    bool // the working tree's files are not its revision's

	tree        string // the key's tree part
	overlay     string // the key's overlay part: "" or the overlay paths and content digest
	config      *Config
	rule        *VersionRule // the working tree's versions row that applies, or nil
	notes       []string     // written at the top of build.log
	materialize func(ctx context.Context, dst string) error

	toolchain, toolchainName string // set by Build
}

// planCommit reads a commit's tree and its skewtest.yaml from the object database, and
// applies the working tree's versions row that covers src's label, if any: its recipe, its
// toolchain name and its overlays. The key uses the git tree hash and the overlays'
// content digest, so nothing is written when the build is cached.
func planCommit(ctx context.Context, repo *git.Repository, src Source, cacheDir string) (*plan, error) {
	cf, err := readCommit(repo, src)
	if err != nil {
		return nil, err
	}
	commit, tree, own, subject, subjectPath := cf.commit, cf.tree, cf.own, cf.subject, cf.subjectPath
	p := &plan{
		label:    src.Label,
		revision: commit.Hash.String(),
		tree:     "git:" + tree.Hash.String(),
		config:   own,
		materialize: func(ctx context.Context, dst string) error {
			return writeTree(ctx, tree, dst)
		},
	}
	var through string
	if subject != nil {
		if p.rule, through, err = matchRow(ctx, repo, subject.Versions, src); err != nil {
			return nil, err
		}
	}
	at := ""
	if p.rule != nil {
		at = fmt.Sprintf("%s:%d", subjectPath, p.rule.Line)
		note := fmt.Sprintf("versions row %q (%s) applies", p.rule.Range, at)
		if through != src.Label {
			note += " through " + through + ", the nearest stable tag below " + src.Label
		}
		p.notes = append(p.notes, note)
	}
	if own == nil {
		if p.config, err = borrowedConfig(src, subject, p.rule); err != nil {
			return nil, err
		}
		p.notes = append(p.notes, "no "+ConfigFile+" in "+src.Label+": built with the working tree's")
	}
	if p.rule != nil && p.rule.Recipe != nil {
		c := *p.config
		c.Build.Steps = p.rule.Recipe
		p.config = &c
		p.notes = append(p.notes, "recipe from the versions row replaces build.steps")
	}
	if p.rule != nil && len(p.rule.Overlay) > 0 {
		// The fixtures directory is never laid over an old checkout, nor part of its key:
		// `skewtest record` writes there, and must not make every old tag build again.
		snap, err := scanWorktree(ctx, repo, scanOptions{exclude: []string{cacheDir}, within: p.rule.Overlay,
			skip: []string{path.Clean(filepath.ToSlash(subject.FixturesDir()))}})
		if err != nil {
			return nil, err
		}
		for _, o := range p.rule.Overlay {
			if !snap.has(o) {
				return nil, &ConfigError{File: subjectPath, Line: p.rule.Line, Msg: fmt.Sprintf(
					"versions row %q: overlay %q is not in the working tree (or is ignored by .gitignore)", p.rule.Range, o)}
			}
		}
		p.overlay = strings.Join(p.rule.Overlay, ",") + " sha256:" + snap.digest
		overlays := p.rule.Overlay
		p.notes = append(p.notes, "overlay from the working tree: "+strings.Join(overlays, ", "))
		p.materialize = func(ctx context.Context, dst string) error {
			if err := writeTree(ctx, tree, dst); err != nil {
				return err
			}
			for _, o := range overlays {
				if err := removeAll(filepath.Join(dst, filepath.FromSlash(o))); err != nil {
					return fmt.Errorf("overlay %s: %w", o, err)
				}
			}
			if err := snap.write(ctx, dst); err != nil {
				return fmt.Errorf("overlay: %w", err)
			}
			return nil
		}
	}
	return p, nil
}

// commitConfig reads and parses the skewtest.yaml of a commit's tree; nil when it has
// none.
func commitConfig(tree *object.Tree, label string) (*Config, error) {
	name := label + ":" + ConfigFile
	f, err := tree.File(ConfigFile)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := f.Contents()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return ParseConfig(name, []byte(data))
}

// loadSubjectConfig reads the working tree's skewtest.yaml, whose versions table applies
// to every commit build; nil when there is none.
func loadSubjectConfig(p string) (*Config, error) {
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return LoadConfig(p)
}

// LoadWorktreeConfig reads the skewtest.yaml at the root of the working tree of the
// repository containing repoDir: the one whose pins section and versions table apply.
// It returns nil, and no error, when the working tree has none.
func LoadWorktreeConfig(repoDir string) (*Config, error) {
	root, err := pins.Root(repoDir)
	if err != nil {
		return nil, err
	}
	return loadSubjectConfig(filepath.Join(root, ConfigFile))
}

// planWorktree hashes the working tree and reads its skewtest.yaml. The cache directory is
// left out of the tree should it live inside the working tree, and so are skewtest.lock,
// which is about the tags, not the product (`skewtest pins lock` rebuilds nothing), and the
// fixtures directory (`skewtest record` rebuilds nothing).
func planWorktree(ctx context.Context, repo *git.Repository, label, cacheDir string) (*plan, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open working tree: %w", err)
	}
	// Neither skewtest.lock nor the fixtures (skewtest record) are the product: recording
	// a release's fixtures rebuilds nothing.
	root := wt.Filesystem.Root()
	c, _ := loadSubjectConfig(filepath.Join(root, ConfigFile)) // a bad one is reported below
	exclude := []string{cacheDir, filepath.Join(root, pins.LockFile), filepath.Join(root, c.FixturesDir())}
	snap, err := scanWorktree(ctx, repo, scanOptions{exclude: exclude})
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(filepath.Join(snap.root, ConfigFile))
	if err != nil {
		return nil, err
	}
	revision, dirty := "", true
	if head, err := repo.Head(); err == nil {
		revision = head.Hash().String()
		if dirty, err = changedSince(repo, head.Hash(), snap, root, exclude); err != nil {
			return nil, fmt.Errorf("compare the working tree with HEAD: %w", err)
		}
	}
	return &plan{
		label:       label,
		revision:    revision,
		dirty:       dirty,
		tree:        "worktree-sha256:" + snap.digest,
		config:      cfg,
		materialize: snap.write,
	}, nil
}

// changedSince reports whether the working tree's snapshot differs from commit's tree,
// leaving out the excluded paths (absolute) the snapshot left out.
func changedSince(repo *git.Repository, commit plumbing.Hash, snap *worktreeSnapshot, root string, exclude []string) (bool, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return false, err
	}
	tree, err := c.Tree()
	if err != nil {
		return false, err
	}
	var skip []string
	for _, x := range exclude {
		if rel, err := filepath.Rel(root, x); err == nil && !strings.HasPrefix(rel, "..") {
			skip = append(skip, filepath.ToSlash(rel))
		}
	}
	return snap.differsFrom(tree, func(rel string) bool { return within(rel, skip) })
}

// within reports whether rel (slash-separated) is one of roots or under one.
func within(rel string, roots []string) bool {
	for _, r := range roots {
		if rel == r || strings.HasPrefix(rel, r+"/") {
			return true
		}
	}
	return false
}

// onTheWay reports whether the directory rel leads to one of roots.
func onTheWay(rel string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(r, rel+"/") {
			return true
		}
	}
	return false
}

// DriverAt says where a driver is declared, "skewtest.yaml:9": the host's for kind "",
// else the client's of kind.
func (d *Description) DriverAt(kind string) string {
	return fmt.Sprintf("%s:%d", d.ConfigFile, d.Config.DriverLine(kind))
}

// Description is what a plan needs of a source, read without building it: its own
// skewtest.yaml from the object database (the working tree's from disk) and the versions
// row that applies to it.
type Description struct {
	Label    string
	Revision string // the commit, or WorktreeLabel
	Config   *Config
	Version  *VersionRule
	// ConfigFile names the skewtest.yaml that Config comes from as the user knows it: the
	// working tree's path, or git's "REF:skewtest.yaml".
	ConfigFile string
	// ContractInWorktree says the versions row overlays the contract's path from the
	// working tree: the build's contract is the working tree's file, not the commit's.
	ContractInWorktree bool
}

// Describe reads the configuration a build of src will have, as Build reads it, without
// materializing, hashing or building anything: what `skewtest plan` and the checks made
// before the first build need (the drivers' kinds, the contract's path).
func Describe(ctx context.Context, repoDir string, src Source) (*Description, error) {
	if src.Label == "" {
		src.Label = WorktreeLabel
	}
	repo, err := pins.Open(repoDir)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open working tree: %w", err)
	}
	subjectPath := filepath.Join(wt.Filesystem.Root(), ConfigFile)
	if src.IsWorktree() {
		cfg, err := LoadConfig(subjectPath)
		if err != nil {
			return nil, err
		}
		return &Description{Label: src.Label, Revision: WorktreeLabel, Config: cfg, ConfigFile: subjectPath}, nil
	}
	cf, err := readCommit(repo, src)
	if err != nil {
		return nil, err
	}
	commit, own, subject := cf.commit, cf.own, cf.subject
	d := &Description{Label: src.Label, Revision: commit.Hash.String(), Config: own, ConfigFile: src.Label + ":" + ConfigFile}
	if subject != nil {
		if d.Version, _, err = matchRow(ctx, repo, subject.Versions, src); err != nil {
			return nil, err
		}
	}
	if own == nil {
		if d.Config, err = borrowedConfig(src, subject, d.Version); err != nil {
			return nil, err
		}
		d.ConfigFile = subjectPath
	}
	if d.Version != nil && within(path.Clean(filepath.ToSlash(d.Config.Contract)), d.Version.Overlay) {
		d.ContractInWorktree = true
	}
	return d, nil
}

// commitFiles is what planning a pinned commit reads: the commit, its tree, its own
// skewtest.yaml (nil without one) and the working tree's (nil without one), whose versions
// table applies to it, with that file's path.
type commitFiles struct {
	commit       *object.Commit
	tree         *object.Tree
	own, subject *Config
	subjectPath  string
}

func readCommit(repo *git.Repository, src Source) (*commitFiles, error) {
	commit, err := repo.CommitObject(src.Commit)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", src.Commit, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of commit %s: %w", src.Commit, err)
	}
	own, err := commitConfig(tree, src.Label)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open working tree: %w", err)
	}
	subjectPath := filepath.Join(wt.Filesystem.Root(), ConfigFile)
	subject, err := loadSubjectConfig(subjectPath)
	if err != nil {
		return nil, err
	}
	return &commitFiles{commit: commit, tree: tree, own: own, subject: subject, subjectPath: subjectPath}, nil
}

// matchRow returns the versions row that applies to src, and the label it matched by: src's
// own for a release tag, else the nearest stable tag below its commit (pins.RowLabel), so a
// commit between two old tags (a bisect candidate) builds as the older tag does.
func matchRow(ctx context.Context, repo *git.Repository, vs Versions, src Source) (*VersionRule, string, error) {
	label, err := pins.RowLabel(ctx, repo, src.Label, src.Commit)
	if err != nil || label == "" {
		return nil, "", err
	}
	return vs.Match(label), label, nil
}

// borrowedConfig is the configuration of a commit that has no skewtest.yaml: the working
// tree's, when a versions row covers the commit (rule), without its pins and versions.
func borrowedConfig(src Source, subject *Config, rule *VersionRule) (*Config, error) {
	if rule == nil {
		return nil, &ConfigError{File: src.Label + ":" + ConfigFile, Msg: "not found: a subject needs " + ConfigFile +
			" at the root of its repository; to build a tag cut before the subject adopted skewtest with the working tree's " +
			ConfigFile + ", add a versions row whose range covers it (see docs/subject.md)"}
	}
	c := *subject
	c.Pins, c.Versions = pins.Options{}, nil
	return &c, nil
}
