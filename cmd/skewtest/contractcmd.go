package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/results"
)

// The static tier: contract diff, check and verify (docs/contract.md, "The static tier").

const contractUsage = `Usage:
  skewtest contract diff   [--repo DIR] [--allow RULE[@POINTER]] OLD NEW
  skewtest contract check  --repo DIR [PIN RULES] [--since TAG] [--allow [OLD..NEW:]RULE[@POINTER]]
  skewtest contract verify --repo DIR [--runner local|container] [--cache-dir D] [--timeout D]

OLD and NEW are contract files, "worktree", a REF of --repo (the contract its skewtest.yaml
names, read from git objects) or REF:PATH. Warnings (what a contract leaves undecided) go to
stderr and do not change the exit code. Exit codes: 0 compatible, 1 violations (verify:
differences), 2 bad input, 3 infrastructure error.
`

func cmdContract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, contractUsage)
		return usagef("contract: give diff, check or verify")
	}
	switch args[0] {
	case "diff":
		return cmdContractDiff(ctx, args[1:], stdout, stderr)
	case "check":
		return cmdContractCheck(ctx, args[1:], stdout, stderr)
	case "verify":
		return cmdContractVerify(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, contractUsage)
		return nil
	}
	fmt.Fprint(stderr, contractUsage)
	return usagef("contract: unknown command %q (want diff, check or verify)", args[0])
}

// allowance allows violations of a rule, for every pair or (Old, New set) for one pair of
// builds.
type allowance struct {
	Old, New string
	contract.Allowance
}

// allowFlag collects repeated --allow flags; scoped accepts an OLD..NEW: prefix.
type allowFlag struct {
	list   *[]allowance
	scoped bool
}

func (a allowFlag) String() string {
	if a.list == nil {
		return ""
	}
	var s []string
	for _, al := range *a.list {
		s = append(s, al.String())
	}
	return strings.Join(s, " ")
}

func (a allowFlag) Set(v string) error {
	var al allowance
	rest := v
	if pair, r, ok := strings.Cut(v, ":"); ok && a.scoped && strings.Contains(pair, "..") {
		al.Old, al.New, _ = strings.Cut(pair, "..")
		if al.Old == "" || al.New == "" {
			return fmt.Errorf("%q: the pair is OLD..NEW, such as v1.4.185..v1.4.190", v)
		}
		rest = r
	}
	var err error
	if al.Allowance, err = contract.ParseAllowance(rest); err != nil {
		return err
	}
	*a.list = append(*a.list, al)
	return nil
}

// allowedFor is the DiffOptions.Allowed of one pair of builds.
func allowedFor(list []allowance, older, newer string) func(contract.Violation) bool {
	var as []contract.Allowance
	for _, al := range list {
		if al.Old == "" || (al.Old == older && al.New == newer) {
			as = append(as, al.Allowance)
		}
	}
	return contract.Allowing(as...)
}

// parseInterleaved parses flags that may come before, between or after the positional
// arguments, and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, &exitError{exitOK}
			}
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

type contractDiffOptions struct {
	Repo     string
	Old, New string
	Allow    []allowance
}

func parseContractDiff(args []string, stderr io.Writer) (*contractDiffOptions, error) {
	o := &contractDiffOptions{}
	fs := newFlagSet("contract diff", stderr, "contract diff [--repo DIR] [--allow RULE[@POINTER]] OLD NEW")
	fs.StringVar(&o.Repo, "repo", ".", "the git repository whose refs OLD and NEW may name")
	fs.Var(allowFlag{list: &o.Allow}, "allow", "RULE or RULE@POINTER: leave out the violations of RULE (at POINTER and below); repeatable")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 2 {
		return nil, usagef("contract diff: want OLD and NEW, got %d argument(s)", len(pos))
	}
	o.Old, o.New = pos[0], pos[1]
	return o, nil
}

