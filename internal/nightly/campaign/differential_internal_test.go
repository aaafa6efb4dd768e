package campaign

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("judging a case that idles past the quiet period", func() {
	caseOf := func(differential bool) caseJourney {
		e := &fuzz.Section{Name: "idle-past-quiet", Differential: differential}
		return caseJourney{c: &fuzz.Case{Events: []*fuzz.Instance{{Section: e}}}, name: "fuzz-x-1"}
	}
	failing := func(future bool, owns ...string) *results.Pairing {
		r := &results.Pairing{Status: results.StatusFail, Future: future}
		for _, o := range owns {
			r.Findings = append(r.Findings, results.Finding{Kind: results.Stall, Own: o})
		}
		return r
	}

	It("leaves out what a build shows with itself, and passes a pairing with nothing left", func() {
		r := failing(false, "worktree", "v1.4.190")
		differential(caseOf(true), r)
		Expect(r.Status).To(Equal(results.StatusPass))
		Expect(r.Findings).To(BeEmpty())
	})

	It("keeps what neither reference shows: a skew", func() {
		r := failing(false, "worktree", "")
		differential(caseOf(true), r)
		Expect(r.Status).To(Equal(results.StatusFail))
		Expect(r.Findings).To(HaveLen(1))
		Expect(r.Findings[0].Own).To(BeEmpty())
	})

	It("leaves out a future-peer pass's findings, whose references do not run", func() {
		r := failing(true, "")
		differential(caseOf(true), r)
		Expect(r.Status).To(Equal(results.StatusPass))
	})

	It("judges every other case as before (negative control)", func() {
		for _, cj := range []caseJourney{caseOf(false), {name: "corpus"}} {
			r := failing(true, "worktree", "")
			differential(cj, r)
			Expect(r.Status).To(Equal(results.StatusFail))
			Expect(r.Findings).To(HaveLen(2))
		}
	})
})
