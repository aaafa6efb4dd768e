package subject

// The static tier: contracts diffed by the evolution rules, read from git objects (no
// checkout, no process), and the allow list of reviewed findings (docs/contract.md, "The
// static tier").

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// AllowList is the working tree's skewtest.yaml `allow:` list: static findings the team
// reviewed and accepts. A violation it allows is reported as allowed, with its reason, and
// fails nothing; used remembers which entries allowed something, for the stale ones' warning.
type AllowList struct {
	entries []pins.Reviewed
	lines   []int
	used    []bool
	// covered remembers which entries selected a pair that was diffed at all: an entry whose
	// refs select none of a run's pairs is not judged by that run.
	covered []bool
	// frames are the frame names of the contracts diffed, for a stale entry's did-you-mean.
	frames []string
}

// AllowList reads the working tree's allow list (none without a skewtest.yaml). Each call
// returns a new list: it remembers which entries a command used.
func (s *Subject) AllowList() (*AllowList, error) {
	cfg, err := s.WorktreeConfig()
	if err != nil || cfg == nil {
		return &AllowList{}, err
	}
	a := &AllowList{entries: cfg.Allow, used: make([]bool, len(cfg.Allow)), covered: make([]bool, len(cfg.Allow))}
	for i := range cfg.Allow {
		a.lines = append(a.lines, cfg.AllowLine(i))
	}
	return a, nil
}

// Split separates a pair's violations into those the list allows and the rest.
func (a *AllowList) Split(older, newer string, vs []contract.Violation, oc, nc *contract.Contract) (rest []contract.Violation, allowed []AllowedViolation) {
	if a == nil {
		return vs, nil
	}
	for i := range a.entries {
		if a.entries[i].Covers(older, newer) {
			a.covered[i] = true
		}
	}
	for _, c := range []*contract.Contract{oc, nc} {
		if c == nil {
			continue
		}
		for _, name := range harness.FrameNames(&harness.Build{Contract: c}) {
			if !slices.Contains(a.frames, name) {
				a.frames = append(a.frames, name)
			}
		}
	}
	for _, v := range vs {
		by := -1
		for i := range a.entries {
			if a.entries[i].Allows(older, newer, v, oc, nc) {
				by = i
				break
			}
		}
		if by < 0 {
			rest = append(rest, v)
			continue
		}
		a.used[by] = true
		allowed = append(allowed, AllowedViolation{Violation: v, By: &a.entries[by], Line: a.lines[by]})
	}
	return rest, allowed
}

// Stale lists the entries that selected a pair this command diffed and allowed nothing
// there, as warnings: a reviewed finding that no longer occurs is an entry to remove.
func (a *AllowList) Stale() []string {
	if a == nil {
		return nil
	}
	var out []string
	for i, e := range a.entries {
		if !a.covered[i] || a.used[i] {
			continue
		}
		fix := "remove it, or fix its rule, frame, pointer or refs"
		if e.Frame != "" && len(a.frames) > 0 && !slices.Contains(a.frames, e.Frame) {
			fix = fmt.Sprintf("frame %q is in no contract of the pairs it selects", e.Frame)
			if near := usage.Nearest(e.Frame, a.frames); near != "" {
				fix += fmt.Sprintf(": did you mean %q?", near)
			}
		}
		out = append(out, fmt.Sprintf("%s:%d: warning: allow entry %s matched no finding: %s", builds.ConfigFile, a.lines[i], e.String(), fix))
	}
	return out
}

// AllowedViolation is a violation the allow list allows, with the entry that does.
type AllowedViolation struct {
	contract.Violation
	By   *pins.Reviewed
	Line int // the entry's line in skewtest.yaml
}

func (v AllowedViolation) String() string {
	return fmt.Sprintf("%s (allowed, %s:%d: %s)", v.Violation, builds.ConfigFile, v.Line, v.By.Reason)
}

// ParseContractFile parses a contract file read by Contracts; an invalid one is a usage
// error that says file and line.
func ParseContractFile(cf pins.ContractFile) (*contract.Contract, error) {
	c, err := contract.Parse(ShortPath(cf.Name), cf.Data, cf.Options()...)
	if err != nil {
		return nil, usage.Errorf("%w", err)
	}
	return c, nil
}

