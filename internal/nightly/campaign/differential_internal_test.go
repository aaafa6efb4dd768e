package campaign

import (
	"path/filepath"

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

var _ = Describe("a differential case kept in the corpus", func() {
	// A generator whose one event is idle-past-quiet, marked differential or not.
	generator := func(differential string) *fuzz.Generator {
		g, err := fuzz.Parse("gen.txtar", []byte("kind desktop\nevents 1..1\n-- setup --\nclient subscribe\n-- event idle-past-quiet"+differential+
			" --\nidle for=6s\n-- finish --\nclient unsubscribe\n"))
		Expect(err).NotTo(HaveOccurred())
		return g
	}
	replayed := func(g *fuzz.Generator) caseJourney {
		c, err := fuzz.Draw([]*fuzz.Generator{g}, 1, 1, fuzz.Options{})
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		Expect(writeCase(dir, c)).To(Succeed())
		cj, err := corpusCase(filepath.Join(dir, c.Name+".txtar"))
		Expect(err).NotTo(HaveOccurred())
		Expect(cj.c).To(BeNil(), "replayed from its file, as the corpus is")
		return cj
	}
	ownFailure := func() *results.Pairing {
		return &results.Pairing{Status: results.StatusFail, Findings: []results.Finding{{Kind: results.Stall, Own: "worktree"}}}
	}

	It("is judged against the references alone when replayed, as when it was drawn", func() {
		cj := replayed(generator(" differential"))
		Expect(cj.isDifferential()).To(BeTrue())
		r := ownFailure()
		differential(cj, r)
		Expect(r.Status).To(Equal(results.StatusPass), "what a build shows with itself is what the contract allows")
	})

	It("keeps an ordinary case's findings when replayed (negative control)", func() {
		cj := replayed(generator(""))
		Expect(cj.isDifferential()).To(BeFalse())
		r := ownFailure()
		differential(cj, r)
		Expect(r.Status).To(Equal(results.StatusFail))
		Expect(r.Findings).To(HaveLen(1))
	})
})
