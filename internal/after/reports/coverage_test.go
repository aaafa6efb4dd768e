package reports_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

func withCoverage() *results.Run {
	run := sampleRun()
	run.Coverage = &results.Coverage{Items: []results.CoverageItem{
		{Category: results.CoverFrame, Item: "H>C OutputSpan (desktop)", Seen: 2},
		{Category: results.CoverFrame, Item: "H>C WriteUnavailable (desktop)", Seen: 0},
		{Category: results.CoverEnum, Item: `H>C SnapshotStart /kind = "resized"`, Seen: 1},
	}}
	return run
}

var _ = Describe("contract coverage in the reports", func() {
	It("shows what was exercised and names what never was, in every renderer", func() {
		var text bytes.Buffer
		reports.Matrix(&text, withCoverage())
		Expect(text.String()).To(ContainSubstring("CONTRACT COVERAGE\n  frames 1/2 covered; frames never sent: H>C WriteUnavailable (desktop)\n  enum values 1/1 covered\n"))
		Expect(reports.Markdown(withCoverage())).To(ContainSubstring("## Contract coverage\n\n- frames 1/2 covered; frames never sent: H>C WriteUnavailable (desktop)\n"))
		page, _ := renderHTML(withCoverage())
		Expect(page).To(ContainSubstring(`<details class="coverage" id="coverage">`))
		Expect(page).To(ContainSubstring(`<span class="cov" data-category="frame">frame 1/2</span>`))
		Expect(page).To(ContainSubstring(`<li><code>H&gt;C WriteUnavailable (desktop)</code></li>`))
		Expect(page).To(ContainSubstring(`<h3>enum: 1 of 1 exercised, all of them</h3>`))

		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, withCoverage())).To(Succeed())
		back, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Coverage).To(Equal(withCoverage().Coverage))
	})

	It("shows a campaign's coverage over time: what no campaign reached first, then each campaign, then the timeline", func() {
		run := withCoverage()
		t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
		run.Campaign = &results.Campaign{
			NeverReached: []results.CoverageItem{{Category: results.CoverFrame, Item: "H>C WriteUnavailable (desktop)"}},
			History: []results.CoverageNight{{Name: "explore", Seed: 1, Started: t0, Cases: 500, Reached: 40, New: 40, Ever: 40},
				{Name: "explore", Seed: 2, Started: t0.Add(24 * time.Hour), Cases: 480, Reached: 41, New: 2, Ever: 42}},
		}
		for i := range 30 {
			run.Campaign.Timeline = append(run.Campaign.Timeline, results.CoveragePoint{After: time.Duration(i+1) * time.Minute, Cases: 10 * (i + 1), Covered: i, Total: 50})
		}
		md := reports.Markdown(run)
		Expect(md).To(ContainSubstring("## Coverage over time\n\n1 part never reached by this campaign or any before it:\n\n- frame `H>C WriteUnavailable (desktop)`\n"))
		Expect(md).To(ContainSubstring("| explore | 2026-12-02 02:00 | 2 | 480 | 41 | 2 | 42 |\n"))
		Expect(md).To(ContainSubstring("| 1m0s | 10 | 0 of 50 |\n"))
		Expect(md).To(ContainSubstring("| 30m0s | 300 | 29 of 50 |\n"), "the last point is always shown")
		Expect(strings.Count(md, " of 50 |")).To(Equal(12), "twelve points of thirty")
		page, _ := renderHTML(run)
		Expect(page).To(ContainSubstring(`<details class="coverage" id="coverage-time" open>`))
		Expect(page).To(ContainSubstring(`<li><code>frame H&gt;C WriteUnavailable (desktop)</code></li>`))
		Expect(page).To(ContainSubstring(`<td>2026-12-02 02:00</td><td>2</td><td>480</td><td>41</td><td>2</td><td>42</td>`))
		Expect(strings.Count(page, " of 50</td>")).To(Equal(12))
	})

	It("shows no coverage for a run that has none (results.json written before coverage)", func() {
		var text bytes.Buffer
		reports.Matrix(&text, sampleRun())
		Expect(text.String()).NotTo(ContainSubstring("CONTRACT COVERAGE"))
		Expect(reports.Markdown(sampleRun())).NotTo(ContainSubstring("Contract coverage"))
		page, _ := renderHTML(sampleRun())
		Expect(page).NotTo(ContainSubstring(`id="coverage"`))
	})

	It("keeps a future-peer run apart from its pairing: its own journey row and label", func() {
		run := sampleRun()
		fut := *run.Pairings[0]
		fut.Future = true
		run.Pairings = append(run.Pairings, &fut)
		var text bytes.Buffer
		reports.Matrix(&text, run)
		Expect(text.String()).To(MatchRegexp(`worktree\s+worktree\s+desktop\s+terminal · future peers\s+PASS`))
		page, _ := renderHTML(run)
		Expect(page).To(ContainSubstring(`<section class="matrix" data-journey="terminal · future peers" data-kind="desktop">`))
		Expect(page).To(ContainSubstring(`href="#p1" data-id="1"`), "the plan keeps its numbers")
		Expect(page).To(ContainSubstring(`href="#p4" data-id="4"`), "the future-peer run is numbered after the plan")
		Expect(fut.Label()).To(HaveSuffix(" · terminal · future peers"))
	})
})