// InputError makes a contract that cannot be found a usage error (exit 2); other errors
// (a repository that cannot be read) keep their code.
func InputError(err error) error {
	if errors.Is(err, pins.ErrNoContract) || errors.Is(err, os.ErrNotExist) {
		return usage.Errorf("%w", err)
	}
	return err
}

// ShortPath shows a file below the current directory relative to it, as editors and
// terminals link it; other names (REF:PATH) are kept.
func ShortPath(name string) string {
	if !filepath.IsAbs(name) {
		return name
	}
	wd, err := os.Getwd()
	if err != nil {
		return name
	}
	if rel, err := filepath.Rel(wd, name); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return name
}

// Pair is an older and a newer build whose contracts are diffed; a zero commit is
// the working tree.
type Pair struct {
	Old, New             string
	OldCommit, NewCommit plumbing.Hash
}

// PairResult is what diffing one pair found; Skipped says why an old build's contract could
// not be read (its build reports that too). Warnings are the newer contract's that the older
// one does not have (contract.WarningsSince).
type PairResult struct {
	Old, New   string
	Violations []contract.Violation
	// Allowed are the violations the working tree's allow list allows (reviewed findings).
	Allowed  []AllowedViolation
	Warnings []contract.Warning
	Skipped  error
}

// PinPairs pairs each pin, as the older build, with the working tree.
func PinPairs(pinned []pins.Pin) []Pair {
	out := make([]Pair, 0, len(pinned))
	for _, p := range pinned {
		out = append(out, Pair{Old: p.Ref, OldCommit: p.Commit, New: pins.WorktreeLabel})
	}
	return out
}

// DiffPairs reads each build's contract once, as run reads it (ContractFile: git objects
// and the versions rows, no checkout, no process), and diffs every pair. The working tree's
// contract must be readable (else a usage error, exit 2); a pinned build's that cannot be
// read or parsed skips its pairs, with why and the fix (PairResult.Skipped).
func (s *Subject) DiffPairs(ctx context.Context, pairs []Pair, allowed func(older, newer string) func(contract.Violation) bool, reviewed *AllowList) ([]PairResult, error) {
	type loaded struct {
		c   *contract.Contract
		err error
	}
	type key struct {
		label string // a versions row applies by label
		h     plumbing.Hash
	}
	cache := map[key]loaded{}
	load := func(label string, h plumbing.Hash) (*contract.Contract, error) {
		k := key{label, h}
		if h.IsZero() {
			k.label = ""
		}
		if l, ok := cache[k]; ok {
			return l.c, l.err
		}
		var l loaded
		src := builds.Worktree()
		if !h.IsZero() {
			src = builds.AtCommit(label, h)
		}
		cf, err := s.ContractFile(ctx, src)
		if l.err = err; err == nil {
			l.c, l.err = ParseContractFile(cf)
			if l.err != nil && !h.IsZero() && cf.From == "" {
				l.err = fmt.Errorf("%w: %s", l.err, RowFix(label))
			}
		}
		cache[k] = l
		return l.c, l.err
	}
	var out []PairResult
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := PairResult{Old: p.Old, New: p.New}
		newer, err := load(p.New, p.NewCommit)
		if err != nil && p.NewCommit.IsZero() {
			return nil, InputError(err)
		}
		older, oerr := load(p.Old, p.OldCommit)
		switch {
		case err != nil:
			r.Skipped = err
		case oerr != nil:
			r.Skipped = oerr
		default:
			r.Violations = contract.Diff(older, newer, contract.DiffOptions{Allowed: allowed(p.Old, p.New)})
			r.Violations, r.Allowed = reviewed.Split(p.Old, p.New, r.Violations, older, newer)
			r.Warnings = contract.WarningsSince(older, newer)
		}
		out = append(out, r)
	}
	return out, nil
}

