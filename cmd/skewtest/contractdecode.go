package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/results"
)

// cmdContractDecode reads sample frames with a contract, offline (package samples).
func cmdContractDecode(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		repo, kind string
		d          samples.Defaults
		asJSON     bool
	)
	fs := newFlagSet("contract decode", stderr, "contract decode [--repo DIR] [--dir H>C|C>H] [--path P] [--kind K] [--json] CONTRACT [FILE|-]")
	fs.StringVar(&repo, "repo", ".", "the git repository whose refs CONTRACT may name")
	fs.StringVar(&d.Dir, "dir", "", "the direction of sample lines that name none: H>C or C>H")
	fs.StringVar(&d.Path, "path", "", "the WebSocket path of sample lines that name none (default: the contract's path when it has one)")
	fs.StringVar(&kind, "kind", "", "the client kind, for a contract whose frames depend on it")
	fs.BoolVar(&asJSON, "json", false, "write the frames and what was read from them as one JSON document")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("contract decode: want CONTRACT and a file of samples (or - or nothing for standard input), got %d argument(s)", len(pos))
	}
	if d.Dir != "" && d.Dir != "H>C" && d.Dir != "C>H" {
		return usagef("contract decode: --dir %q: want H>C or C>H", d.Dir)
	}
	c, err := (&contractSource{repo: repo}).load(pos[0])
	if err != nil {
		return err
	}
	d = samples.DefaultsFor(c, d)
	from := "-"
	if len(pos) == 2 {
		from = pos[1]
	}
	frames, err := samples.Read(from, os.Stdin, d)
	if err != nil {
		return err
	}
	t, unread := samples.Decode(c, frames, kind)
	if err := reports.Transcript(stdout, t, reports.TranscriptOptions{JSON: asJSON}); err != nil {
		return err
	}
	if asJSON {
		if len(unread) > 0 {
			return &exitError{exitFindings}
		}
		return nil
	}
	for _, u := range unread {
		fmt.Fprintf(stdout, "not read: %s\n", u)
	}
	if len(unread) > 0 {
		fmt.Fprintf(stdout, "%s: %s of %s not read\n", pos[0], results.Plural(len(unread), "frame"), results.Plural(len(frames), "message"))
		return &exitError{exitFindings}
	}
	fmt.Fprintf(stdout, "%s: every frame of %s read\n", pos[0], results.Plural(len(frames), "message"))
	return nil
}
