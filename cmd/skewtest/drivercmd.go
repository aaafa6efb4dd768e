package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/skewtest/skewtest/internal/adopt/drivercheck"
	"github.com/skewtest/skewtest/results"
)

const driverUsage = `Usage:
  skewtest driver check [--role host|client] [--kind K] [--dir D] [--timeout D] [--log-dir D] -- CMD [ARGS...]

Runs CMD as a skewtest driver, in any language, and checks it against the driver protocol
(docs/driver-protocol.md): hello, ready (a host's url listens), nothing but protocol lines on
stdout, an unknown action answered unsupported-action, decode when hello lists it, stop, and
exiting once stdin closes. Exit codes: 0 conformant, 1 a check failed, 2 bad arguments.
`

// parseDriverCheck parses driver check's flags and the driver's command line: what follows
// "--", or the first argument that is no flag, verbatim (its own flags included).
func parseDriverCheck(args []string, stderr io.Writer) (drivercheck.Config, error) {
	var (
		c       drivercheck.Config
		timeout time.Duration
	)
	fs := newFlagSet("driver check", stderr, "driver check [--role host|client] [--kind K] [--dir D] [--timeout D] [--log-dir D] -- CMD [ARGS...]")
	fs.StringVar(&c.Role, "role", "", "the role it plays: host or client (default: client with --kind, else host)")
	fs.StringVar(&c.Kind, "kind", "", "the client kind (SKEWTEST_KIND)")
	fs.StringVar(&c.Dir, "dir", "", "its working directory (default: the current one)")
	fs.StringVar(&c.LogDir, "log-dir", "", "keep its stderr of each start here (default: discarded)")
	fs.DurationVar(&timeout, "timeout", 0, "how long it may take to say hello and ready (default: the protocol's 30s)")
	argv, err := parse(fs, args, commandLine)
	if err != nil {
		return c, err
	}
	c.Argv, c.ReadyTimeout = argv, timeout
	if len(c.Argv) == 0 {
		return c, usagef("driver check: give the driver's command after --")
	}
	if c.Role == "" {
		c.Role = "host"
		if c.Kind != "" {
			c.Role = "client"
		}
	}
	if c.Role != "host" && c.Role != "client" {
		return c, usagef("driver check: --role %q: want host or client", c.Role)
	}
	if c.Role == "client" && c.Kind == "" {
		return c, usagef("driver check: a client needs --kind (the kind skewtest.yaml declares it under)")
	}
	return c, nil
}

func cmdDriver(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, driverUsage)
		return nil
	}
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 {
			if err := didYouMean("driver", args[0], subcommands("driver")); err != nil {
				return err
			}
		}
		fmt.Fprint(stderr, driverUsage)
		return usagef("driver: give check")
	}
	c, err := parseDriverCheck(args[1:], stderr)
	if err != nil {
		return err
	}
	r, err := drivercheck.Run(ctx, c)
	if err != nil {
		return err
	}
	for _, ch := range r.Checks {
		fmt.Fprintln(stdout, ch)
	}
	if failed := r.Failed(); len(failed) > 0 {
		fmt.Fprintf(stdout, "driver check: %s of %d failed\n", results.Plural(len(failed), "check"), len(r.Checks))
		return &exitError{exitFindings}
	}
	fmt.Fprintf(stdout, "driver check: the driver speaks the protocol (%d checks)\n", len(r.Checks))
	return nil
}
