// Package campaign runs fuzz campaigns across versions: generated journeys, packed into
// lanes of shared driver processes, each finding confirmed on processes of its own,
// shrunk to a journey file that `skewtest repro` replays, and kept in a corpus that the
// next campaign replays first (docs/fuzz.md). Run is `skewtest fuzz` as a function over a
// Config.
package campaign

import (
	"context"
	"time"

	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// DefaultSeed is PR mode's seed when none is given: a pull request's campaign is the same
// every time.
const DefaultSeed = 1

// DefaultPack is how many cases share a journey when neither Pack nor the generator's pack
// line says.
const DefaultPack = 8

// DefaultCases is PR mode's case count when neither Cases nor Budget is given.
const DefaultCases = 50

// Config is one campaign: the builds and pairing options of a matrix run (Host and Client,
// else the working tree with the pins) and the campaign's own.
type Config struct {
	matrix.Config
	// Cases runs this many cases (PR mode); Budget draws cases until it has passed
	// (nightly mode). Neither: DefaultCases.
	Cases  int
	Budget time.Duration
	// Corpus keeps minimised failures and a sample of passing cases, replayed first
	// (default: <ReportDir>/corpus, not replayed).
	Corpus string
	// Generators and Exclude narrow what is drawn: generator names, event names.
	Generators, Exclude []string
	// ShrinkTries bounds the candidate runs that shrink one failing case
	// (fuzz.DefaultShrinkTries when 0).
	ShrinkTries int
	// Batch is how many cases run in one plan (their pairings share Parallel).
	Batch int
	// Pack is how many cases share one journey (and so one pairing's processes); 1 runs
	// every case alone; 0: each generator's own pack line, else DefaultPack.
	Pack int
	// ParallelGiven says Parallel was chosen: Parallel pairings run at once, whatever their
	// cases weigh. Else a campaign whose drivers serve lanes runs harness.DefaultLaneParallel
	// units at once, a pairing of a heavy generator's cases taking HeavyWeight of them.
	ParallelGiven bool
	// Name names the campaign in what it prints ("fuzz" when empty; explore's is
	// "explore").
	Name string
	// Draw, when set, is called once the builds are ready with the working tree's build
	// and the subject's generators (narrowed by Generators and Kinds); the generators it
	// returns are the campaign's. A subject without generators of its own may run one.
	Draw func(ctx context.Context, worktree *harness.Build, gens []*fuzz.Generator) ([]*fuzz.Generator, error)
	// Guided draws each case as the best of a few candidates: the one with event pairs not
	// drawn before, and events the coverage memory says reached rarely reached parts
	// (explore's). The same seed and memory give the same cases.
	Guided bool
	// Schedules makes timing one more dimension of every case (fuzz.DrawSchedule): a
	// finding only a perturbed schedule shows is a race, replayed RaceReplays times for its
	// rate (explore's).
	Schedules bool
	// FutureEvery, with FuturePeers, runs the future-peer pass on one pack of cases in
	// FutureEvery, picked by the seed and the pack's first case (the same seed picks the same
	// packs), and on every case run alone; 0: DefaultFutureEvery; 1: every pack.
	FutureEvery int
}

// DefaultFutureEvery is how many packs share one future-peer pass by default: the pass runs
// each pairing of the working tree again, which cost a quarter of a campaign's CPU on every
// pack. A nightly campaign's thousands of packs still give it hundreds.
const DefaultFutureEvery = 4

// ShrinkShare is the share of a budget one finding's shrink may take: at most the budget
// divided by it (never past the budget's end), so that a finding drawn in the first
// minutes does not spend the night being minimised while no other case runs. A shrink
// that reaches its share stops at the smallest failing case so far, as at the budget's
// end. A campaign without a budget shrinks to the end (ShrinkTries bounds it).
const ShrinkShare = 8

// RaceReplays is how many times a race's case is run with its schedule to say how often
// it reproduces.
const RaceReplays = 10

// defaults fills what the caller left out, and refuses what does not go together.
func (o *Config) defaults() error {
	switch {
	case o.Pack < 0:
		return usage.Errorf("Pack %d: give how many cases share a journey, 1 or more", o.Pack)
	case o.FutureEvery < 0:
		return usage.Errorf("FutureEvery %d: give one pack in how many gets the future-peer pass, 1 or more", o.FutureEvery)
	case o.Budget < 0:
		return usage.Errorf("Budget must be positive")
	case o.Cases > 0 && o.Budget > 0:
		return usage.Errorf("Cases and Budget do not go together: Cases for a pull request, Budget for a nightly campaign")
	case (o.Host == "") != (o.Client == ""):
		return usage.Errorf("Host and Client go together")
	}
	if o.Cases == 0 && o.Budget == 0 {
		o.Cases = DefaultCases
	}
	if o.Name == "" {
		o.Name = "fuzz"
	}
	if o.ShrinkTries == 0 {
		o.ShrinkTries = fuzz.DefaultShrinkTries
	}
	return o.Config.Defaults()
}

// open opens the subject once.
func (o *Config) open() (*subject.Subject, error) { return o.Config.Open() }
