package campaign

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
)

var _ = Describe("picking generators by name", func() {
	gens := func(names ...string) []*fuzz.Generator {
		var out []*fuzz.Generator
		for _, n := range names {
			out = append(out, &fuzz.Generator{Name: n})
		}
		return out
	}
	names := func(gs []*fuzz.Generator) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Name)
		}
		return out
	}

	It("keeps, after a draw, the generators named and the ones drawn from them, and only those", func() {
		drawn := gens("explore-term", "explore-notes", "journey-notes", "term", "session")
		got, err := pickDrawn(drawn, []string{"term"})
		Expect(err).NotTo(HaveOccurred())
		Expect(names(got)).To(Equal([]string{"explore-term", "term"}), "left out: explore-notes, journey-notes and session")
		got, err = pickDrawn(drawn, []string{"notes"})
		Expect(err).NotTo(HaveOccurred())
		Expect(names(got)).To(Equal([]string{"explore-notes", "journey-notes"}), "the drawn one and the whole journey")
		got, err = pickDrawn(drawn, []string{"explore-notes"})
		Expect(err).NotTo(HaveOccurred())
		Expect(names(got)).To(Equal([]string{"explore-notes"}))
		got, err = pickDrawn(drawn, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(HaveLen(5), "no names: every generator")
	})

	It("refuses a name that picks nothing, naming what there is", func() {
		_, err := pickDrawn(gens("explore-term", "term"), []string{"terminal"})
		Expect(usage.Is(err)).To(BeTrue())
		Expect(err).To(MatchError("Generators terminal: no such generator (this campaign has explore-term, term)"))
	})

	It("narrows the subject's generators before a draw without refusing a name the draw may make", func() {
		Expect(names(keepNamed(gens("term", "session"), []string{"notes", "term"}))).To(Equal([]string{"term"}))
		Expect(keepNamed(gens("term"), []string{"notes"})).To(BeEmpty())
	})
})

var _ = Describe("excluding events", func() {
	gen := func(name string, events ...string) *fuzz.Generator {
		g := &fuzz.Generator{Name: name}
		for _, e := range events {
			g.Events = append(g.Events, &fuzz.Section{Name: e})
		}
		return g
	}
	gens := []*fuzz.Generator{gen("explore-term", "held-HC-emit", "host-emit"), gen("term", "plain")}

	It("takes names and patterns that leave out an event", func() {
		Expect(checkExclude(gens, []string{"plain", "held-*"})).To(Succeed())
		Expect(checkExclude(gens, nil)).To(Succeed())
	})

	It("refuses one that leaves out nothing, with the events there are", func() {
		err := checkExclude(gens, []string{"plain", "host-emitt"})
		Expect(usage.Is(err)).To(BeTrue())
		Expect(err).To(MatchError("Exclude host-emitt: no event of the campaign's generators is named so (did you mean host-emit?); they draw held-HC-emit, host-emit, plain"))
		Expect(checkExclude([]*fuzz.Generator{gen("journey-sync")}, []string{"x*"})).To(MatchError(ContainSubstring("Exclude x*: no event")))
	})
})
