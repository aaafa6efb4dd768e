package reports_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

func sampleRun() *results.Run {
	return &results.Run{SchemaVersion: results.SchemaVersion, Seed: 42,
		Builds: []results.Build{{Label: "worktree", Revision: "worktree", Status: "built"}, {Label: "v1.4.120", Revision: "abcdef0123456789", Status: "cached"}},
		Pairings: []*results.Pairing{
			{Index: 1, Host: "worktree", Client: "worktree", ClientKind: "desktop", Journey: "terminal", Status: results.StatusPass,
				CompletedSteps: []string{"a", "b"}, StepsTotal: 2, Findings: []results.Finding{}, Repro: "skewtest repro --host worktree",
				Transcript: "pairings/001/transcript.json.gz", Logs: []string{"pairings/001/host.log"},
				Timeline: []results.FrameEvent{{Index: 0, Conn: 1, Dir: "C>H", Name: "Subscribe", Step: "a", Arrived: "b", Size: 30, Payload: new(14),
					AtNs: 1500, Fields: `{"opcode":9,"stream":0,"value":{"streamId":1}}`},
					{Index: 1, Conn: 1, Dir: "H>C", Name: "ping", Step: "a", AtNs: 2500, Control: true}}},
			{Index: 2, Host: "v1.4.190", Client: "v1.4.120", ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail,
				CompletedSteps: []string{"a"}, StepsTotal: 2, Repro: "skewtest repro --host v1.4.190 --client v1.4.120",
				Findings: []results.Finding{{Kind: results.DecoderRefusal, Step: "b", Direction: "H>C",
					Frame: &results.Frame{Opcode: 15, Name: "OutputSpan"}, Message: "refused", Detail: "line 1\nline 2"}}},
			{Index: 3, Host: "v1", Client: "v2", ClientKind: "mobile", Journey: "terminal-mobile", Status: results.StatusError, Error: "build v1 failed"},
		}}
}

