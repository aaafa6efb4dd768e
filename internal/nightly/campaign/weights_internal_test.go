package campaign

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
)

var _ = Describe("what a case weighs in lanes", func() {
	gen := func(events string) *fuzz.Generator {
		g, err := fuzz.Parse("g.txtar", []byte("kind desktop\n-- setup --\nclient subscribe terminal=t1\n"+events))
		Expect(err).NotTo(HaveOccurred())
		return g
	}
	DescribeTable("is read from its generator's text",
		func(events string, want int) {
			Expect(weightOf(gen(events))).To(Equal(want))
		},
		// explore's drawn terminal events: an edge up to a mebibyte.
		Entry("an edge to a mebibyte is heavy", "-- event host-emit-output-edge --\nhost emit-output terminal=t1 text={edge 0..1048576 49152}\n", HeavyWeight),
		Entry("three chunks of a size are heavy", "-- event big --\nhost emit-output terminal=t1 text={size 49152 ±4}\n", HeavyWeight),
		Entry("one heavy event makes the generator heavy", "-- event a weight=9 --\nhost emit-output terminal=t1 text={utf8 0..4096}\n-- event b --\nhost emit-output terminal=t1 text={ascii 300000..1200000}\n", HeavyWeight),
		Entry("a literal of 64 KiB is heavy", "-- event a --\nhost emit-output terminal=t1 text=\"x\"*65536\n", HeavyWeight),
		// Negative controls: light.
		Entry("explore's random text (4 KiB) is light", "-- event a --\nhost emit-output terminal=t1 text={utf8 0..4096 valid}\n", 1),
		Entry("just under 64 KiB is light", "-- event a --\nhost emit-output terminal=t1 text={bytes 0..65535}\n", 1),
		Entry("a session's numbers and picks are light", "-- event call --\nclient call method={one ping list} id={int 1..65535}\n", 1),
		Entry("a drawn idle is light, however long", "-- event idle --\nidle for={one 4s 9s}\n", 1),
	)

	It("weighs a journey no generator drew by its values, and a plan's pairings by their journeys only when the campaign weighs", func() {
		parse := func(value string) *journeys.Journey {
			j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep s\nhost emit-output text="+value+"\n"))
			Expect(err).NotTo(HaveOccurred())
			return j
		}
		light, heavy := parse(`"x"*100`), parse(`"x"*70000`)
		Expect(weightOfJourney(light)).To(Equal(1))
		Expect(weightOfJourney(heavy)).To(Equal(HeavyWeight))

		weights := map[*journeys.Journey]int{light: 1, heavy: HeavyWeight}
		pooled := harness.ExecuteOptions{Parallel: 64, Pairing: harness.Options{Pool: &harness.Pool{}}}
		cp := &campaign{weighs: true}
		w := cp.weighed(pooled, weights).Weight
		Expect(w).NotTo(BeNil())
		Expect(w(harness.Pairing{Journey: light})).To(Equal(1))
		Expect(w(harness.Pairing{Journey: heavy})).To(Equal(HeavyWeight))
		Expect(w(harness.Pairing{Journey: parse(`"y"`)})).To(Equal(HeavyWeight), "a journey not weighed counts as heavy")
		Expect(cp.share()).To(Equal(HeavyWeight))

		cp.weighs = false // -j given
		Expect(cp.weighed(pooled, weights).Weight).To(BeNil(), "-j N: N pairings at once, whatever they weigh")
		Expect(cp.share()).To(Equal(1))
		cp.weighs = true
		Expect(cp.weighed(harness.ExecuteOptions{Parallel: 4}, weights).Weight).To(BeNil(), "not in lanes: unweighed")
	})

	It("says in the lanes line how many pairings of each weight run at once", func() {
		cp := &campaign{weighs: true, pooled: harness.ExecuteOptions{Parallel: 64}}
		Expect(cp.atOnce()).To(Equal(fmt.Sprintf("64 pairings at once, %d of cases that move %d KiB or more", 64/HeavyWeight, HeavyValue>>10)))
		cp.weighs, cp.pooled.Parallel = false, 8
		Expect(cp.atOnce()).To(Equal("8 pairings at once"))
	})
})