// cmdContractDiff diffs two contracts by the evolution rules: each violation as
// file:line: rule: message; exit 1 when there is one. NEW's warnings go to stderr.
func cmdContractDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseContractDiff(args, stderr)
	if err != nil {
		return err
	}
	src := &contractSource{repo: o.Repo}
	older, err := src.load(o.Old)
	if err != nil {
		return err
	}
	newer, err := src.load(o.New)
	if err != nil {
		return err
	}
	vs := contract.Diff(older, newer, contract.DiffOptions{Allowed: allowedFor(o.Allow, o.Old, o.New)})
	for _, v := range vs {
		fmt.Fprintln(stdout, v)
	}
	printWarnings(stderr, contract.Warnings(newer))
	if len(vs) == 0 {
		fmt.Fprintf(stdout, "%s → %s: compatible\n", o.Old, o.New)
		return nil
	}
	fmt.Fprintf(stdout, "%s → %s: %s\n", o.Old, o.New, plural(len(vs), "violation"))
	return &exitError{exitFindings}
}

// contractSource reads the contracts named on a command line: files, "worktree", REF or
// REF:PATH of a repository (opened on first use).
type contractSource struct {
	repo string
	cs   *pins.Contracts
}

func (s *contractSource) contracts() (*pins.Contracts, error) {
	if s.cs == nil {
		cs, err := pins.OpenContracts(s.repo)
		if err != nil {
			return nil, err
		}
		s.cs = cs
	}
	return s.cs, nil
}

// load reads and parses the contract arg names; an unreadable or invalid one is a usage
// error (exit 2) that says file and line.
func (s *contractSource) load(arg string) (*contract.Contract, error) {
	cf, err := s.read(arg)
	if err != nil {
		return nil, inputError(err)
	}
	return parseContractFile(cf)
}

func (s *contractSource) read(arg string) (pins.ContractFile, error) {
	st, statErr := os.Stat(arg)
	if statErr == nil && st.Mode().IsRegular() && arg != pins.WorktreeLabel {
		data, err := os.ReadFile(arg)
		if err != nil {
			return pins.ContractFile{}, err
		}
		return pins.ContractFile{Name: arg, Data: data, Files: os.DirFS(filepath.Dir(arg))}, nil
	}
	cs, err := s.contracts()
	if err != nil {
		return pins.ContractFile{}, fmt.Errorf("%q is not a contract file, and --repo %s: %w", arg, s.repo, err)
	}
	if ref, p, ok := strings.Cut(arg, ":"); ok && ref != "" && p != "" {
		return cs.AtPath(ref, p)
	}
	cf, err := cs.Ref(arg)
	if errors.Is(err, pins.ErrUnknownRef) {
		// Neither a file nor a ref: say both, and how to name a contract.
		what := "no such file"
		if statErr == nil {
			what = "a directory, not a file"
		}
		return cf, usagef("%q: %s, and not a tag, branch or commit of --repo %s: name a contract by its file's path, worktree (the working tree's), a tag, branch or commit of --repo, or REF:PATH (docs/contract.md, Commands)",
			arg, what, s.repo)
	}
	return cf, err
}

