package campaign

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("the future-peer pass's sample of packs", func() {
	campaignOf := func(seed int64, every int) *campaign {
		cp := &campaign{o: &Config{FutureEvery: every}, c: &results.Campaign{}}
		cp.o.Seed = seed
		cp.opts.Future = &harness.FutureOptions{Seed: seed, Only: cp.futureOnly}
		return cp
	}
	pairing := func(name string) harness.Pairing {
		return harness.Pairing{Journey: &journeys.Journey{Name: name}}
	}

	It("gives the pass to about one pack in DefaultFutureEvery, the same packs for the same seed, and every case run alone", func() {
		cp, again, other := campaignOf(1, 0), campaignOf(1, 0), campaignOf(2, 0)
		differ := 0
		for i := range 400 {
			name := fmt.Sprintf("explore-drawn-session-%d-pack8", i)
			cp.samplePack(name)
			again.samplePack(name)
			Expect(again.futureOnly(pairing(name))).To(Equal(cp.futureOnly(pairing(name))), name)
			if other.futureSampled(name) != cp.futureSampled(name) {
				differ++
			}
		}
		Expect(cp.c.Packs).To(Equal(400))
		Expect(cp.c.FuturePacks).To(BeNumerically("~", 400/DefaultFutureEvery, 30))
		Expect(again.c.FuturePacks).To(Equal(cp.c.FuturePacks))
		Expect(differ).To(BeNumerically(">", 50), "another seed samples other packs")
		ran := 0
		for i := range 400 {
			if cp.futureOnly(pairing(fmt.Sprintf("explore-drawn-session-%d-pack8", i))) {
				ran++
			}
		}
		Expect(ran).To(Equal(cp.c.FuturePacks))
		// A case run alone (a failing pack's, confirmed, shrunk, from the corpus) keeps it.
		Expect(cp.futureOnly(pairing("explore-drawn-session-3"))).To(BeTrue())
		Expect(cp.opts.Future.Runs(harness.Pairing{Journey: &journeys.Journey{Name: "x"},
			Host: &harness.Build{Label: results.WorktreeLabel}, Client: &harness.Build{Label: "v1.4.190"}})).To(BeTrue())
	})

	It("gives it to every pack with FutureEvery 1, and counts nothing without the pass", func() {
		cp := campaignOf(1, 1)
		for i := range 40 {
			cp.samplePack(fmt.Sprintf("fuzz-session-%d-pack8", i))
		}
		Expect(cp.c.FuturePacks).To(Equal(40))
		Expect(cp.c.Packs).To(Equal(40))

		off := &campaign{o: &Config{}, c: &results.Campaign{}}
		off.samplePack("fuzz-session-1-pack8")
		Expect(off.c.Packs).To(BeZero())
	})
})
