package main

import (
	"context"
	"io"
)

func parseRepro(args []string, stderr io.Writer) (*runOptions, error) {
	o := &runOptions{}
	fs := newFlagSet("repro", stderr, "repro --repo DIR --host REF --client REF [flags]")
	o.register(fs)
	fs.StringVar(&o.Host, "host", "", `the host build: a ref, or "worktree" (required)`)
	fs.StringVar(&o.Client, "client", "", `the client build: a ref, or "worktree" (required)`)
	fs.Var(listFlag{&o.Kinds}, "kind", "client kind (default: every kind of the journeys)")
	fs.Var(listFlag{&o.Journeys}, "journey", "journey name (from the subject's skewtest.yaml) or file (default: every journey it lists)")
	o.registerEnv(fs)
	o.registerParallel(fs)
	o.registerFuture(fs)
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return nil, err
	}
	if o.Host == "" || o.Client == "" {
		return nil, usagef("repro needs --host and --client")
	}
	return o, o.check()
}

func cmdRepro(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseRepro(args, stderr)
	if err != nil {
		return err
	}
	o.command, o.args = "repro", args
	return runMatrix(ctx, o, stdout, stderr)
}
