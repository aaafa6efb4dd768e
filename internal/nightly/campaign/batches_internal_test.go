package campaign

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
