package campaign

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

var _ = Describe("a campaign's batches", func() {
	type batch struct {
		n     int
		flush bool
	}
	sizes := func(b *batches, k int) []batch {
		var out []batch
		for range k {
			n, flush := b.take()
			out = append(out, batch{n, flush})
		}
		return out
	}

	It("ramp under a budget: the first is small, each next twice the last, up to the full batch, the ramp's packs run part-filled", func() {
		Expect(sizes(newBatches(0, 1024, 16, true), 8)).To(Equal([]batch{
			{16, true}, {32, true}, {64, true}, {128, true}, {256, true}, {512, true}, {1024, false}, {1024, false}}))
		Expect(sizes(newBatches(0, 100, 16, true), 5)).To(Equal([]batch{
			{16, true}, {32, true}, {64, true}, {100, false}, {100, false}}))
	})

	It("follow from the configuration alone: the same configuration, the same batches", func() {
		Expect(sizes(newBatches(0, 1024, rampStart(16), true), 12)).To(Equal(sizes(newBatches(0, 1024, rampStart(16), true), 12)))
	})

	It("do not ramp when --batch is given, nor for a count of cases, nor when the full batch is as small (negative controls)", func() {
		Expect(sizes(newBatches(6, 1024, 16, true), 3)).To(Equal([]batch{{6, false}, {6, false}, {6, false}}))
		Expect(sizes(newBatches(0, 1024, 16, false), 2)).To(Equal([]batch{{1024, false}, {1024, false}}))
		Expect(sizes(newBatches(0, 16, 16, true), 2)).To(Equal([]batch{{16, false}, {16, false}}))
	})
})

var _ = Describe("a budget's last batches", func() {
	It("are cut to what the stream's pace finishes before the budget ends, the batch in flight first", func() {
		// 1,000 cases in 10 s: 100 a second. 20 s left: 2,000 cases at most.
		Expect(lastBatch(1024, 16, 0, 1000, 10*time.Second, 20*time.Second)).To(Equal(1024))
		Expect(lastBatch(1024, 16, 1024, 1000, 10*time.Second, 20*time.Second)).To(Equal(512))
		// 5 s left: 500, less 400 in flight.
		Expect(lastBatch(1024, 16, 400, 1000, 10*time.Second, 5*time.Second)).To(Equal(64))
	})

	It("are not cut below the ramp's start, nor before the stream has a pace (negative controls)", func() {
		Expect(lastBatch(1024, 16, 1024, 1000, 10*time.Second, time.Second)).To(Equal(16))
		Expect(lastBatch(1024, 16, 0, 0, 10*time.Second, time.Second)).To(Equal(1024))
		Expect(lastBatch(8, 16, 0, 1000, 10*time.Second, 0)).To(Equal(8))
	})
})

var _ = Describe("the cases of a ramped campaign", func() {
	It("are the same cases, in the same order, however the slots are cut into batches: the same seed gives the same case list", func() {
		g, err := fuzz.Parse("g.txtar", []byte(guideGen))
		Expect(err).NotTo(HaveOccurred())
		// A guided campaign with schedules, as explore's: the guide keeps what earlier
		// slots drew, so this holds only if it keeps it slot by slot.
		campaignOf := func() *campaign {
			return &campaign{o: &Config{Config: matrix.Config{Seed: 9}, Schedules: true}, gens: []*fuzz.Generator{g}, drawn: map[string]bool{}}
		}
		streamOf := func() *stream { return &stream{gens: []*fuzz.Generator{g}, guide: newGuide(newMemory())} }
		listOf := func(sizes ...int) []string {
			cp, s, next := campaignOf(), streamOf(), 1
			var out []string
			for _, n := range sizes {
				cs, err := cp.drawCases(s, next, n)
				Expect(err).NotTo(HaveOccurred())
				for _, c := range cs {
					out = append(out, fmt.Sprintf("%s %v %s", c.Name, c.EventNames(), c.Schedule))
				}
				next += n
			}
			return out
		}
		ramped := listOf(2, 4, 8, 16, 30)
		Expect(ramped).To(HaveLen(60))
		Expect(listOf(60)).To(Equal(ramped))
		Expect(listOf(7, 53)).To(Equal(ramped))
		other := campaignOf()
		other.o.Seed = 10
		cs, err := other.drawCases(streamOf(), 1, 60)
		Expect(err).NotTo(HaveOccurred())
		var list []string
		for _, c := range cs {
			list = append(list, fmt.Sprintf("%s %v %s", c.Name, c.EventNames(), c.Schedule))
		}
		Expect(list).NotTo(Equal(ramped), "another seed, other cases (negative control)")
	})
})

