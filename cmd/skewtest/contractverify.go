package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

type contractVerifyOptions struct {
	common
}

// config is the library's Config of these options.
func (o *contractVerifyOptions) config(stdout, stderr io.Writer) matrix.Config {
	return matrix.Config{Repo: o.Repo, CacheDir: o.CacheDir, Verbose: o.Verbose, Runner: runnerOf(o.Runner), Stdout: stdout, Stderr: stderr}
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
	if _, err := parse(fs, args, exactly(0)); err != nil {
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
	// The configuration and the committed contract first: what is missing is said before
	// building.
	if _, err := matrix.ContractCommand(o.Repo); err != nil {
		return err
	}
	src := &contractSource{repo: o.Repo}
	committed, err := src.load(pins.WorktreeLabel)
	if err != nil {
		return err
	}
	out, command, err := matrix.SpokenContract(ctx, o.config(stdout, stderr), o.Timeout)
	if err != nil {
		return err
	}
	name := "the output of " + strings.Join(command, " ")
	cs, err := src.contracts()
	if err != nil {
		return err
	}
	// The working tree's build speaks it: its .proto files are the working tree's.
	spoken, err := contract.Parse(name, out, contract.WithFiles(os.DirFS(filepath.Dir(committed.File()))), contract.WithSources(cs.WorktreeSources()))
	if err != nil {
		return usagef("%v", err)
	}
	// Protocols are compared as they are; the vocabulary is diffed whatever they say (a
	// protocol cut would otherwise hide it).
	protocol := committed.Protocol.Equal(spoken.Protocol)
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