func parseContractFile(cf pins.ContractFile) (*contract.Contract, error) {
	c, err := contract.Parse(shortPath(cf.Name), cf.Data, contract.WithFiles(cf.Files))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// inputError makes a contract that cannot be found a usage error (exit 2); other errors
// (a repository that cannot be read) keep their code.
func inputError(err error) error {
	if errors.Is(err, pins.ErrNoContract) || errors.Is(err, os.ErrNotExist) {
		return usagef("%v", err)
	}
	return err
}

// shortPath shows a file below the current directory relative to it, as editors and
// terminals link it; other names (REF:PATH) are kept.
func shortPath(name string) string {
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

type contractCheckOptions struct {
	Repo string
	pinFlags
	Since string
	Allow []allowance
}

func parseContractCheck(args []string, stderr io.Writer) (*contractCheckOptions, error) {
	o := &contractCheckOptions{}
	fs := newFlagSet("contract check", stderr, "contract check --repo DIR [--pins REF,...] [--last N] [--window] [--ignore GLOB] [--since TAG] [--allow [OLD..NEW:]RULE[@POINTER]]")
	fs.StringVar(&o.Repo, "repo", "", "the subject's git repository (required)")
	o.registerPins(fs)
	fs.StringVar(&o.Since, "since", "", "check the stable tags from TAG on only (older history is accepted as it is)")
	fs.Var(allowFlag{list: &o.Allow, scoped: true}, "allow", "[OLD..NEW:]RULE[@POINTER]: leave out the violations of RULE (at POINTER and below), for every pair or for OLD → NEW only; repeatable")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if o.Repo == "" {
		return nil, usagef("--repo is required")
	}
	if o.Since != "" {
		if _, err := pins.ParseVersion(o.Since); err != nil {
			return nil, usagef("--since %s: %v", o.Since, err)
		}
	}
	return o, nil
}

// cmdContractCheck diffs every adjacent pair of stable tags, oldest first, and each pin
// (as run chooses them) against the working tree; exit 1 on a violation. Warnings go to
// stderr: after each pair of tags those its newer tag brought, and last every warning of
// the working tree's contract.
func cmdContractCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseContractCheck(args, stderr)
	if err != nil {
		return err
	}
	tags, _, err := pins.StableTags(ctx, o.Repo)
	if err != nil {
		return err
	}
	var since pins.Version
	if o.Since != "" {
		since, _ = pins.ParseVersion(o.Since)
	}
	var pairs []contractPair
	for i := 1; i < len(tags); i++ {
		if o.Since == "" || tags[i-1].Version.Compare(since) >= 0 {
			pairs = append(pairs, contractPair{Old: tags[i-1].Name, OldCommit: tags[i-1].Commit, New: tags[i].Name, NewCommit: tags[i].Commit})
		}
	}
	history := len(pairs)
	sel, err := selectPins(ctx, o.Repo, o.pinFlags.options(), stderr)
	if err != nil {
		return err
	}
	pairs = append(pairs, pinPairs(sel.Pins)...)
	policy, err := contractPolicy(o.Repo, tags)
	if err != nil {
		return err
	}
	cs, err := pins.OpenContracts(o.Repo)
	if err != nil {
		return err
	}
	reviewed, err := loadAllowList(o.Repo)
	if err != nil {
		return err
	}
	res, err := diffPairs(ctx, cs, pairs, func(older, newer string) func(contract.Violation) bool {
		return either(policy(older), allowedFor(o.Allow, older, newer))
	}, reviewed)
	if err != nil {
		return err
	}
	violations, failing, skipped, allowed := 0, 0, 0, 0
	for _, r := range res {
		also := ""
		if len(r.Allowed) > 0 {
			also = fmt.Sprintf(" (%d allowed)", len(r.Allowed))
		}
		switch {
		case r.Skipped != nil:
			fmt.Fprintf(stdout, "%s → %s: not checked: %v\n", r.Old, r.New, r.Skipped)
			skipped++
		case len(r.Violations) == 0:
			fmt.Fprintf(stdout, "%s → %s: compatible%s\n", r.Old, r.New, also)
		default:
			fmt.Fprintf(stdout, "%s → %s: %s%s\n", r.Old, r.New, plural(len(r.Violations), "violation"), also)
			for _, v := range r.Violations {
				fmt.Fprintln(stdout, v)
			}
			violations += len(r.Violations)
			failing++
		}
		for _, v := range r.Allowed {
			fmt.Fprintln(stdout, v)
		}
		allowed += len(r.Allowed)
		if r.New != pins.WorktreeLabel {
			printWarnings(stderr, r.Warnings)
		}
	}
	ws, err := worktreeWarnings(cs)
	if err != nil {
		return err
	}
	printWarnings(stderr, ws)
	for _, w := range reviewed.stale() {
		fmt.Fprintln(stderr, w)
	}
	fmt.Fprintf(stdout, "checked %s and %s against the working tree: ", plural(history, "stable tag pair"), plural(len(res)-history, "pin"))
	notChecked := ""
	if allowed > 0 {
		notChecked += fmt.Sprintf(", %d reviewed and allowed", allowed)
	}
	if skipped > 0 {
		notChecked += fmt.Sprintf(" (%s not checked)", plural(skipped, "pair"))
	}
	if violations == 0 {
		fmt.Fprintf(stdout, "compatible%s\n", notChecked)
		return nil
	}
	fmt.Fprintf(stdout, "%s in %s%s\n", plural(violations, "violation"), plural(failing, "pair"), notChecked)
	return &exitError{exitFindings}
}

// contractPair is an older and a newer build whose contracts are diffed; a zero commit is
// the working tree.
type contractPair struct {
	Old, New             string
	OldCommit, NewCommit plumbing.Hash
}

// pairResult is what diffing one pair found; Skipped says why an old build's contract could
// not be read (its build reports that too). Warnings are the newer contract's that the older
// one does not have (contract.WarningsSince).
type pairResult struct {
	Old, New   string
	Violations []contract.Violation
	// Allowed are the violations the working tree's allow list allows (reviewed findings).
	Allowed  []allowedViolation
	Warnings []contract.Warning
	Skipped  error
}

// pinPairs pairs each pin, as the older build, with the working tree.
func pinPairs(pinned []pins.Pin) []contractPair {
	out := make([]contractPair, 0, len(pinned))
	for _, p := range pinned {
		out = append(out, contractPair{Old: p.Ref, OldCommit: p.Commit, New: pins.WorktreeLabel})
	}
	return out
}

// diffPairs reads each build's contract once (from git objects, no checkout, no process)
// and diffs every pair. The working tree's contract must be readable (else a usage error,
// exit 2); a commit's that cannot be read or parsed skips its pairs.
func diffPairs(ctx context.Context, cs *pins.Contracts, pairs []contractPair, allowed func(older, newer string) func(contract.Violation) bool, reviewed *allowList) ([]pairResult, error) {
	type loaded struct {
		c   *contract.Contract
		err error
	}
	cache := map[plumbing.Hash]loaded{}
	load := func(label string, h plumbing.Hash) (*contract.Contract, error) {
		if l, ok := cache[h]; ok {
			return l.c, l.err
		}
		var l loaded
		cf, err := cs.Worktree()
		if !h.IsZero() {
			cf, err = cs.At(label, h)
		}
		if l.err = err; err == nil {
			l.c, l.err = parseContractFile(cf)
		}
		cache[h] = l
		return l.c, l.err
	}
	var out []pairResult
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := pairResult{Old: p.Old, New: p.New}
		newer, err := load(p.New, p.NewCommit)
		if err != nil && p.NewCommit.IsZero() {
			return nil, inputError(err)
		}
		older, oerr := load(p.Old, p.OldCommit)
		switch {
		case err != nil:
			r.Skipped = err
		case oerr != nil:
			r.Skipped = oerr
		default:
			r.Violations = contract.Diff(older, newer, contract.DiffOptions{Allowed: allowed(p.Old, p.New)})
			r.Violations, r.Allowed = reviewed.split(p.Old, p.New, r.Violations, older, newer)
			r.Warnings = contract.WarningsSince(older, newer)
		}
		out = append(out, r)
	}
	return out, nil
}

