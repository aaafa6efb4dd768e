package campaign

import (
	"hash/fnv"
	"strconv"

	"github.com/skewtest/skewtest/internal/run/harness"
)

// futureEvery is one pack in how many gets the future-peer pass (Config.FutureEvery).
func (cp *campaign) futureEvery() int {
	if cp.o.FutureEvery > 0 {
		return cp.o.FutureEvery
	}
	return DefaultFutureEvery
}

// futureSampled says whether the pack journey called name gets the future-peer pass: one in
// futureEvery, picked by a hash of the seed and the name (which names the pack's first case),
// so the same seed picks the same packs however the batches fall.
func (cp *campaign) futureSampled(name string) bool {
	every := cp.futureEvery()
	if every <= 1 {
		return true
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(strconv.FormatInt(cp.o.Seed, 10) + "/" + name))
	return h.Sum64()%uint64(every) == 0
}

// samplePack counts a pack about to run and, when the campaign runs the future-peer pass and
// the sample leaves the pack out, marks its journey so that the pass skips it (futureOnly).
func (cp *campaign) samplePack(name string) {
	if cp.opts.Future == nil {
		return
	}
	cp.c.Packs++
	if cp.futureSampled(name) {
		cp.c.FuturePacks++
		return
	}
	cp.noFuture.Store(name, true)
}

// futureOnly is the campaign's FutureOptions.Only: every pairing but those of a pack the
// sample left out (a case run alone, confirmed, shrunk or replayed from the corpus keeps the
// pass).
func (cp *campaign) futureOnly(p harness.Pairing) bool {
	if p.Journey == nil {
		return true
	}
	_, skip := cp.noFuture.Load(p.Journey.Name)
	return !skip
}
