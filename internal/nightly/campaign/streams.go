package campaign

import (
	"context"
	"strings"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// stream is a line of batches of a campaign: the generators it draws from, with a draw of
// its own (case slot k of a stream is drawn from its generators alone), its guide, and the
// pack size its batch under way cuts to.
type stream struct {
	gens  []*fuzz.Generator
	guide *guide
	// share is how many parallel units the stream's heaviest pairing takes (1 unless the
	// campaign weighs its pairings): a full batch holds a pack for every such pairing that
	// can run at once (fullBatch).
	share int
	// packCap, when not 0, is how many cases a pack of the batch under way holds at most
	// (cutPacks).
	packCap int
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
func (cp *campaign) streamsOf() []*stream {
	one := []*stream{{gens: cp.gens, guide: cp.newGuide(), share: cp.share()}}
	if cp.deadline.IsZero() || !cp.weighs {
		return one
	}
	var light, heavy []*fuzz.Generator
	for _, g := range cp.gens {
		if cp.weightOfGen(g) > 1 {
			heavy = append(heavy, g)
		} else {
			light = append(light, g)
		}
	}
	if len(light) == 0 || len(heavy) == 0 {
		return one
	}
	return []*stream{
		{gens: light, guide: cp.newGuide(), share: 1},
		{gens: heavy, guide: cp.newGuide(), share: HeavyWeight},
	}
}

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
