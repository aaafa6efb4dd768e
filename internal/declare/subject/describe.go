package subject

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// Describe reads, for every source, what a plan needs without building anything: its
// skewtest.yaml (the drivers' kinds) and its contract (the frame names, read as
// ContractFile reads it), from git objects, the working tree's from disk. The builds returned have no Dir: they plan, they do not
// run. A pin whose contract cannot be read is returned with Err set (its pairings become
// errors, as a build that fails does); the working tree's is the user's file, so a
// problem with it is a configuration error naming that file.
func (s *Subject) Describe(ctx context.Context, srcs []builds.Source) ([]*harness.Build, error) {
	cs, err := s.Contracts()
	if err != nil {
		return nil, err
	}
	var out []*harness.Build
	for _, src := range srcs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := builds.Describe(ctx, s.Dir, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src.Label, err)
		}
		cfg := d.Config
		b := &harness.Build{Label: d.Label, Revision: d.Revision, Host: cfg.Drivers.Host, Clients: cfg.Drivers.Clients,
			DriverAt: d.DriverAt, Journeys: src.IsWorktree(), Transport: cfg.Transport()}
		// The one answer to which contract a build speaks (ContractFile).
		var cf pins.ContractFile
		if src.IsWorktree() {
			cf, err = cs.Worktree()
		} else {
			cf, err = contractFile(ctx, cs, src, d)
		}
		if err == nil {
			b.ContractFrom = cf.From
			b.Contract, err = contract.Parse(cf.Name, cf.Data, cf.Options()...)
		}
		if err != nil {
			err = fmt.Errorf("%s: contract: %w", src.Label, err)
			if src.IsWorktree() {
				// The user's own file: a configuration error (exit 2), before any build.
				return nil, usage.Errorf("%w", err)
			}
			b.Err = err
		}
		out = append(out, b)
	}
	return out, nil
}

// WorktreeContract is the working tree's contract, as a build that holds only it, when the
// working tree is not one of srcs: the journeys are the working tree's, so a frame or a
// command only it knows (named in a condition that holds only where a build knows it) is
// no typo. Nil when the working tree is built anyway or its contract cannot be read
// (nothing of the run depends on it then).
func (s *Subject) WorktreeContract(srcs []builds.Source) *harness.Build {
	for _, src := range srcs {
		if src.IsWorktree() {
			return nil
		}
	}
	cs, err := s.Contracts()
	if err != nil {
		return nil
	}
	cf, err := cs.Worktree()
	if err != nil {
		return nil
	}
	c, err := contract.Parse(cf.Name, cf.Data, cf.Options()...)
	if err != nil {
		return nil
	}
	return &harness.Build{Contract: c}
}

// CheckBeforeBuilding refuses, before anything is built, what the builds' own files
// already show to be wrong: a kind no build has a driver for, a frame name in a
// journey, or a command id in a command condition, that no contract of the run's builds
// declares, nor the working tree's (whose journeys they are: worktree holds its contract
// when it is not one of the builds, else nil), and a frame condition whose channel those
// contracts do not decide (harness.CheckChannels).
func CheckBeforeBuilding(kinds []string, js []*journeys.Journey, described []*harness.Build, worktree *harness.Build) error {
	have := harness.KindsOf(described...)
	for _, k := range kinds {
		if !slices.Contains(have, k) {
			return usage.Optionf("Kinds", "%s: no build of this run has a %s client driver in its %s (they have %s)",
				k, k, builds.ConfigFile, OrNone(have))
		}
	}
	var labels []string
	for _, b := range described {
		labels = append(labels, b.Label)
	}
	all := described
	if worktree != nil {
		all = append(slices.Clip(described), worktree)
		labels = append(labels, "and the working tree")
	}
	known, commands := harness.FrameNames(all...), harness.CommandNames(all...)
	if len(known) == 0 {
		return nil // no contract could be read: the builds' errors say why
	}
	whose := "the builds " + strings.Join(labels, ", ")
	for _, j := range js {
		if err := harness.CheckNames(j, known, whose); err != nil {
			return err
		}
		if err := harness.CheckCommands(j, commands, whose); err != nil {
			return err
		}
		if err := harness.CheckWhere(j, harness.WhereKeys(all...), whose); err != nil {
			return err
		}
		if err := harness.CheckChannels(j, all...); err != nil {
			return err
		}
	}
	return nil
}

// WarnBeforeBuilding prints on w, before anything is built, what the builds' own files show
// will fail on every run without being wrong: frames a journey waits for that only some of
// the builds' contracts declare (harness.PartialNames). Warnings fail nothing.
func WarnBeforeBuilding(w io.Writer, js []*journeys.Journey, described []*harness.Build) {
	for _, j := range js {
		for _, m := range harness.PartialNames(j, described) {
			fmt.Fprintln(w, "warning: "+m)
		}
	}
}

// OrNone lists kinds, or says "no kind".
func OrNone(s []string) string {
	if len(s) == 0 {
		return "no kind"
	}
	return strings.Join(s, ", ")
}
