package campaign

import (
	"fmt"

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

var _ = Describe("the cases of a ramped campaign", func() {
	It("are the same cases, in the same order, however the slots are cut into batches: the same seed gives the same case list", func() {
		g, err := fuzz.Parse("g.txtar", []byte(guideGen))
		Expect(err).NotTo(HaveOccurred())
		// A guided campaign with schedules, as explore's: the guide keeps what earlier
		// slots drew, so this holds only if it keeps it slot by slot.
		campaignOf := func() *campaign {
			return &campaign{o: &Config{Config: matrix.Config{Seed: 9}, Schedules: true}, gens: []*fuzz.Generator{g},
				guide: newGuide(newMemory()), drawn: map[string]bool{}}
		}
		listOf := func(sizes ...int) []string {
			cp, next := campaignOf(), 1
			var out []string
			for _, n := range sizes {
				cs, err := cp.drawCases(next, n)
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
		cs, err := other.drawCases(1, 60)
		Expect(err).NotTo(HaveOccurred())
		var list []string
		for _, c := range cs {
			list = append(list, fmt.Sprintf("%s %v %s", c.Name, c.EventNames(), c.Schedule))
		}
		Expect(list).NotTo(Equal(ramped), "another seed, other cases (negative control)")
	})
})
