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

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/matrix"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/subject"
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
	subject.PrintWarnings(stderr, contract.Warnings(newer))
	if len(vs) == 0 {
		fmt.Fprintf(stdout, "%s → %s: compatible\n", o.Old, o.New)
		return nil
	}
	fmt.Fprintf(stdout, "%s → %s: %s\n", o.Old, o.New, matrix.Plural(len(vs), "violation"))
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
		return nil, subject.InputError(err)
	}
	return subject.ParseContractFile(cf)
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
	subj, err := subject.Open(o.Repo)
	if err != nil {
		return err
	}
	tags, err := subj.StableTags(ctx)
	if err != nil {
		return err
	}
	var since pins.Version
	if o.Since != "" {
		since, _ = pins.ParseVersion(o.Since)
	}
	var pairs []subject.Pair
	for i := 1; i < len(tags); i++ {
		if o.Since == "" || tags[i-1].Version.Compare(since) >= 0 {
			pairs = append(pairs, subject.Pair{Old: tags[i-1].Name, OldCommit: tags[i-1].Commit, New: tags[i].Name, NewCommit: tags[i].Commit})
		}
	}
	history := len(pairs)
	sel, err := subj.SelectPins(ctx, o.pinFlags.options(), stderr)
	if err != nil {
		return err
	}
	pairs = append(pairs, subject.PinPairs(sel.Pins)...)
	policy, err := subj.ContractPolicy(ctx)
	if err != nil {
		return err
	}
	cs, err := subj.Contracts()
	if err != nil {
		return err
	}
	reviewed, err := subj.AllowList()
	if err != nil {
		return err
	}
	res, err := subject.DiffPairs(ctx, cs, pairs, func(older, newer string) func(contract.Violation) bool {
		return subject.Either(policy(older), allowedFor(o.Allow, older, newer))
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
			fmt.Fprintf(stdout, "%s → %s: %s%s\n", r.Old, r.New, matrix.Plural(len(r.Violations), "violation"), also)
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
			subject.PrintWarnings(stderr, r.Warnings)
		}
	}
	ws, err := subject.WorktreeWarnings(cs)
	if err != nil {
		return err
	}
	subject.PrintWarnings(stderr, ws)
	for _, w := range reviewed.Stale() {
		fmt.Fprintln(stderr, w)
	}
	fmt.Fprintf(stdout, "checked %s and %s against the working tree: ", matrix.Plural(history, "stable tag pair"), matrix.Plural(len(res)-history, "pin"))
	notChecked := ""
	if allowed > 0 {
		notChecked += fmt.Sprintf(", %d reviewed and allowed", allowed)
	}
	if skipped > 0 {
		notChecked += fmt.Sprintf(" (%s not checked)", matrix.Plural(skipped, "pair"))
	}
	if violations == 0 {
		fmt.Fprintf(stdout, "compatible%s\n", notChecked)
		return nil
	}
	fmt.Fprintf(stdout, "%s in %s%s\n", matrix.Plural(violations, "violation"), matrix.Plural(failing, "pair"), notChecked)
	return &exitError{exitFindings}
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
	built, _, err := matrix.BuildAll(ctx, b, o.Repo, []builds.Source{builds.Worktree()}, nil, progress)
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