// contractCheck is the static tier of run: the working tree's contract against each pin's,
// by the evolution rules, before anything is built. It reads git objects only (no checkout,
// no process), so it takes well under a second. What the working tree's support policy
// allows (declared protocol cuts; command versions of releases it no longer requires) and
// what allowed allows (nil: nothing more) is left out; each other violation is a finding of
// kind contract-violation whose Message says the pair, the rule and what broke, and whose
// Detail says file:line and the pointer; one the allow list of skewtest.yaml allows is a
// finding with Allowed set, which fails nothing, and an entry that allowed nothing among the
// pairs it selects is a warning on stderr. A pin whose contract cannot be read is left out (its
// build reports it); a working tree whose contract cannot be read is an error (exit 2).
func contractCheck(ctx context.Context, repo string, pinned []pins.Pin, allowed func(contract.Violation) bool, stderr io.Writer) ([]results.Finding, error) {
	tags, _, err := pins.StableTags(ctx, repo)
	if err != nil {
		return nil, err
	}
	policy, err := contractPolicy(repo, tags)
	if err != nil {
		return nil, err
	}
	cs, err := pins.OpenContracts(repo)
	if err != nil {
		return nil, err
	}
	reviewed, err := loadAllowList(repo)
	if err != nil {
		return nil, err
	}
	res, err := diffPairs(ctx, cs, pinPairs(pinned), func(older, _ string) func(contract.Violation) bool {
		return either(policy(older), allowed)
	}, reviewed)
	if err != nil {
		return nil, err
	}
	var out []results.Finding
	for _, r := range res {
		for _, v := range r.Violations {
			out = append(out, contractFinding(r.Old, r.New, v))
		}
		for _, v := range r.Allowed {
			f := contractFinding(r.Old, r.New, v.Violation)
			f.Allowed = fmt.Sprintf("%s:%d: %s", builds.ConfigFile, v.Line, v.By.Reason)
			out = append(out, f)
		}
	}
	for _, w := range reviewed.stale() {
		fmt.Fprintln(stderr, w)
	}
	return out, nil
}

