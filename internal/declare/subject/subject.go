// Package subject is a product under test, opened once: its git repository, its
// skewtest.yaml, its contracts, its lock file and its stable tags. Every part is read on
// first use and kept, so a run that plans, checks and builds reads each file once.
//
// What the subject itself can tell before anything is built lives here too: the journeys
// it lists, the pins its rules select, what each build will be (Describe), and the static
// tier (StaticCheck), which diffs contracts read from git objects.
package subject

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
)

// Subject is a product's repository, opened once. Its methods are safe for concurrent use.
type Subject struct {
	// Dir is the directory the subject was opened at, as given.
	Dir string
	// Repo is its git repository.
	Repo *git.Repository

	mu        sync.Mutex
	config    memo[*builds.Config]
	worktree  memo[*builds.Config]
	contracts memo[*pins.Contracts]
	lock      memo[*pins.Lock]
	tags      memo[[]pins.Tag]
}

// memo is a value read once, with the error reading it gave.
type memo[T any] struct {
	done bool
	v    T
	err  error
}

func (m *memo[T]) get(mu *sync.Mutex, read func() (T, error)) (T, error) {
	mu.Lock()
	defer mu.Unlock()
	if !m.done {
		m.v, m.err = read()
		m.done = true
	}
	return m.v, m.err
}

// Open opens the subject whose repository holds dir. A path that does not exist, or is
// no repository, is an error that says so (pins.ErrNotRepository).
func Open(dir string) (*Subject, error) {
	repo, err := pins.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Subject{Dir: dir, Repo: repo}, nil
}

// Config is the skewtest.yaml in Dir; a missing one is an error (builds.ConfigError).
func (s *Subject) Config() (*builds.Config, error) {
	return s.config.get(&s.mu, func() (*builds.Config, error) {
		return builds.LoadConfig(filepath.Join(s.Dir, builds.ConfigFile))
	})
}

// WorktreeConfig is the skewtest.yaml at the repository's root, nil when there is none:
// its pins, support policy and allow list.
func (s *Subject) WorktreeConfig() (*builds.Config, error) {
	return s.worktree.get(&s.mu, func() (*builds.Config, error) { return builds.LoadWorktreeConfig(s.Dir) })
}

// Contracts reads each build's contract from git objects (the working tree's from disk).
func (s *Subject) Contracts() (*pins.Contracts, error) {
	return s.contracts.get(&s.mu, func() (*pins.Contracts, error) { return pins.OpenContracts(s.Dir) })
}

// Lock is the subject's skewtest.lock, nil when there is none.
func (s *Subject) Lock() (*pins.Lock, error) {
	return s.lock.get(&s.mu, func() (*pins.Lock, error) { return pins.ReadLock(s.Dir) })
}

// StableTags are the repository's stable vX.Y.Z tags, oldest first.
func (s *Subject) StableTags(ctx context.Context) ([]pins.Tag, error) {
	return s.tags.get(&s.mu, func() ([]pins.Tag, error) {
		tags, _, err := pins.StableTags(ctx, s.Dir)
		return tags, err
	})
}

// Journeys reads the journeys named (by their name in skewtest.yaml's journeys list, or by
// file path), else every journey the subject lists. Each is checked against the
// vocabulary before anything is built.
func (s *Subject) Journeys(names []string) ([]*journeys.Journey, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	set, err := journeys.LoadSet(s.Dir, cfg.Journeys)
	if err != nil {
		return nil, err
	}
	js, err := set.Pick(names)
	if err != nil {
		return nil, err
	}
	for _, j := range js {
		if err := harness.Validate(j); err != nil {
			return nil, err
		}
	}
	return js, nil
}

// PinRules returns the pin rules in force: the working tree's pins section overridden by
// flags. The window rule reads each tag's contract through ContractFile, as every command
// does.
func (s *Subject) PinRules(flags pins.Options) (pins.Options, error) {
	cfg, err := s.WorktreeConfig()
	if err != nil {
		return pins.Options{}, err
	}
	opts := flags
	if cfg != nil {
		opts = cfg.Pins.Override(flags)
	}
	opts.ContractOf = func(ctx context.Context, tag string, commit plumbing.Hash) (pins.ContractFile, error) {
		return s.ContractFile(ctx, builds.AtCommit(tag, commit))
	}
	return opts, nil
}

// SelectPins resolves the pins in force and checks them against the lock file, if there
// is one: a pinned tag that moved is refused (pins.ErrMovedTag). Pinned tags the lock
// does not record are named on warn.
func (s *Subject) SelectPins(ctx context.Context, flags pins.Options, warn io.Writer) (pins.Selection, error) {
	opts, err := s.PinRules(flags)
	if err != nil {
		return pins.Selection{}, err
	}
	if opts.Lock, err = s.Lock(); err != nil {
		return pins.Selection{}, err
	}
	sel, err := pins.Resolve(ctx, s.Dir, opts)
	if err != nil {
		return pins.Selection{}, err
	}
	for _, t := range sel.Unlocked {
		fmt.Fprintf(warn, "skewtest: pin %s is not in %s; run `skewtest pins lock` to record it\n", t, pins.LockFile)
	}
	return sel, nil
}

// Resolve resolves one ref, checked against the lock file.
func (s *Subject) Resolve(ctx context.Context, ref string) (pins.Pin, error) {
	lock, err := s.Lock()
	if err != nil {
		return pins.Pin{}, err
	}
	sel, err := pins.Resolve(ctx, s.Dir, pins.Options{Refs: pins.Refs("", ref), Lock: lock})
	if err != nil {
		return pins.Pin{}, err
	}
	return sel.Pins[0], nil
}

// Source resolves a build's ref: "worktree" or a ref of the repository.
func (s *Subject) Source(ctx context.Context, ref string) (builds.Source, error) {
	if ref == builds.WorktreeLabel {
		return builds.Worktree(), nil
	}
	p, err := s.Resolve(ctx, ref)
	if err != nil {
		return builds.Source{}, err
	}
	return builds.AtCommit(p.Ref, p.Commit), nil
}

// Support turns the working tree's support policy into what each pairing of the working
// tree with a release requires; nil without a policy.
func (s *Subject) Support(ctx context.Context) (func(host, client string) checks.Support, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	if cfg.Support.Empty() {
		return nil, nil
	}
	tags, err := s.StableTags(ctx)
	if err != nil {
		return nil, err
	}
	stable := tagNames(tags)
	return func(host, client string) checks.Support {
		var role, label string
		switch {
		case host == pins.WorktreeLabel && client != pins.WorktreeLabel:
			role, label = "client", client
		case client == pins.WorktreeLabel && host != pins.WorktreeLabel:
			role, label = "host", host
		default:
			return checks.Support{}
		}
		required, why, cut := cfg.Support.Requirement(role, label, stable)
		return checks.Support{Required: required, Why: why, Cut: cut, Release: role + " " + label}
	}, nil
}

func tagNames(tags []pins.Tag) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = t.Name
	}
	return out
}
