package reports_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/results"
)

func sampleRun() *results.Run {
	return &results.Run{SchemaVersion: results.SchemaVersion, Seed: 42,
		Builds: []results.Build{{Label: "worktree", Revision: "worktree", Status: "built"}, {Label: "v1.4.120", Revision: "abcdef0123456789", Status: "cached"}},
		Pairings: []*results.Pairing{
			{Host: "worktree", Client: "worktree", ClientKind: "desktop", Journey: "terminal", Status: results.StatusPass,
				CompletedSteps: []string{"a", "b"}, StepsTotal: 2, Findings: []results.Finding{}, Repro: "skewtest repro --host worktree"},
			{Host: "v1.4.190", Client: "v1.4.120", ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail,
				CompletedSteps: []string{"a"}, StepsTotal: 2, Repro: "skewtest repro --host v1.4.190 --client v1.4.120",
				Findings: []results.Finding{{Kind: results.DecoderRefusal, Step: "b", Direction: "H>C",
					Frame: &results.Frame{Opcode: 15, Name: "OutputSpan"}, Message: "refused", Detail: "line 1\nline 2"}}},
			{Host: "v1", Client: "v2", ClientKind: "mobile", Journey: "terminal-mobile", Status: results.StatusError, Error: "build v1 failed"},
		}}
}

var _ = Describe("reports", func() {
	It("writes results.json that reads back the same", func() {
		dir := GinkgoT().TempDir()
		run := sampleRun()
		Expect(reports.Write(dir, run)).To(Succeed())
		back, err := reports.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back).To(Equal(run))
		raw, err := os.ReadFile(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		for _, key := range []string{`"schemaVersion": 1`, `"seed": 42`, `"clientKind": "desktop"`, `"completedSteps"`,
			`"kind": "decoder-refusal"`, `"direction": "H>C"`, `"opcode": 15`, `"repro"`} {
			Expect(string(raw)).To(ContainSubstring(key))
		}
		Expect(filepath.Join(dir, reports.SummaryFile)).To(BeAnExistingFile())
	})

	It("refuses a results.json from a newer schema", func() {
		p := filepath.Join(GinkgoT().TempDir(), "r.json")
		Expect(os.WriteFile(p, []byte(`{"schemaVersion": 99}`), 0o644)).To(Succeed())
		_, err := reports.Load(p)
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

	It("maps a run to its exit code", func() {
		run := sampleRun()
		Expect(run.ExitCode()).To(Equal(3), "errors outrank findings")
		run.Pairings = run.Pairings[:2]
		Expect(run.ExitCode()).To(Equal(1))
		run.Pairings = run.Pairings[:1]
		Expect(run.ExitCode()).To(Equal(0))
	})
})
