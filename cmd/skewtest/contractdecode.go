package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// contractDecodeOptions are the flags of contract decode and its arguments.
type contractDecodeOptions struct {
	Repo, Kind string
	Defaults   samples.Defaults
	JSON       bool
	Contract   string
	From       string // a file of samples, or - for standard input
}

func parseContractDecode(args []string, stderr io.Writer) (*contractDecodeOptions, error) {
	o := &contractDecodeOptions{From: "-"}
	fs := newFlagSet("contract decode", stderr, "contract decode [--repo DIR] [--dir H>C|C>H] [--path P] [--kind K] [--json] CONTRACT [FILE|-]")
	fs.StringVar(&o.Repo, "repo", ".", "the git repository whose refs CONTRACT may name")
	fs.StringVar(&o.Defaults.Dir, "dir", "", "the direction of sample lines that name none: H>C or C>H")
	fs.StringVar(&o.Defaults.Path, "path", "", "the WebSocket path of sample lines that name none (default: the contract's path when it has one)")
	fs.StringVar(&o.Kind, "kind", "", "the client kind, for a contract whose frames depend on it")
	fs.BoolVar(&o.JSON, "json", false, "write the frames and what was read from them as one JSON document")
	pos, err := parse(fs, args, anyArgs)
	if err != nil {
		return nil, err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return nil, usagef("contract decode: want CONTRACT and a file of samples (or - or nothing for standard input), got %d argument(s)", len(pos))
	}
	if d := o.Defaults.Dir; d != "" && d != contract.HostToClient && d != contract.ClientToHost {
		return nil, usagef("contract decode: --dir %q: want H>C or C>H", d)
	}
	o.Contract = pos[0]
	if len(pos) == 2 {
		o.From = pos[1]
	}
	return o, nil
}

// cmdContractDecode reads sample frames with a contract, offline (package samples).
func cmdContractDecode(_ context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseContractDecode(args, stderr)
	if err != nil {
		return err
	}
	c, err := (&contractSource{repo: o.Repo}).load(o.Contract)
	if err != nil {
		return err
	}
	frames, err := samples.Read(o.From, os.Stdin, samples.DefaultsFor(c, o.Defaults))
	if err != nil {
		return err
	}
	t, unread := samples.Decode(c, frames, o.Kind)
	if err := reports.Transcript(stdout, t, reports.TranscriptOptions{JSON: o.JSON}); err != nil {
		return err
	}
	if o.JSON {
		if len(unread) > 0 {
			return &exitError{exitFindings}
		}
		return nil
	}
	for _, u := range unread {
		fmt.Fprintf(stdout, "not read: %s\n", u)
	}
	if len(unread) > 0 {
		fmt.Fprintf(stdout, "%s: %s of %s not read\n", o.Contract, results.Plural(len(unread), "frame"), results.Plural(len(frames), "message"))
		return &exitError{exitFindings}
	}
	fmt.Fprintf(stdout, "%s: every frame of %s read\n", o.Contract, results.Plural(len(frames), "message"))
	return nil
}