var _ = Describe("reports", func() {
	It("writes results.json that reads back the same", func() {
		dir := GinkgoT().TempDir()
		run := sampleRun()
		Expect(reports.Write(dir, run)).To(Succeed())
		back, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back).To(Equal(run))
		raw, err := os.ReadFile(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		for _, key := range []string{`"schemaVersion": 1`, `"seed": 42`, `"clientKind": "desktop"`, `"completedSteps"`,
			`"kind": "decoder-refusal"`, `"direction": "H>C"`, `"opcode": 15`, `"repro"`, `"index": 2`, `"logs": [`,
			`"timeline": [`, `"atNs": 1500`, `"control": true`} {
			Expect(string(raw)).To(ContainSubstring(key))
		}
		Expect(filepath.Join(dir, reports.SummaryFile)).To(BeAnExistingFile())
		Expect(filepath.Join(dir, reports.HTMLFile)).To(BeAnExistingFile())
	})

	It("round-trips the fields of sharded, interrupted and retried runs", func() {
		dir := GinkgoT().TempDir()
		run := sampleRun()
		run.Shard, run.Interrupted, run.NotRun = "2/3", true, 5
		run.Pairings[1].Status = results.StatusFlaky
		run.Pairings[1].Attempts = []results.Status{results.StatusFail, results.StatusPass}
		Expect(reports.Write(dir, run)).To(Succeed())
		back, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back).To(Equal(run))
		raw, err := os.ReadFile(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		for _, key := range []string{`"shard": "2/3"`, `"interrupted": true`, `"notRun": 5`, `"status": "flaky"`, `"attempts": [`} {
			Expect(string(raw)).To(ContainSubstring(key))
		}
	})

	It("appends summary.md to $GITHUB_STEP_SUMMARY when it is set", func() {
		summary := filepath.Join(GinkgoT().TempDir(), "step-summary.md")
		Expect(os.WriteFile(summary, []byte("# earlier step\n"), 0o644)).To(Succeed())
		GinkgoT().Setenv(reports.StepSummaryEnv, summary)
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, sampleRun())).To(Succeed())
		written, err := os.ReadFile(filepath.Join(dir, reports.SummaryFile))
		Expect(err).NotTo(HaveOccurred())
		got, err := os.ReadFile(summary)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("# earlier step\n" + string(written) + "\n"))
	})

	It("cuts a summary too long for GitHub short, saying so", func() {
		summary := filepath.Join(GinkgoT().TempDir(), "step-summary.md")
		long := strings.Repeat("| a row of a huge matrix |\n", 60000)
		Expect(reports.AppendStepSummary(summary, long)).To(Succeed())
		got, err := os.ReadFile(summary)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(got)).To(BeNumerically("<", 1<<20))
		Expect(string(got)).To(HaveSuffix("cut short: the whole summary is summary.md in the report.\n\n"))
	})

	It("renders a flaky pairing as a failure with its attempts, everywhere", func() {
		run := sampleRun()
		run.Pairings = run.Pairings[:2]
		run.Pairings[1].Status = results.StatusFlaky
		run.Pairings[1].Attempts = []results.Status{results.StatusFail, results.StatusPass, results.StatusPass}
		Expect(run.ExitCode()).To(Equal(1))

		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(MatchRegexp(`v1.4.190\s+v1.4.120\s+desktop\s+terminal\s+FLAKY`))
		Expect(b.String()).To(ContainSubstring("FLAKY host v1.4.190 × desktop client v1.4.120 · terminal\n  attempts: fail, pass, pass\n"))
		Expect(b.String()).To(ContainSubstring("2 pairings: 1 passed, 0 failed, 1 flaky, 0 errors, 0 expected refusals (seed 42)"))

		md := reports.Markdown(run)
		Expect(md).To(ContainSubstring("**1 flaky**"))
		Expect(md).To(ContainSubstring("— FLAKY\n\nattempts: fail, pass, pass"))

		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`<failure message="attempts: fail, pass, pass; decoder-refusal" type="flaky">`))
		Expect(string(data)).To(ContainSubstring(`failures="1"`))
	})

	It("shows the pairings the plan could not run, everywhere", func() {
		run := sampleRun()
		run.Skipped = []results.Skip{{Host: "v1.4.190", Client: "v1.4.100", ClientKind: "mobile", Journey: "terminal-mobile",
			Reason: "client v1.4.100 has no mobile driver"}}
		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(ContainSubstring("SKIPPED host v1.4.190 × mobile client v1.4.100 · terminal-mobile: client v1.4.100 has no mobile driver\n"))
		Expect(b.String()).To(ContainSubstring("0 expected refusals, 1 skipped (seed 42)"))
		Expect(reports.Markdown(run)).To(ContainSubstring("| v1.4.190 | v1.4.100 | mobile | terminal-mobile | client v1.4.100 has no mobile driver |"))
		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`<skipped message="client v1.4.100 has no mobile driver"></skipped>`))
		Expect(string(data)).To(MatchRegexp(`<testsuites name="skewtest" tests="4" failures="1" errors="1" skipped="1">`))
		var page bytes.Buffer
		Expect(reports.HTML(&page, run)).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`<span class="cell skipped" title="host v1.4.190 × mobile client v1.4.100 · terminal-mobile: skipped: client v1.4.100 has no mobile driver">skipped</span>`))
		Expect(page.String()).To(ContainSubstring(`1 skipped</span>`))
	})

	It("says when a run was interrupted", func() {
		run := sampleRun()
		run.Interrupted, run.NotRun = true, 7
		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(ContainSubstring(", 7 not run (seed 42)\ninterrupted: 7 pairings of the plan did not run; the matrix is incomplete\n"))
		Expect(reports.Markdown(run)).To(ContainSubstring("> **interrupted: 7 pairings of the plan did not run"))
		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`<error message="interrupted: 7 pairings of the plan did not run; the matrix is incomplete" type="interrupted">`))

		whole, err := reports.JUnit(sampleRun())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(whole)).NotTo(ContainSubstring(`type="interrupted"`), "control: a whole run has no such case")
	})

	It("refuses a results.json from a newer schema", func() {
		p := filepath.Join(GinkgoT().TempDir(), "r.json")
		Expect(os.WriteFile(p, []byte(`{"schemaVersion": 99}`), 0o644)).To(Succeed())
		_, err := results.Load(p)
		Expect(err).To(MatchError(ContainSubstring("newer than this skewtest")))
	})

	It("renders JUnit with one case per pairing and failures carrying the findings", func() {
		data, err := reports.JUnit(sampleRun())
		Expect(err).NotTo(HaveOccurred())
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
						Text    string `xml:",chardata"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(data, &doc)).To(Succeed())
		Expect(doc.Tests).To(Equal(3))
		Expect(doc.Failures).To(Equal(1))
		Expect(doc.Errors).To(Equal(1))
		Expect(doc.Suites[0].Name).To(Equal("terminal"))
		f := doc.Suites[0].Cases[1].Failure
		Expect(f.Message).To(Equal("decoder-refusal"))
		Expect(f.Text).To(ContainSubstring("[decoder-refusal] step b H>C: refused"))
		Expect(f.Text).To(ContainSubstring("repro: skewtest repro --host v1.4.190"))
	})

	It("prints the matrix, each failure with its repro, and the totals", func() {
		var b bytes.Buffer
		reports.Matrix(&b, sampleRun())
		out := b.String()
		Expect(out).To(ContainSubstring("HOST"))
		Expect(out).To(MatchRegexp(`v1.4.190\s+v1.4.120\s+desktop\s+terminal\s+FAIL\s+1/2\s+decoder-refusal`))
		Expect(out).To(ContainSubstring("      line 2"))
		Expect(out).To(ContainSubstring("repro: skewtest repro --host v1.4.190 --client v1.4.120"))
		Expect(out).To(ContainSubstring("3 pairings: 1 passed, 1 failed, 1 errors, 0 expected refusals (seed 42)"))
	})

	It("shows the fixture tier's refusals, everywhere, and fails the run on them", func() {
		run := sampleRun()
		run.Pairings = run.Pairings[:1]
		refusal := results.Finding{Kind: results.DecoderRefusal, Step: "output", Direction: "H>C",
			Message: "desktop client worktree refused H>C OutputSpan (message 14 of fixture v1.4.190/desktop-terminal.json.gz): unknown opcode"}
		run.Fixtures = &results.Fixtures{Dir: "skewtest/fixtures", Releases: []string{"v1.4.120", "v1.4.190"}, Recordings: 2, Frames: 47,
			Skipped: []string{"host v1.4.120: outside the support window"}}
		Expect(run.ExitCode()).To(Equal(0), "fixtures that refuse nothing fail nothing")
		Expect(reports.Markdown(run)).To(ContainSubstring("## Fixtures\n\n2 recordings of v1.4.120, v1.4.190 (`skewtest/fixtures`), 47 frames into the working tree's decoders before any pairing ran: 0 refusals.\n\n- skipped host v1.4.120: outside the support window\n"))

		run.Fixtures.Findings = []results.Finding{refusal}
		Expect(run.ExitCode()).To(Equal(1))
		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(HavePrefix("FIXTURES: 1 refusal of the working tree's decoders asked about earlier releases' recordings, before any pairing ran\n  [decoder-refusal] step output H>C: desktop client worktree refused"))
		Expect(b.String()).To(ContainSubstring("; fixtures: 1 refusal (seed 42)"))
		Expect(reports.Markdown(run)).To(ContainSubstring("- [decoder-refusal] step output H>C: desktop client worktree refused H>C OutputSpan"))
		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`<testsuite name="fixtures"`))
		Expect(string(data)).To(ContainSubstring(`type="decoder-refusal"`))
		var page bytes.Buffer
		Expect(reports.HTML(&page, run)).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`<section class="notice" id="fixtures">`))
		Expect(page.String()).To(ContainSubstring("Fixtures: 1 frame(s) refused of 47"))
	})

	It("maps a run to its exit code", func() {
		run := sampleRun()
		Expect(run.ExitCode()).To(Equal(3), "errors outrank findings")
		run.Pairings = run.Pairings[:2]
		Expect(run.ExitCode()).To(Equal(1))
		run.Pairings = run.Pairings[:1]
		Expect(run.ExitCode()).To(Equal(0))
	})
})
