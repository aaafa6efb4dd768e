package reports_test

import (
	"bytes"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/reports"
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
		back, err := reports.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Coverage).To(Equal(withCoverage().Coverage))
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
