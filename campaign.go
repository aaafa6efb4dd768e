package skewtest

import (
	"context"
	"time"

	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/nightly/explore"
	"github.com/skewtest/skewtest/results"
)

// FuzzConfig is one fuzz campaign: `skewtest fuzz`. Its builds are the run's: Host and
// Client, else the working tree with the pins.
type FuzzConfig struct {
	Config
	// Cases runs this many cases (a pull request's campaign; 50 when neither is set, with
	// seed 1 unless Seed says otherwise); Budget draws cases until it has passed (a
	// nightly campaign, on a fresh seed unless Seed says otherwise).
	Cases  int
	Budget time.Duration
	// Corpus keeps minimised failures and a sample of passing cases, replayed first
	// (default: <ReportDir>/corpus, not replayed).
	Corpus string
	// Generators and Exclude narrow what is drawn: generator names, event names or
	// patterns.
	Generators, Exclude []string
	// ShrinkTries bounds the candidate runs that shrink one failing case.
	ShrinkTries int
	// Batch is how many cases run in one plan; Pack how many cases share one journey (1
	// runs every case alone). Zero: the defaults.
	Batch, Pack int
}

// ExploreConfig is one exploration: `skewtest explore`, a fuzz campaign whose journeys are
// drawn from the drivers' described vocabulary, with the subject's own generators mixed in.
type ExploreConfig struct {
	FuzzConfig
	// DrawnOnly draws from the vocabulary alone: the subject's generators give setups,
	// not events.
	DrawnOnly bool
}

// Fuzz runs the fuzz campaign of cfg: cases drawn from the subject's generators, each a
// journey run on the campaign's pairings, failures shrunk and kept in the corpus.
func Fuzz(ctx context.Context, cfg FuzzConfig) (*results.Run, error) {
	return campaign.Run(ctx, cfg.campaign("fuzz"))
}

// Explore runs the exploration of cfg (see ExploreConfig).
func Explore(ctx context.Context, cfg ExploreConfig) (*results.Run, error) {
	return explore.Run(ctx, explore.Config{Config: cfg.campaign("explore"), Only: cfg.DrawnOnly})
}

func (c FuzzConfig) campaign(name string) campaign.Config {
	m := c.matrix()
	if c.Seed == 0 && c.Budget == 0 {
		m.Seed = campaign.DefaultSeed
	}
	if len(m.Command) == 0 {
		m.Command = []string{name}
	}
	return campaign.Config{Config: m, Cases: c.Cases, Budget: c.Budget, Corpus: c.Corpus,
		Generators: c.Generators, Exclude: c.Exclude, ShrinkTries: c.ShrinkTries,
		Batch: c.Batch, Pack: c.Pack, ParallelGiven: c.Parallel != 0}
}
