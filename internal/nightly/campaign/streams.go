package campaign

import (
	"context"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// stream is a line of batches of a campaign: the generators it draws from, with a draw of
// its own (case slot k of a stream is drawn from its generators alone), and its guide.
type stream struct {
	gens  []*fuzz.Generator
	guide *guide
	// units, when not nil, are the parallel units the stream's batches share, two of them
	// in flight at once (under a budget, in lanes).
	units *harness.Units
}

// lanes returns opts for one batch of the stream: a turn of its units when it shares them
// (taken in the order of its batches, so an earlier batch's pairings go first).
func (s *stream) lanes(opts harness.ExecuteOptions) harness.ExecuteOptions {
	if s.units != nil {
		opts.Units = s.units.Next()
	}
	return opts
}

// streamsOf splits the campaign's generators into the streams its batches run in. A
// budgeted campaign that weighs its pairings runs its light generators and its heavy ones
// (weightOf) as two streams, side by side, each with the lanes' parallel units to itself:
// a heavy case takes a hundred times a light one's CPU and seconds of its idles' clock,
// and in one line of batches the light cases waited at every batch's end for the heavy
// packs' last pairings (measured on remoteterm's generators: 179 cases/min, CPU at 43 % of
// two cores, the light generators drawn one case in four). Side by side, each runs at its
// own pace for the whole budget: a night spends its time on every generator, not its count.
// The split follows from the generators' texts and the configuration alone; each stream
// draws its own cases from the seed, so the same seed gives each stream the same cases
// however the two interleave. Any other campaign (a count of cases, -j, one weight) is one
// stream drawing from every generator, slot by slot, as the count says.
//
// Under a budget, in lanes, a stream of light generators keeps two batches in flight that
// share its units (each batch a turn of them: the earlier batch's pairings go first), so the
// next batch's pairings take the units the last, long pairings of the one before leave
// (session cases alone, 2 minutes, two quiet cores: 10,412 cases/min against 8,175). A
// stream with a heavy generator runs one batch at a time: a second batch in flight ran its
// references early and kept their megabyte transcripts while the first's pairings ran (the
// default explore's peak memory 7.8 GB against 4.9).
func (cp *campaign) streamsOf() []*stream {
	ss := cp.split()
	if cp.deadline.IsZero() || !cp.lanes {
		return ss
	}
	parallel := cp.pooled.Parallel
	if parallel <= 0 {
		parallel = harness.DefaultParallel()
	}
	for _, s := range ss {
		if !slices.ContainsFunc(s.gens, cp.heavy) {
			s.units = harness.NewUnits(parallel)
		}
	}
	return ss
}

// split is streamsOf's streams, before their units.
func (cp *campaign) split() []*stream {
	one := []*stream{{gens: cp.gens, guide: cp.newGuide()}}
	if cp.deadline.IsZero() || !cp.weighs {
		return one
	}
	var light, heavy []*fuzz.Generator
	for _, g := range cp.gens {
		if cp.heavy(g) {
			heavy = append(heavy, g)
		} else {
			light = append(light, g)
		}
	}
	if len(light) == 0 || len(heavy) == 0 {
		return one
	}
	return []*stream{
		{gens: light, guide: cp.newGuide()},
		{gens: heavy, guide: cp.newGuide()},
	}
}

// heavy says generator g's pairings take more than one of the lanes' units (weightOf).
func (cp *campaign) heavy(g *fuzz.Generator) bool { return cp.weightOfGen(g) > 1 }

// newGuide is a guide for a stream, from the coverage memory, when the campaign's draws are
// guided; else nil.
func (cp *campaign) newGuide() *guide {
	if !cp.o.Guided {
		return nil
	}
	return newGuide(cp.mem)
}

// execute runs plan with harness.Execute, letting go of cp.mu while it runs: the campaign's
// own work (drawing, recording, confirming and shrinking what its pairings found) runs under
// cp.mu, one stream at a time, while the streams' pairings run side by side. The caller
// holds cp.mu, and holds it again when execute returns; what it read of the campaign before
// may have grown meanwhile (more cases, findings, pairings).
func (cp *campaign) execute(ctx context.Context, plan []harness.Pairing, batch *results.Run, opts harness.ExecuteOptions) {
	cp.mu.Unlock()
	defer cp.mu.Lock()
	harness.Execute(ctx, plan, batch, opts)
}

// genNames lists generators' names, comma-separated.
func genNames(gens []*fuzz.Generator) string {
	names := make([]string, len(gens))
	for i, g := range gens {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}