var _ = Describe("a batch's packs in lanes", func() {
	It("spread the batch's cases over a pack for every pairing run at once, never above the generator's pack", func() {
		// 1,024 session cases at -j 64 (two cores): packs of 16, 64 of them, not 16 of 64.
		Expect(cutPacks(1024, 64, true)).To(Equal(16))
		Expect(cutPacks(1000, 64, true)).To(Equal(16), "rounded up: no pack more than the slots")
		Expect(cutPacks(16, 64, true)).To(Equal(DefaultPack), "a small batch (the ramp's first): never below DefaultPack")
		Expect(cutPacks(4096, 64, true)).To(Equal(64))
		o, capped := &Config{}, cutPacks(1024, 64, true)
		Expect(packOf(o, &fuzz.Generator{Pack: 64}, capped)).To(Equal(16))
		Expect(packOf(o, &fuzz.Generator{Pack: 4}, capped)).To(Equal(4), "a generator's pack line is the most a pack holds")
		capped = cutPacks(128, 64, true)
		Expect(packOf(o, &fuzz.Generator{Pack: 8}, capped)).To(Equal(8), "a generator of heavy cases keeps its pack of 8")
		Expect(packOf(o, &fuzz.Generator{Pack: 64}, capped)).To(Equal(8))
		Expect(packOf(o, &fuzz.Generator{}, capped)).To(Equal(DefaultPack))
	})

	It("keep a full batch's cases in flight: a pack of the largest pack for every heavy pairing the units hold when weighed, for every pairing of -j without", func() {
		// Two cores, weighed: 64 units, 32 heavy pairings: 32 packs of 64 session cases,
		// which cutPacks spreads over 64 packs of 32 (a light pairing per unit).
		Expect(fullBatch(64, 64, HeavyWeight)).To(Equal(2048))
		Expect(cutPacks(fullBatch(64, 64, HeavyWeight), 64, true)).To(Equal(32))
		// Heavy cases keep their pack of 8: 32 packs, one for every heavy pairing.
		Expect(fullBatch(64, 8, HeavyWeight) / cutPacks(fullBatch(64, 8, HeavyWeight), 64, true)).To(Equal(64 / HeavyWeight))
		Expect(fullBatch(4, 64, 1)).To(Equal(256), "not weighed (-j 4): a pack for every pairing")
		Expect(fullBatch(1, 8, 1)).To(Equal(16), "at least two packs")
		Expect(fullBatch(4, 8, HeavyWeight)).To(Equal(16), "at least two packs")
	})

	It("are not cut without lanes, nor when --pack is given (negative controls)", func() {
		Expect(cutPacks(1024, 64, false)).To(Equal(0))
		Expect(packOf(&Config{Pack: 64}, &fuzz.Generator{Pack: 8}, cutPacks(1024, 64, false))).To(Equal(64))
		Expect(packOf(&Config{}, &fuzz.Generator{Pack: 64}, 0)).To(Equal(64), "no cut: the generator's pack line")
	})
})

var _ = Describe("a batch's plan", func() {
	It("starts the packs whose schedules make their traffic latest first, the others as drawn", func() {
		g, err := fuzz.Parse("g.txtar", []byte(guideGen))
		Expect(err).NotTo(HaveOccurred())
		caseWith := func(i int, lag fuzz.Lag) caseJourney {
			c, err := fuzz.Draw([]*fuzz.Generator{g}, 9, i, fuzz.Options{})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Events).NotTo(BeEmpty())
			c.Schedule.Lag = [2]fuzz.Lag{lag}
			return caseJourney{c: c, name: c.Name}
		}
		none, late := fuzz.Lag{}, fuzz.Lag{D: 25 * time.Millisecond, Jitter: 25 * time.Millisecond}
		packs := [][]caseJourney{
			{caseWith(1, none), caseWith(2, none)},
			{caseWith(3, fuzz.Lag{D: time.Millisecond})},
			{caseWith(4, none)},
			{caseWith(5, late), caseWith(6, none)},
		}
		Expect(latestFirst(packs)).To(Equal([]int{3, 1, 0, 2}))
		Expect(latestFirst(packs[:1])).To(Equal([]int{0}))
		Expect(latestFirst([][]caseJourney{packs[0], packs[2]})).To(Equal([]int{0, 1}), "no delays: as drawn (negative control)")
	})
})
