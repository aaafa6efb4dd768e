package reports_test

import (
	"bytes"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("A bisection's reports", func() {
	bisected := func() *results.Run {
		bad := results.Candidate{Ref: "3f0c2a1b9d8e", Commit: "3f0c2a1b9d8e0000000000000000000000000000", Subject: "host: frame transformed runs as OutputSpan",
			Author: "release bot", Date: time.Date(2026, 7, 15, 10, 0, 0, 0, time.UTC), Verdict: results.VerdictBad, Why: "decoder-refusal"}
		good := results.Candidate{Ref: "v1.4.146", Tag: true, Commit: "9a7d000000000000000000000000000000000000", Verdict: results.VerdictGood}
		broken := results.Candidate{Ref: "b79956c0ffee", Verdict: results.VerdictSkipped, Why: "does not build: exit status 1"}
		return &results.Run{Seed: 1, Bisect: &results.Bisect{Side: "host", Fixed: "v1.4.146", Kind: "mobile", Journey: "terminal-mobile",
			Good: "v1.4.146", Bad: "v1.4.147", LastGoodTag: "v1.4.146", FirstBadTag: "v1.4.147", LastGood: &good, FirstBad: &bad, Exact: true,
			Candidates: []results.Candidate{bad, good, broken},
			Brought:    []results.Finding{{Kind: results.DecoderRefusal, Message: "mobile client v1.4.146 refused H>C OutputSpan"}}}}
	}

	It("says the first bad release and commit, what it brought, and every candidate", func() {
		md := reports.Markdown(bisected())
		Expect(md).To(ContainSubstring("## Bisect\n\nThe host side moved from `v1.4.146` to `v1.4.147`, client `v1.4.146` fixed"))
		Expect(md).To(ContainSubstring("- First bad release: **v1.4.147** (last good: v1.4.146)"))
		Expect(md).To(ContainSubstring("- First bad commit: **`3f0c2a1b9d8e`** host: frame transformed runs as OutputSpan (release bot, 2026-07-15)"))
		Expect(md).To(ContainSubstring("- brought: [decoder-refusal]"))
		Expect(md).To(ContainSubstring("| 3 | b79956c0ffee | `` |  | skipped | does not build: exit status 1 |"))

		var page bytes.Buffer
		Expect(reports.HTML(&page, bisected())).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`id="bisect"`))
		Expect(page.String()).To(ContainSubstring("host: frame transformed runs as OutputSpan"))
	})

	It("names every suspect when candidates between could not be judged", func() {
		run := bisected()
		run.Bisect.Exact, run.Bisect.Suspects = false, []string{"b79956c0ffee", "3f0c2a1b9d8e"}
		Expect(reports.Markdown(run)).To(ContainSubstring("- First bad commit: one of `b79956c0ffee`, `3f0c2a1b9d8e` (the others could not be judged)"))
	})

	It("leaves a run without a bisection as it was", func() {
		var page bytes.Buffer
		Expect(reports.HTML(&page, &results.Run{Seed: 1})).To(Succeed())
		Expect(page.String()).NotTo(ContainSubstring(`bisect`))
		Expect(reports.Markdown(&results.Run{Seed: 1})).NotTo(ContainSubstring("Bisect"))
	})
})
