package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/results"
)

// cmdContractInfer drafts a contract from recorded frames, or compares one with them
// (package infer).
func cmdContractInfer(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var repo, out, outDir, against string
	fs := newFlagSet("contract infer", stderr, "contract infer [-o FILE | --out DIR | --against CONTRACT [--repo DIR]] DIR…")
	fs.StringVar(&out, "o", "skewtest-contract.draft.json", "write the draft to `FILE` (- for standard output) and its report beside it, FILE with .txt for .json")
	fs.StringVar(&outDir, "out", "", "write one draft per recorded build to `DIR`, LABEL.json and its report LABEL.txt, each from the frames that build sent")
	fs.StringVar(&against, "against", "", "draft nothing: list where `CONTRACT` and the traffic disagree (named as for contract diff)")
	fs.StringVar(&repo, "repo", ".", "the git repository whose refs --against may name")
	pos, err := parse(fs, args, anyArgs)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case len(pos) == 0:
		return usagef("contract infer: give the recordings: report directories, pairing directories, transcript files or fixtures directories")
	case set["out"] && (set["o"] || set["against"]), set["o"] && set["against"]:
		return usagef("contract infer: give one of -o, --out and --against")
	}
	recs, err := infer.Load(pos...)
	if err != nil {
		return err
	}
	if against != "" {
		c, err := (&contractSource{repo: repo}).load(against)
		if err != nil {
			return err
		}
		cmp := infer.Against(c, recs)
		if err := cmp.Write(stdout); err != nil {
			return err
		}
		if cmp.Disagree() {
			return &exitError{exitFindings}
		}
		return nil
	}
	if outDir != "" {
		return inferPerBuild(recs, outDir, stdout)
	}
	r, err := infer.Draft(recs)
	if err != nil {
		return err
	}
	if out == "-" {
		if _, err := stdout.Write(r.Document); err != nil {
			return err
		}
		if err := r.Report(stderr); err != nil {
			return err
		}
	} else {
		report, err := r.WriteFile(out)
		if err != nil {
			return err
		}
		if err := r.Report(stdout); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (report: %s)\n", out, report)
	}
	if len(r.Unread) > 0 {
		return &exitError{exitFindings}
	}
	return nil
}

// inferPerBuild writes one draft per build, from the frames it sent, and says where.
func inferPerBuild(recs []infer.Recording, dir string, stdout io.Writer) error {
	drafts, err := infer.PerBuild(recs, dir)
	if err != nil {
		return err
	}
	unread := 0
	for _, d := range drafts {
		fmt.Fprintf(stdout, "%s: %s, from %s it sent (report: %s)\n", d.Label, d.File, results.Plural(d.Messages, "message"), d.Report)
		for _, u := range d.Unread {
			fmt.Fprintf(stdout, "  not read: %s\n", u)
		}
		unread += len(d.Unread)
	}
	if unread > 0 {
		return &exitError{exitFindings}
	}
	return nil
}