// worktreeWarnings returns the warnings of the working tree's contract (contract.Warnings):
// what it leaves undecided. A contract that cannot be read is a usage error (exit 2).
func worktreeWarnings(cs *pins.Contracts) ([]contract.Warning, error) {
	cf, err := cs.Worktree()
	if err != nil {
		return nil, inputError(err)
	}
	c, err := parseContractFile(cf)
	if err != nil {
		return nil, err
	}
	return contract.Warnings(c), nil
}

// contractWarnings prints the working tree contract's warnings on w, for run's static tier:
// they are said, and they fail nothing. A contract that cannot be read is not this
// function's to report (the static tier and the builds say so): it prints nothing then.
func contractWarnings(repo string, w io.Writer) error {
	cs, err := pins.OpenContracts(repo)
	if err != nil {
		return err
	}
	if ws, err := worktreeWarnings(cs); err == nil {
		printWarnings(w, ws)
	}
	return nil
}

// printWarnings prints warnings one a line: file:line: warning: rule: message.
func printWarnings(w io.Writer, ws []contract.Warning) {
	for _, x := range ws {
		fmt.Fprintln(w, x)
	}
}

// contractPolicy returns, per older release, what the working tree's support policy allows
// the static tier (pins.Support.ContractAllowed): declared protocol cuts, and command
// versions only releases it no longer requires called.
func contractPolicy(repo string, tags []pins.Tag) (func(older string) func(contract.Violation) bool, error) {
	cfg, err := builds.LoadWorktreeConfig(repo)
	if err != nil {
		return nil, err
	}
	var support pins.Support
	if cfg != nil {
		support = cfg.Support
	}
	stable := make([]string, len(tags))
	for i, t := range tags {
		stable[i] = t.Name
	}
	return func(older string) func(contract.Violation) bool {
		return support.ContractAllowed(older, stable)
	}, nil
}

// either allows what any of allowed allows (nil allows nothing).
func either(allowed ...func(contract.Violation) bool) func(contract.Violation) bool {
	return func(v contract.Violation) bool {
		for _, a := range allowed {
			if a != nil && a(v) {
				return true
			}
		}
		return false
	}
}

