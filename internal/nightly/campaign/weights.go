package campaign

import (
	"fmt"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// HeavyValue is the size of a value from which a generator's cases are heavy: a case that
// can carry a value of 64 KiB or more moves it as several frames (remoteterm's chunks are
// 48 KiB), kept in the transcript, tapped, compared and held by the references, and
// explore's drawn terminal cases, whose edges reach a mebibyte, took 200 MB each at
// thirty-two pairings a core (12.9 GB on two cores). The cases of a few small frames it
// separates them from stay far below it: explore's random texts are at most 4 KiB, the
// session generators' values a few dozen bytes.
const HeavyValue = 64 << 10

// HeavyWeight is how many of the lanes' parallel units (harness.DefaultLaneParallel, 32 a
// core) a pairing of a heavy generator's case takes while it runs: two, so heavy pairings
// run sixteen a core at most, while light ones run thirty-two. A light pairing takes one.
// Measured on two quiet cores, 256 of explore's drawn terminal cases: at four (eight a
// core) 87 cases/min and 4.3 GB of peak memory, at two 165 cases/min and 5.4 GB (about
// what eight a core took before a pairing's transcript let go of its decoded megabytes);
// the default mix 161 and 262 cases/min, 2.3 and 4.4 GB. A drawn case's time is mostly its
// idles' clock, which costs no CPU, so more heavy pairings at once pay until memory does.
const HeavyWeight = 2

// weightOf is how many parallel units a pairing of generator g's cases takes in lanes: it
// follows from the generator's text alone (fuzz.Generator.Largest), never from timing or
// from what a case moved.
func weightOf(g *fuzz.Generator) int {
	if g.Largest() >= HeavyValue {
		return HeavyWeight
	}
	return 1
}

// weightOfJourney is the weight of a journey no generator of the campaign's drew (a corpus
// journey), read from its values as written.
func weightOfJourney(j *journeys.Journey) int {
	for _, st := range j.Steps {
		for _, c := range st.Commands {
			for _, a := range c.Args {
				if len(a.Value) >= HeavyValue {
					return HeavyWeight
				}
			}
		}
	}
	return 1
}

// weightOfCase is the weight of case cj's pairings: its generator's, else its journey's.
func (cp *campaign) weightOfCase(cj caseJourney) int {
	if cj.c == nil {
		return weightOfJourney(cj.j)
	}
	return cp.weightOfGen(cj.c.Gen)
}

// weighed returns opts for a plan of journeys whose generators weigh weights (by journey):
// when the campaign weighs its lanes' pairings (in lanes, -j not given), each pairing
// takes its journey's weight in units of opts.Parallel; else opts as they are, every
// pairing one of -j.
func (cp *campaign) weighed(opts harness.ExecuteOptions, weights map[*journeys.Journey]int) harness.ExecuteOptions {
	if !cp.weighs || opts.Pairing.Pool == nil {
		return opts
	}
	opts.Weight = func(p harness.Pairing) int {
		if w, ok := weights[p.Journey]; ok {
			return w
		}
		return HeavyWeight // not weighed: as heavy as a heavy generator's
	}
	return opts
}

// weightOfGen is weightOf, read once per generator.
func (cp *campaign) weightOfGen(g *fuzz.Generator) int {
	w, ok := cp.genWeight[g]
	if !ok {
		if cp.genWeight == nil {
			cp.genWeight = map[*fuzz.Generator]int{}
		}
		w = weightOf(g)
		cp.genWeight[g] = w
	}
	return w
}

// share is how many units a heavy pairing takes when the campaign weighs its pairings, else
// 1: a full batch holds a pack of the largest pack for every heavy pairing the units hold
// at once (fullBatch), whatever the generators weigh.
func (cp *campaign) share() int {
	if !cp.weighs {
		return 1
	}
	return HeavyWeight
}

// atOnce says how many pairings run at once in lanes, for the campaign's lanes line.
func (cp *campaign) atOnce() string {
	if !cp.weighs {
		return fmt.Sprintf("%d pairings at once", cp.pooled.Parallel)
	}
	return fmt.Sprintf("%d pairings at once, %d of cases that move %d KiB or more", cp.pooled.Parallel, cp.pooled.Parallel/HeavyWeight, HeavyValue>>10)
}
