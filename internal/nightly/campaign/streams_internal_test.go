package campaign

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

var _ = Describe("a campaign's streams", func() {
	gen := func(name, events string) *fuzz.Generator {
		g, err := fuzz.Parse(name+".txtar", []byte("kind desktop\nevents 1..3\n-- setup --\nclient subscribe terminal=t1\n"+events))
		Expect(err).NotTo(HaveOccurred())
		return g
	}
	light := func(name string) *fuzz.Generator {
		return gen(name, "-- event a --\nhost emit-output terminal=t1 text={utf8 0..4096 valid}\n-- event b --\nclient resize terminal=t1 cols={int 20..200}\n")
	}
	heavy := func(name string) *fuzz.Generator {
		return gen(name, "-- event big --\nhost emit-output terminal=t1 text={edge 0..1048576 49152}\n-- event a --\nhost emit-output terminal=t1 text={utf8 0..4096 valid}\n")
	}
	names := func(ss []*stream) [][]string {
		var out [][]string
		for _, s := range ss {
			var n []string
			for _, g := range s.gens {
				n = append(n, g.Name)
			}
			out = append(out, n)
		}
		return out
	}
	budgeted := func(gens ...*fuzz.Generator) *campaign {
		return &campaign{o: &Config{Config: matrix.Config{Seed: 3}, Budget: time.Minute, Guided: true}, gens: gens, deadline: time.Now().Add(time.Minute),
			weighs: true, lanes: true, mem: newMemory(), drawn: map[string]bool{}}
	}

	It("are the light generators and the heavy ones, side by side, when a budgeted campaign weighs its pairings", func() {
		cp := budgeted(heavy("terminal"), light("session"), heavy("explore-terminal"), light("session-order"))
		ss := cp.streamsOf()
		Expect(names(ss)).To(Equal([][]string{{"session", "session-order"}, {"terminal", "explore-terminal"}}))
		Expect(ss[0].guide).NotTo(BeNil())
		Expect(ss[1].guide).NotTo(BeIdenticalTo(ss[0].guide), "each stream guides its own draws")
		Expect(ss[0].units).NotTo(BeNil(), "the light stream's batches share its units, two in flight")
		Expect(ss[1].units).To(BeNil(), "the heavy stream's run one at a time")
	})

	It("are one stream of every generator otherwise (negative controls)", func() {
		all := []string{"terminal", "session"}
		cp := budgeted(heavy("terminal"), light("session"))
		cp.deadline, cp.o.Budget = time.Time{}, 0
		Expect(names(cp.streamsOf())).To(Equal([][]string{all}), "a count of cases draws slot by slot from every generator")
		Expect(cp.streamsOf()[0].units).To(BeNil(), "a count of cases runs one batch at a time")
		cp = budgeted(heavy("terminal"), light("session"))
		cp.weighs = false
		Expect(names(cp.streamsOf())).To(Equal([][]string{all}), "-j given: pairings are not weighed")
		cp = budgeted(light("session"), light("session-order"))
		Expect(names(cp.streamsOf())).To(Equal([][]string{{"session", "session-order"}}), "one weight")
		Expect(cp.streamsOf()[0].units).NotTo(BeNil(), "one stream under a budget still keeps two batches in flight")
		cp.lanes = false
		Expect(cp.streamsOf()[0].units).To(BeNil(), "not in lanes: one batch at a time")
		cp = budgeted(heavy("terminal"), heavy("explore-terminal"))
		ss := cp.streamsOf()
		Expect(names(ss)).To(Equal([][]string{{"terminal", "explore-terminal"}}))
		Expect(ss[0].units).To(BeNil(), "heavy generators' batches run one at a time: a second in flight holds its references' megabytes")
	})

	It("draw each stream's cases from its generators and the seed alone, whatever the other stream draws", func() {
		list := func(cp *campaign, s *stream, n int) []string {
			cs, err := cp.drawCases(s, 1, n)
			Expect(err).NotTo(HaveOccurred())
			var out []string
			for _, c := range cs {
				Expect(s.gens).To(ContainElement(c.Gen), "a stream draws from its own generators")
				out = append(out, fmt.Sprintf("%s %v", c.Name, c.EventNames()))
			}
			return out
		}
		gens := []*fuzz.Generator{heavy("terminal"), light("session"), heavy("explore-terminal"), light("session-order")}
		cp := budgeted(gens...)
		ss := cp.streamsOf()
		// Interleaved: light, heavy, light…
		first := list(cp, ss[0], 20)
		Expect(list(cp, ss[1], 20)).NotTo(BeEmpty())
		again := budgeted(gens...)
		Expect(list(again, again.streamsOf()[0], 20)).To(Equal(first), "the light stream alone draws the same cases")
		Expect(strings.Join(first, "\n")).NotTo(ContainSubstring("terminal"))
		other := budgeted(gens...)
		other.o.Seed = 4
		Expect(list(other, other.streamsOf()[0], 20)).NotTo(Equal(first), "another seed, other cases (negative control)")
	})
})