// contractFinding is a violation as a finding of the pair older → newer.
func contractFinding(older, newer string, v contract.Violation) results.Finding {
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

type contractVerifyOptions struct {
	common
}

func parseContractVerify(args []string, stderr io.Writer) (*contractVerifyOptions, error) {
	o := &contractVerifyOptions{}
	fs := newFlagSet("contract verify", stderr, "contract verify --repo DIR [--runner local|container] [--cache-dir D] [--timeout D]")
	fs.StringVar(&o.Repo, "repo", "", "the subject's git repository (required)")
	fs.StringVar(&o.CacheDir, "cache-dir", "", "build cache (default: the user cache directory's skewtest)")
	fs.StringVar(&o.Runner, "runner", runnerLocal, "where the recipe runs: local or container")
	o.Timeout = builds.DefaultContractTimeout
	fs.Var(positiveDuration{&o.Timeout}, "timeout", "how long the contract command may take (default "+builds.DefaultContractTimeout.String()+")")
	fs.BoolVar(&o.Verbose, "v", false, "print build progress")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	return o, o.check()
}

// cmdContractVerify builds the working tree, runs its contractCommand and diffs what the
// code speaks with the committed contract both ways; exit 1 on a difference.
func cmdContractVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseContractVerify(args, stderr)
	if err != nil {
		return err
	}
	root, err := pins.Root(o.Repo)
	if err != nil {
		return err
	}
	cfg, err := builds.LoadConfig(filepath.Join(root, builds.ConfigFile)) // a missing file is an error here
	if err != nil {
		return err
	}
	if len(cfg.ContractCommand) == 0 {
		return usagef("%s names no contractCommand: add one that prints the contract the build speaks, e.g. contractCommand: [\"./driver\", \"contract\"] (docs/subject.md)", builds.ConfigFile)
	}
	src := &contractSource{repo: o.Repo}
	committed, err := src.load(pins.WorktreeLabel)
	if err != nil {
		return err
	}
	b, progress, done, err := newBuilder(ctx, &o.common, stderr)
	if err != nil {
		return err
	}
	built, _, err := buildAll(ctx, b, o.Repo, []builds.Source{builds.Worktree()}, nil, progress)
	done()
	if err != nil {
		return err
	}
	if built[0].Err != nil {
		return built[0].Err
	}
	out, err := cfg.SpeakContract(ctx, built[0].Dir, o.Timeout)
	if err != nil {
		return err
	}
	name := "the output of " + strings.Join(cfg.ContractCommand, " ")
	spoken, err := contract.Parse(name, out, contract.WithFiles(os.DirFS(filepath.Dir(committed.File()))))
	if err != nil {
		return usagef("%v", err)
	}
	// Protocols are compared as they are; the vocabulary is diffed whatever they say (a
	// protocol cut would otherwise hide it).
	protocol := committed.Protocol == spoken.Protocol
	if !protocol {
		fmt.Fprintf(stdout, "%s: the committed contract says %s; the code speaks %s\n", committed.File(), committed.Protocol, spoken.Protocol)
	}
	same := *spoken
	same.Protocol = committed.Protocol
	missing := contract.Diff(&same, committed, contract.DiffOptions{})
	extra := contract.Diff(committed, &same, contract.DiffOptions{})
	report := func(title string, vs []contract.Violation) {
		if len(vs) == 0 {
			return
		}
		fmt.Fprintln(stdout, title)
		for _, v := range vs {
			fmt.Fprintln(stdout, v)
		}
	}
	report("The code speaks what the committed contract lacks (read \"gone\" as \"not in the file\"):", missing)
	report("The committed contract says what the code does not speak (read \"gone\" as \"not spoken\"):", extra)
	if protocol && len(missing)+len(extra) == 0 {
		fmt.Fprintf(stdout, "%s matches what the code speaks\n", committed.File())
		return nil
	}
	return &exitError{exitFindings}
}
