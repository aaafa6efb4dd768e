package reports_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/results"
)

// junitProperties are the properties of each suite of a JUnit document, by suite.
func junitProperties(run *results.Run) [][]struct{ Name, Value string } {
	GinkgoHelper()
	data, err := reports.JUnit(run)
	Expect(err).NotTo(HaveOccurred())
	var doc struct {
		Suites []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	Expect(xml.Unmarshal(data, &doc)).To(Succeed())
	var out [][]struct{ Name, Value string }
	for _, s := range doc.Suites {
		var ps []struct{ Name, Value string }
		for _, p := range s.Properties {
			ps = append(ps, struct{ Name, Value string }{p.Name, p.Value})
		}
		out = append(out, ps)
	}
	return out
}

var _ = Describe("the skewtest that made a run", func() {
	It("is named by results.json, the text summary, summary.md, junit.xml and report.html", func() {
		run := sampleRun()
		run.ToolVersion = "v1.2.0-3-gabc1234-dirty"
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, run)).To(Succeed())
		raw, err := os.ReadFile(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(ContainSubstring(`"toolVersion": "v1.2.0-3-gabc1234-dirty"`))
		back, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.ToolVersion).To(Equal(run.ToolVersion))

		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(ContainSubstring("0 expected refusals (seed 42, skewtest v1.2.0-3-gabc1234-dirty)\n"))
		Expect(reports.Markdown(run)).To(ContainSubstring(". Seed `42`, skewtest `v1.2.0-3-gabc1234-dirty`.\n"))
		props := junitProperties(run)
		Expect(props).NotTo(BeEmpty())
		for _, ps := range props {
			Expect(ps).To(ConsistOf(struct{ Name, Value string }{reports.VersionProperty, "v1.2.0-3-gabc1234-dirty"}))
		}
		page, _ := renderHTML(run)
		Expect(page).To(ContainSubstring(`<dt>skewtest</dt><dd id="tool-version"><code>v1.2.0-3-gabc1234-dirty</code></dd>`))
		Expect(page).To(ContainSubstring(`<meta name="generator" content="skewtest v1.2.0-3-gabc1234-dirty">`))
	})

	It("is left out of every report when a run saved before it was recorded does not say (the control)", func() {
		run := sampleRun()
		run.Tool = "skewtest"
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, run)).To(Succeed())
		raw, err := os.ReadFile(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(`toolVersion`))
		var b bytes.Buffer
		reports.Matrix(&b, run)
		Expect(b.String()).To(ContainSubstring("(seed 42)\n"))
		Expect(reports.Markdown(run)).To(ContainSubstring(". Seed `42`.\n"))
		for _, ps := range junitProperties(run) {
			Expect(ps).To(BeEmpty())
		}
		data, err := reports.JUnit(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("<properties"))
		page, _ := renderHTML(run)
		Expect(page).NotTo(ContainSubstring(`id="tool-version"`))
		Expect(page).To(ContainSubstring(`<meta name="generator" content="skewtest">`))
	})
})
