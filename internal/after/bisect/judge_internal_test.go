package bisect

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/results"
)

var _ = Describe("judge", func() {
	pairing := func(status results.Status, kinds ...results.Kind) *results.Run {
		p := &results.Pairing{Host: "abc", Client: "v1", ClientKind: "desktop", Status: status}
		for _, k := range kinds {
			p.Findings = append(p.Findings, results.Finding{Kind: k, Message: string(k)})
		}
		ref := &results.Pairing{Host: "v1", Client: "v1", ClientKind: "desktop", Status: results.StatusPass}
		return &results.Run{Builds: []results.Build{{Label: "abc", Status: "built"}}, Pairings: []*results.Pairing{ref, p}}
	}
	judged := func(b *bisection, run *results.Run) results.Candidate {
		t := &tested{}
		b.judge(t, run, "abc", "v1", "abc")
		return t.cand
	}
	newBisection := func() *bisection {
		return &bisection{c: &Config{Kind: "desktop"}, out: &results.Bisect{}}
	}

	It("takes the bad end's failing kinds as what makes a candidate bad", func() {
		b := newBisection()
		Expect(judged(b, pairing(results.StatusFail, results.DecoderRefusal))).To(HaveField("Verdict", results.VerdictBad))
		Expect(b.out.Kinds).To(Equal([]results.Kind{results.DecoderRefusal}))
		Expect(judged(b, pairing(results.StatusFail, results.Stall))).To(And(HaveField("Verdict", results.VerdictGood),
			HaveField("Why", "fails, but not this way: stall")))
		Expect(judged(b, pairing(results.StatusPass))).To(HaveField("Verdict", results.VerdictGood))
	})

	It("never takes a candidate whose attempts disagree as good or bad", func() {
		b := newBisection()
		run := pairing(results.StatusFlaky, results.DecoderRefusal)
		run.Pairings[1].Attempts = []results.Status{results.StatusFail, results.StatusPass}
		Expect(judged(b, run)).To(And(HaveField("Verdict", results.VerdictFlaky), HaveField("Why", "its attempts disagree: fail, pass")))
	})

	It("skips a candidate that does not build, or that the harness could not run", func() {
		b := newBisection()
		run := pairing(results.StatusError)
		run.Builds[0] = results.Build{Label: "abc", Status: "error", Error: "exit status 1\nmore"}
		Expect(judged(b, run)).To(And(HaveField("Verdict", results.VerdictSkipped), HaveField("Why", "does not build: exit status 1")))
		run = pairing(results.StatusError)
		run.Pairings[1].Error = "driver never got ready"
		Expect(judged(b, run)).To(HaveField("Why", "the harness could not run it: driver never got ready"))
	})
})
