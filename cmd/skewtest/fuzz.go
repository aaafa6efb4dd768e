package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/nightly/explore"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/results"
)

// fuzzOptions are the flags of fuzz: run's pairing flags plus the campaign's.
type fuzzOptions struct {
	runOptions
	Cases       int
	Budget      time.Duration
	Corpus      string
	Generators  []string
	Exclude     []string
	ShrinkTries int
	Batch       int
	Pack        int
	// ParallelGiven says -j was given.
	ParallelGiven bool
	// Only is explore's --drawn-only.
	Only bool
}

func parseFuzz(name string, args []string, stderr io.Writer) (*fuzzOptions, error) {
	o := &fuzzOptions{}
	fs := newFlagSet(name, stderr, name+" --repo DIR [--host REF --client REF | PIN RULES] [--cases N | --budget D] [flags]")
	o.register(fs)
	o.registerPins(fs)
	fs.StringVar(&o.Host, "host", "", `the host build: a ref, or "worktree" (with --client; default: the pins with the working tree)`)
	fs.StringVar(&o.Client, "client", "", `the client build: a ref, or "worktree"`)
	fs.Var(listFlag{&o.Kinds}, "kind", "client kinds to fuzz, comma-separated (default: every kind the generators drive)")
	fs.Var(countFlag{&o.Cases, 1, "how many cases to run"}, "cases", fmt.Sprintf("PR mode: run `N` cases (default %d; the seed defaults to %d)", campaign.DefaultCases, campaign.DefaultSeed))
	fs.DurationVar(&o.Budget, "budget", 0, "nightly mode: draw cases until this much time has passed (a fresh seed unless --seed)")
	fs.StringVar(&o.Corpus, "corpus", "", "keep minimised failures and a sample of passing cases here, and replay them first (default: <report-dir>/corpus, not replayed)")
	fs.Var(listFlag{&o.Generators}, "generator", "generators to draw from, comma-separated names (default: every generator the subject's skewtest.yaml lists under fuzz)")
	fs.Var(listFlag{&o.Exclude}, "exclude", "events no case draws, comma-separated names or patterns (\"held-*\"; e.g. an event family a known bug makes noisy)")
	if name == "explore" {
		fs.BoolVar(&o.Only, "drawn-only", false, "draw only from the drivers' described vocabulary: the subject's generators give setups, not events")
	}
	fs.IntVar(&o.ShrinkTries, "shrink-tries", fuzz.DefaultShrinkTries, "at most this many candidate runs to shrink one failing case")
	fs.IntVar(&o.Batch, "batch", 0, "cases per plan (default: -j packs, at least 2, of the generators' largest pack; where the drivers serve lanes and -j is not given, a pack for every heavy pairing the lanes run at once; under --budget the batches ramp up to it from -j/4 cases)")
	fs.IntVar(&o.Pack, "pack", 0, fmt.Sprintf("cases per journey: packed cases share one pairing's driver processes and connection; a pack that fails is run again case by case (1: every case alone; default: each generator's pack line, else %d, and where the drivers serve lanes at most a batch's cases over -j)", campaign.DefaultPack))
	o.registerEnv(fs)
	o.registerParallel(fs)
	j := fs.Lookup("j")
	j.Usage, j.DefValue = "run `N` pairings at once, whatever their cases weigh (default: where the drivers serve lanes, thirty-two per core, a pairing of cases that move 64 KiB or more counting as four; else two per core)", ""
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return nil, err
	}
	seedGiven := false
	fs.Visit(func(f *flag.Flag) {
		seedGiven = seedGiven || f.Name == "seed"
		o.ParallelGiven = o.ParallelGiven || f.Name == "j"
	})
	switch {
	case o.Pack < 0:
		return nil, usagef("--pack %d: give how many cases share a journey, 1 or more", o.Pack)
	case o.Budget < 0:
		return nil, usagef("--budget must be positive")
	case o.Cases > 0 && o.Budget > 0:
		return nil, usagef("--cases and --budget do not go together: --cases N for a pull request, --budget D for a nightly campaign")
	case (o.Host == "") != (o.Client == ""):
		return nil, usagef("--host and --client go together")
	case o.Host != "" && (len(o.Pins) > 0 || o.Last > 0 || o.Window):
		return nil, usagef("--host/--client and pin rules do not go together")
	}
	if o.Cases == 0 && o.Budget == 0 {
		o.Cases = campaign.DefaultCases
	}
	if !seedGiven && o.Budget == 0 {
		o.Seed = campaign.DefaultSeed
	}
	return o, o.check()
}

func cmdFuzz(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFuzz("fuzz", args, stderr)
	if err != nil {
		return err
	}
	return exitOf(campaign.Run(ctx, o.campaign("fuzz", stdout, stderr)))
}

// cmdExplore is fuzz whose generators explore draws from the drivers' vocabulary.
func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFuzz("explore", args, stderr)
	if err != nil {
		return err
	}
	return exitOf(explore.Run(ctx, explore.Config{Config: o.campaign("explore", stdout, stderr), Only: o.Only}))
}

func (o *fuzzOptions) campaign(name string, stdout, stderr io.Writer) campaign.Config {
	c := campaign.Config{Config: o.config(stdout, stderr), Cases: o.Cases, Budget: o.Budget, Corpus: o.Corpus,
		Generators: o.Generators, Exclude: o.Exclude, ShrinkTries: o.ShrinkTries, Batch: o.Batch, Pack: o.Pack, ParallelGiven: o.ParallelGiven}
	c.Command = []string{name}
	return c
}

func exitOf(run *results.Run, err error) error {
	if err != nil || run == nil {
		return err
	}
	return &exitError{run.ExitCode()}
}
