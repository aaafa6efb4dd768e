package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/internal/after/bisect"
)

// bisectOptions are bisect's flags.
type bisectOptions struct {
	runOptions
	Kind, Journey   string
	Side, Good, Bad string
	// Contract is --contract: bisect the contract files alone, diffed against Against.
	Contract bool
	Against  string
}

func parseBisect(args []string, stderr io.Writer) (*bisectOptions, error) {
	o := &bisectOptions{}
	fs := newFlagSet("bisect", stderr, "bisect --repo DIR --host REF --client REF --kind K --journey J [--side host|client] [--good REF] [--bad REF] [flags]\n       skewtest bisect --repo DIR --contract --good REF --bad REF [--against REF]")
	o.register(fs)
	fs.StringVar(&o.Host, "host", "", `the failing pairing's host build: a ref, or "worktree" (required)`)
	fs.StringVar(&o.Client, "client", "", `the failing pairing's client build: a ref, or "worktree" (required)`)
	fs.StringVar(&o.Kind, "kind", "", "the failing pairing's client kind (required)")
	fs.StringVar(&o.Journey, "journey", "", "the failing pairing's journey: a name from skewtest.yaml, or a file (required)")
	fs.StringVar(&o.Side, "side", "", "the side that moves, host or client (default: the working tree's, else the newer release's)")
	fs.StringVar(&o.Good, "good", "", "the moving side's ref where the pairing passes (default: the fixed side's ref: a build paired with itself)")
	fs.StringVar(&o.Bad, "bad", "", "the moving side's ref where it fails (default: its ref in the pairing)")
	fs.BoolVar(&o.Contract, "contract", false, "bisect the contract files alone, from --good to --bad: the commit whose contract first breaks the evolution rules against --against's (no build, no run)")
	fs.StringVar(&o.Against, "against", "", "with --contract: the older build whose contract each one is diffed against (default: --good)")
	fs.Var(countFlag{&o.Retries, 0, "how many times to rerun a failing candidate"}, "retries", "rerun a candidate that failed up to `N` times; one whose attempts disagree is flaky, never good or bad")
	o.registerEnv(fs)
	o.registerParallel(fs)
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return nil, err
	}
	seed := o.Seed // bisect's default is 1, not a new one: the same walk every time
	if err := o.check(); err != nil {
		return nil, err
	}
	o.Seed = seed
	switch {
	case o.Contract && (o.Good == "" || o.Bad == ""):
		return nil, usagef("bisect --contract needs --good and --bad: the refs to walk between")
	case o.Contract && (o.Host != "" || o.Client != "" || o.Kind != "" || o.Journey != ""):
		return nil, usagef("bisect --contract walks the contract alone: it takes no pairing (--host, --client, --kind, --journey)")
	case o.Contract:
	case o.Against != "":
		return nil, usagef("--against goes with --contract")
	case o.Host == "" || o.Client == "":
		return nil, usagef("bisect needs --host and --client: the failing pairing (a repro line's flags)")
	case o.Kind == "" || o.Journey == "":
		return nil, usagef("bisect needs --kind and --journey: the failing pairing's")
	}
	return o, nil
}

// cmdBisect walks one side's history to the release and the commit that made a pairing
// fail (bisect.Run).
func cmdBisect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseBisect(args, stderr)
	if err != nil {
		return err
	}
	if o.Contract {
		run, err := bisect.RunContract(ctx, bisect.ContractConfig{Repo: o.Repo, ReportDir: o.ReportDir,
			Good: o.Good, Bad: o.Bad, Against: o.Against, Stdout: stdout, Stderr: stderr})
		if err != nil {
			return err
		}
		return &exitError{run.ExitCode()}
	}
	run, err := bisect.Run(ctx, bisect.Config{
		Repo: o.Repo, ReportDir: o.ReportDir, CacheDir: o.CacheDir,
		Host: o.Host, Client: o.Client, Kind: o.Kind, Journey: o.Journey,
		Side: o.Side, Good: o.Good, Bad: o.Bad, Seed: o.Seed, Retries: o.Retries,
		Env: o.Env, Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Parallel: o.Parallel,
		Runner: runnerOf(o.Runner), Stdout: stdout, Stderr: stderr, Progress: progressIf(o.Verbose, stderr),
	})
	if err != nil {
		return err
	}
	return &exitError{run.ExitCode()}
}

// progressIf is w when on, else nil.
func progressIf(on bool, w io.Writer) io.Writer {
	if on {
		return w
	}
	return nil
}
