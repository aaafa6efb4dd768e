package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/results"
)

// The static tier: contract diff, check and verify (docs/contract.md, "The static tier").

const contractUsage = `Usage:
  skewtest contract diff   [--repo DIR] [--allow RULE[@POINTER]] OLD NEW
  skewtest contract check  --repo DIR [PIN RULES] [--since TAG] [--allow [OLD..NEW:]RULE[@POINTER]] [--strict]
  skewtest contract verify --repo DIR [--runner local|container] [--cache-dir D] [--timeout D]
  skewtest contract decode [--repo DIR] [--dir H>C|C>H] [--path P] [--json] CONTRACT [FILE|-]
  skewtest contract infer  [-o FILE | --out DIR | --against CONTRACT] DIR…   draft a contract from recorded frames
  skewtest contract descriptor [-I DIR]… -o FILE.binpb FILE.proto…   compile .proto files into a descriptor set

OLD and NEW are contract files, "worktree", a REF of --repo (its contract as run reads it:
a versions row's, else the one its skewtest.yaml names, read from git objects) or REF:PATH.
Warnings (what a contract leaves undecided) go to stderr and do not change the exit code;
so do check's pairs whose contracts cannot be read (--strict: exit 2). Exit codes: 0
compatible, 1 violations (verify: differences), 2 bad input, 3 infrastructure error.
`

func cmdContract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, contractUsage)
		return usagef("contract: give diff, check, verify, decode, infer or descriptor")
	}
	switch args[0] {
	case "diff":
		return cmdContractDiff(ctx, args[1:], stdout, stderr)
	case "check":
		return cmdContractCheck(ctx, args[1:], stdout, stderr)
	case "verify":
		return cmdContractVerify(ctx, args[1:], stdout, stderr)
	case "decode":
		return cmdContractDecode(ctx, args[1:], stdout, stderr)
	case "infer":
		return cmdContractInfer(ctx, args[1:], stdout, stderr)
	case "descriptor":
		return cmdContractDescriptor(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, contractUsage)
		return nil
	}
	if err := didYouMean("contract", args[0], subcommands("contract")); err != nil {
		return err
	}
	fmt.Fprint(stderr, contractUsage)
	return usagef("contract: unknown command %q (want diff, check, verify, decode, infer or descriptor)", args[0])
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
	pos, err := parse(fs, args, anyArgs)
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
	fmt.Fprintf(stdout, "%s → %s: %s\n", o.Old, o.New, results.Plural(len(vs), "violation"))
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
		return pins.ContractFile{Name: arg, Data: data, Files: os.DirFS(filepath.Dir(arg)), Sources: contract.DiskSources(arg)}, nil
	}
	cs, err := s.contracts()
	if err != nil {
		return pins.ContractFile{}, fmt.Errorf("%q is not a contract file, and --repo %s: %w", arg, s.repo, err)
	}
	if ref, p, ok := strings.Cut(arg, ":"); ok && ref != "" && p != "" {
		return cs.AtPath(ref, p)
	}
	if arg == pins.WorktreeLabel {
		return cs.Worktree()
	}
	subj, err := subject.Open(s.repo)
	if err != nil {
		return pins.ContractFile{}, err
	}
	// A ref's contract as run reads it: its versions row's, else its own checkout's.
	h, err := pins.ResolveCommit(subj.Repo, s.repo, arg)
	var cf pins.ContractFile
	if err == nil {
		cf, err = subj.ContractFile(context.Background(), builds.AtCommit(arg, h))
	}
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
