package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// Dir is where an exploration writes the generators it drew and its drivers' hello logs,
// under its report directory.
const Dir = "explore"

// Config is one exploration: a fuzz campaign (budget, seed, corpus, builds) whose
// generators explore draws from the working tree's described vocabulary, with the
// subject's own generators mixed in. The future-peer pass is always on.
type Config struct {
	campaign.Config
	// Only draws from the vocabulary alone: the subject's own generators give setups but
	// none of their events are drawn.
	Only bool
}

// Run explores: it builds what the campaign pairs, asks the working tree's drivers for
// their vocabulary, drafts generators (Text) and runs them in the fuzz engine
// (campaign.Run), guided by coverage, whose run it returns.
func Run(ctx context.Context, o Config) (*results.Run, error) {
	c := o.Config
	c.Name = "explore"
	c.FuturePeers = true
	c.Guided = true
	c.Schedules = true
	c.Draw = func(ctx context.Context, b *harness.Build, gens []*fuzz.Generator) ([]*fuzz.Generator, error) {
		return draw(ctx, &o, b, gens)
	}
	return campaign.Run(ctx, c)
}

func draw(ctx context.Context, o *Config, b *harness.Build, gens []*fuzz.Generator) ([]*fuzz.Generator, error) {
	dir := filepath.Join(o.ReportDir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	drivers, err := vocabulary(ctx, b, o.Kinds, dir)
	if err != nil {
		return nil, err
	}
	var bases []Base
	var of []*journeys.Journey // the journey each base is drawn from (nil: a generator)
	for _, g := range gens {
		base, err := BaseOfGenerator(g)
		if err != nil {
			return nil, err
		}
		bases, of = append(bases, base), append(of, nil)
	}
	if len(bases) == 0 {
		s, err := o.Open()
		if err != nil {
			return nil, err
		}
		js, err := s.Journeys(nil)
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			if !drivesAny(j, o.Kinds) {
				continue
			}
			base, err := BaseOfJourney(j)
			if err != nil {
				return nil, err
			}
			bases, of = append(bases, base), append(of, j)
		}
	}
	var streams []contract.StreamSpec
	var quiet time.Duration
	if b.Contract != nil {
		streams = b.Contract.Streams
		for i := range b.Contract.Channels {
			if q := b.Contract.Channels[i].QuietFor(); q > 0 && (quiet == 0 || q < quiet) {
				quiet = q
			}
		}
	}
	var out []*fuzz.Generator
	write := func(name string, text []byte) error {
		path := filepath.Join(dir, name+".txtar")
		if err := os.WriteFile(path, text, 0o644); err != nil {
			return err
		}
		g, err := fuzz.Parse(path, text)
		if err != nil {
			return fmt.Errorf("explore wrote a generator it cannot read (a skewtest bug): %w", err)
		}
		out = append(out, g)
		return nil
	}
	whole := 0
	for i, base := range bases {
		if text := Text(base, drivers, streams, quiet); text != nil {
			if err := write(campaign.DrawnPrefix+base.Name, text); err != nil {
				return nil, err
			}
		}
		if of[i] == nil {
			continue
		}
		// A product without generators of its own: its journeys also run whole, under the
		// schedules the campaign draws (what no drawn event reaches: the journey's later
		// steps, the host's actions it does not describe).
		text, err := WholeJourney(of[i])
		if err != nil {
			return nil, err
		}
		if err := write(campaign.WholePrefix+base.Name, text); err != nil {
			return nil, err
		}
		whole++
	}
	described := 0
	for _, d := range drivers {
		described += len(d.Params)
	}
	fmt.Fprintf(o.Stdout, "explore: %d described actions of %d drivers; drew %d generators in %s\n", described, len(drivers), len(out), dir)
	if whole > 0 {
		fmt.Fprintf(o.Stdout, "explore: %s also run whole, under drawn schedules (%s*)\n", results.Plural(whole, "journey"), campaign.WholePrefix)
	}
	if !o.Only {
		out = append(out, gens...)
	}
	return out, nil
}

// vocabulary asks each driver of the working tree's build (the host and the client kinds
// asked for, else every kind) for its hello.
func vocabulary(ctx context.Context, b *harness.Build, kinds []string, dir string) ([]Driver, error) {
	h, err := harness.Announce(ctx, b, "host", "", filepath.Join(dir, "hello-host.log"))
	if err != nil {
		return nil, announceError(err)
	}
	out := []Driver{{Role: "host", Actions: h.Actions, Params: h.Params}}
	var names []string
	for k := range b.Clients {
		if len(kinds) == 0 || slices.Contains(kinds, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		c, err := harness.Announce(ctx, b, "client", k, filepath.Join(dir, "hello-client-"+k+".log"))
		if err != nil {
			return nil, announceError(err)
		}
		out = append(out, Driver{Role: "client", Kind: k, Actions: c.Actions, Params: c.Params})
	}
	return out, nil
}

func announceError(err error) error {
	var u *usage.Error
	if errors.As(err, &u) {
		return usage.Errorf("%w", err)
	}
	return err
}

func drivesAny(j *journeys.Journey, kinds []string) bool {
	if len(kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if j.Drives(k) {
			return true
		}
	}
	return false
}
