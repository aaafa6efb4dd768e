package reports_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("a release's own bugs", func() {
	ownRun := func() *results.Run {
		lost := results.Finding{Kind: results.DataLoss, Step: "close", Direction: "H>C", Message: "the last output was lost", Own: "v1.4.120"}
		skew := results.Finding{Kind: results.DecoderRefusal, Step: "live", Direction: "C>H", Message: "host v1.4.190 refused Ack"}
		return &results.Run{SchemaVersion: results.SchemaVersion, Seed: 7, Pairings: []*results.Pairing{
			{Index: 1, Host: "v1.4.120", Client: "v1.4.120", ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail,
				Findings: []results.Finding{lost}, Repro: "skewtest repro --host v1.4.120 --client v1.4.120"},
			{Index: 2, Host: "v1.4.190", Client: "v1.4.120", ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail,
				Findings: []results.Finding{lost, skew}, Repro: "skewtest repro --host v1.4.190 --client v1.4.120"},
		}}
	}

	It("are reported in a section of their own, naming the reference, in the text, summary.md, junit.xml and report.html, and still fail the run", func() {
		run := ownRun()
		Expect(run.ExitCode()).To(Equal(1))

		var text bytes.Buffer
		reports.Matrix(&text, run)
		Expect(text.String()).To(ContainSubstring("OWN BUGS: findings a release shows with itself"))
		Expect(text.String()).To(ContainSubstring("  v1.4.120: [data-loss] step close H>C: the last output was lost (v1.4.120's own bug: it fails with itself too); " +
			"its reference shows it (host v1.4.120 × desktop client v1.4.120 · terminal); also in host v1.4.190 × desktop client v1.4.120 · terminal\n"))
		Expect(text.String()).To(MatchRegexp(`v1.4.190\s+v1.4.120\s+desktop\s+terminal\s+FAIL\s+0/0\s+data-loss \(own\), decoder-refusal\n`))
		Expect(text.String()).To(ContainSubstring("[decoder-refusal] step live C>H: host v1.4.190 refused Ack\n"), "a skew finding is no own bug")

		md := reports.Markdown(run)
		Expect(md).To(ContainSubstring("## Own bugs of releases\n"))
		Expect(md).To(ContainSubstring("- v1.4.120: [data-loss] step close H>C"))

		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring("(v1.4.120&#39;s own bug: it fails with itself too)"))

		var page bytes.Buffer
		Expect(reports.HTML(&page, run)).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`<section class="own-bugs" id="own-bugs">`))
		Expect(page.String()).To(ContainSubstring(`its reference: host v1.4.120 × desktop client v1.4.120 · terminal; also in host v1.4.190 × desktop client v1.4.120 · terminal`))
		Expect(page.String()).To(ContainSubstring(`"o":"v1.4.120"`))
	})

	It("leave a run without them as it was (negative control)", func() {
		run := ownRun()
		for _, p := range run.Pairings {
			for i := range p.Findings {
				p.Findings[i].Own = ""
			}
		}
		var text bytes.Buffer
		reports.Matrix(&text, run)
		Expect(text.String()).NotTo(ContainSubstring("OWN BUGS"))
		Expect(text.String()).NotTo(ContainSubstring("own bug"))
		Expect(reports.Markdown(run)).NotTo(ContainSubstring("Own bugs"))
		var page bytes.Buffer
		Expect(reports.HTML(&page, run)).To(Succeed())
		Expect(page.String()).NotTo(ContainSubstring(`id="own-bugs"`))
	})
})

var _ = Describe("a campaign's races", func() {
	It("are listed in summary.md with their schedule, replay rate and repro line; a campaign without one has no such section", func() {
		run := &results.Run{Campaign: &results.Campaign{Findings: []results.CampaignFinding{
			{Kind: results.Stall, Host: "worktree", Client: "worktree", ClientKind: "sync", Message: "await client applied not reached",
				Race: true, Schedule: "settle none, H>C 25ms±25ms", Replays: 10, Reproduced: 7, Repro: "skewtest repro --journey x.txtar"},
			{Kind: results.DataLoss, Host: "worktree", Client: "v0.3.0", ClientKind: "sync", Message: "lost"},
		}}}
		md := reports.Markdown(run)
		Expect(md).To(ContainSubstring("## Races"))
		Expect(md).To(ContainSubstring("- **stall** on host worktree × sync client worktree · fuzz: schedule `settle none, H>C 25ms±25ms`, reproduced 7 of 10 replays; await client applied not reached"))
		Expect(md).To(ContainSubstring("skewtest repro --journey x.txtar"))
		Expect(md).NotTo(ContainSubstring("data-loss"), "not a race")

		run.Campaign.Findings[0].Race = false
		Expect(reports.Markdown(run)).NotTo(ContainSubstring("## Races"))
	})
})