// StaticCheck is the static tier of run: the working tree's contract against each pin's,
// by the evolution rules, before anything is built. It reads git objects only (no checkout,
// no process), so it takes well under a second. What the working tree's support policy
// allows (declared protocol cuts; command versions of releases it no longer requires) and
// what allowed allows (nil: nothing more) is left out; each other violation is a finding of
// kind contract-violation whose Message says the pair, the rule and what broke, and whose
// Detail says file:line and the pointer; one the allow list of skewtest.yaml allows is a
// finding with Allowed set, which fails nothing, and an entry that allowed nothing among the
// pairs it selects is a warning on stderr. A pin whose contract cannot be read is left out (its
// build reports it); a working tree whose contract cannot be read is an error (exit 2).
func (s *Subject) StaticCheck(ctx context.Context, pinned []pins.Pin, allowed func(contract.Violation) bool, stderr io.Writer) ([]results.Finding, error) {
	policy, err := s.ContractPolicy(ctx)
	if err != nil {
		return nil, err
	}
	reviewed, err := s.AllowList()
	if err != nil {
		return nil, err
	}
	res, err := s.DiffPairs(ctx, PinPairs(pinned), func(older, _ string) func(contract.Violation) bool {
		return Either(policy(older), allowed)
	}, reviewed)
	if err != nil {
		return nil, err
	}
	var out []results.Finding
	for _, r := range res {
		for _, v := range r.Violations {
			out = append(out, ContractFinding(r.Old, r.New, v))
		}
		for _, v := range r.Allowed {
			f := ContractFinding(r.Old, r.New, v.Violation)
			f.Allowed = fmt.Sprintf("%s:%d: %s", builds.ConfigFile, v.Line, v.By.Reason)
			out = append(out, f)
		}
	}
	for _, w := range reviewed.Stale() {
		fmt.Fprintln(stderr, w)
	}
	return out, nil
}

// WorktreeWarnings returns the warnings of the working tree's contract (contract.Warnings):
// what it leaves undecided. A contract that cannot be read is a usage error (exit 2).
func WorktreeWarnings(cs *pins.Contracts) ([]contract.Warning, error) {
	cf, err := cs.Worktree()
	if err != nil {
		return nil, InputError(err)
	}
	c, err := ParseContractFile(cf)
	if err != nil {
		return nil, err
	}
	return contract.Warnings(c), nil
}

// Warnings prints the working tree contract's warnings on w, for run's static tier:
// they are said, and they fail nothing. A contract that cannot be read is not this
// function's to report (the static tier and the builds say so): it prints nothing then.
func (s *Subject) Warnings(w io.Writer) error {
	cs, err := s.Contracts()
	if err != nil {
		return err
	}
	if ws, err := WorktreeWarnings(cs); err == nil {
		PrintWarnings(w, ws)
	}
	return nil
}

// PrintWarnings prints warnings one a line: file:line: warning: rule: message.
func PrintWarnings(w io.Writer, ws []contract.Warning) {
	for _, x := range ws {
		fmt.Fprintln(w, x)
	}
}

// ContractPolicy returns, per older release, what the working tree's support policy allows
// the static tier (pins.Support.ContractAllowed): declared protocol cuts, and command
// versions only releases it no longer requires called.
func (s *Subject) ContractPolicy(ctx context.Context) (func(older string) func(contract.Violation) bool, error) {
	tags, err := s.StableTags(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := s.WorktreeConfig()
	if err != nil {
		return nil, err
	}
	var support pins.Support
	if cfg != nil {
		support = cfg.Support
	}
	stable := tagNames(tags)
	return func(older string) func(contract.Violation) bool {
		return support.ContractAllowed(older, stable)
	}, nil
}

// Either allows what any of allowed allows (nil allows nothing).
func Either(allowed ...func(contract.Violation) bool) func(contract.Violation) bool {
	return func(v contract.Violation) bool {
		for _, a := range allowed {
			if a != nil && a(v) {
				return true
			}
		}
		return false
	}
}

// ContractFinding is a violation as a finding of the pair older → newer.
func ContractFinding(older, newer string, v contract.Violation) results.Finding {
	in := older
	if v.In == contract.SideNew {
		in = newer
	}
	return results.Finding{
		Kind:    results.ContractViolation,
		Message: fmt.Sprintf("%s → %s: %s: %s", older, newer, v.Rule, v.Message),
		Detail:  fmt.Sprintf("%s\n%s in the contract of %s", v.Place(), v.Pointer, in),
	}
}
