package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/results"
)

type contractCheckOptions struct {
	Repo string
	pinFlags
	Since  string
	Allow  []allowance
	Strict bool
}

func parseContractCheck(args []string, stderr io.Writer) (*contractCheckOptions, error) {
	o := &contractCheckOptions{}
	fs := newFlagSet("contract check", stderr, "contract check --repo DIR [--pins REF,...] [--last N] [--window] [--ignore GLOB] [--since TAG] [--allow [OLD..NEW:]RULE[@POINTER]] [--strict]")
	fs.StringVar(&o.Repo, "repo", "", "the subject's git repository (required)")
	o.registerPins(fs)
	fs.StringVar(&o.Since, "since", "", "check the stable tags from TAG on only (older history is accepted as it is)")
	fs.Var(allowFlag{list: &o.Allow, scoped: true}, "allow", "[OLD..NEW:]RULE[@POINTER]: leave out the violations of RULE (at POINTER and below), for every pair or for OLD → NEW only; repeatable")
	fs.BoolVar(&o.Strict, "strict", false, "a pair whose contracts cannot be read is an error (exit 2) instead of a warning")
	if _, err := parse(fs, args, exactly(0)); err != nil {
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
// (as run chooses them) against the working tree, each build's contract read as run reads
// it (subject.ContractFile); exit 1 on a violation. Warnings go to stderr: a pair that
// could not be checked, with the fix (--strict: exit 2 once everything is printed); after
// each pair of tags the contract warnings its newer tag brought; last every warning of the
// working tree's contract.
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
	reviewed, err := subj.AllowList()
	if err != nil {
		return err
	}
	res, err := subj.DiffPairs(ctx, pairs, func(older, newer string) func(contract.Violation) bool {
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
			fmt.Fprintf(stdout, "%s → %s: %s%s\n", r.Old, r.New, results.Plural(len(r.Violations), "violation"), also)
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
	cs, err := subj.Contracts()
	if err != nil {
		return err
	}
	ws, err := subject.WorktreeWarnings(cs)
	if err != nil {
		return err
	}
	subject.PrintWarnings(stderr, ws)
	for _, w := range reviewed.Stale() {
		fmt.Fprintln(stderr, w)
	}
	if skipped > 0 {
		// Not a finding, and not a pass: each line above names the fix.
		fmt.Fprintf(stderr, "skewtest: warning: %s not checked, so their verdict is not known (each says why and the fix); --strict makes this an error\n", results.Plural(skipped, "pair"))
	}
	fmt.Fprintf(stdout, "checked %s and %s against the working tree: ", results.Plural(history, "stable tag pair"), results.Plural(len(res)-history, "pin"))
	notChecked := ""
	if allowed > 0 {
		notChecked += fmt.Sprintf(", %d reviewed and allowed", allowed)
	}
	if skipped > 0 {
		notChecked += fmt.Sprintf(" (%s not checked)", results.Plural(skipped, "pair"))
	}
	if violations == 0 {
		fmt.Fprintf(stdout, "compatible%s\n", notChecked)
	} else {
		fmt.Fprintf(stdout, "%s in %s%s\n", results.Plural(violations, "violation"), results.Plural(failing, "pair"), notChecked)
	}
	if skipped > 0 && o.Strict {
		// A configuration to complete (exit 2), not a compatibility finding.
		return usagef("--strict: %s not checked: give each build a contract (the lines above name the fix)", results.Plural(skipped, "pair"))
	}
	if violations > 0 {
		return &exitError{exitFindings}
	}
	return nil
}
