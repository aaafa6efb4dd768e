package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/resultstest"
	"github.com/skewtest/skewtest/results"
)

// pageData is the JSON report.html embeds, as far as these specs read it.
type pageData struct {
	S []string `json:"s"`
	P []struct {
		ID       int              `json:"id"`
		Status   results.Status   `json:"st"`
		Attempts []results.Status `json:"at"`
		Repro    string           `json:"r"`
		Logs     []string         `json:"l"`
		Findings []struct {
			Kind    results.Kind `json:"k"`
			Message string       `json:"m"`
			Detail  string       `json:"x"`
		} `json:"f"`
		Timeline []int64 `json:"tl"`
	} `json:"p"`
}

var dataScript = regexp.MustCompile(`(?s)<script type="application/json" id="skewtest-data">(.*?)</script>`)

func renderHTML(run *results.Run) (string, pageData) {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(reports.HTML(&b, run)).To(Succeed())
	m := dataScript.FindStringSubmatch(b.String())
	Expect(m).To(HaveLen(2), "the data is embedded once")
	var d pageData
	Expect(json.Unmarshal([]byte(m[1]), &d)).To(Succeed())
	return b.String(), d
}

var _ = Describe("report.html", func() {
	It("holds the header, one matrix per journey and kind, and every pairing's data once", func() {
		run := sampleRun()
		run.Interrupted, run.NotRun = true, 4
		page, data := renderHTML(run)
		Expect(page).To(ContainSubstring(`<dd><code>42</code></dd>`))
		Expect(page).To(ContainSubstring("Interrupted: 4 pairing(s) of the plan did not run."))
		Expect(page).To(ContainSubstring(`<section class="matrix" data-journey="terminal" data-kind="desktop">`))
		Expect(page).To(ContainSubstring(`<section class="matrix" data-journey="terminal-mobile" data-kind="mobile">`))
		Expect(page).To(ContainSubstring(`<a class="cell s-pass ref" href="#p1" data-id="1" data-status="pass" data-kinds=""`))
		Expect(page).To(ContainSubstring(`<a class="cell s-fail" href="#p2" data-id="2" data-status="fail" data-kinds="decoder-refusal"`))
		Expect(page).To(ContainSubstring(`<option value="decoder-refusal">decoder-refusal</option>`))
		Expect(strings.Count(page, `<a class="cell `)).To(Equal(3))

		Expect(data.P).To(HaveLen(3))
		Expect(data.P[1].Findings[0].Message).To(Equal("refused"))
		Expect(data.P[1].Findings[0].Detail).To(Equal("line 1\nline 2"))
		Expect(data.P[0].Logs).To(Equal([]string{"pairings/001/host.log"}))
		// index, conn, dir, name, step, size, µs, control, payload, arrived, fields
		Expect(data.P[0].Timeline).To(HaveLen(22))
		first := data.P[0].Timeline[:11]
		Expect(data.S[first[3]]).To(Equal("Subscribe"))
		Expect([]int64{first[5], first[8]}).To(Equal([]int64{30, 14}), "a 30-byte message, a 14-byte payload")
		Expect(data.S[first[9]]).To(Equal("b"), "it arrived in step b")
		Expect(data.S[first[10]]).To(Equal(`{"opcode":9,"stream":0,"value":{"streamId":1}}`))
		second := data.P[0].Timeline[11:]
		Expect(data.S[second[3]]).To(Equal("ping"))
		Expect(data.S[second[4]]).To(Equal("a"))
		Expect([]int64{second[0], second[1], second[2], second[5], second[6], second[7], second[8], second[9], second[10]}).To(
			Equal([]int64{1, 1, 1, 0, 2, 1, -1, -1, -1}),
			"index 1, conn 1, H>C, 0 bytes, 2µs, a control frame, payload unknown (an older results.json), no arrival step, no fields")
	})

	It("shows the worst of the replayed cells several recordings put at one host × client, a matrix per direction", func() {
		cellOf := func(i int, host, client, dir, from string, fs ...results.Finding) *results.Pairing {
			st := results.StatusPass
			if len(fs) > 0 {
				st = results.StatusFail
			}
			return &results.Pairing{Index: i, Host: host, Client: client, ClientKind: "desktop", Journey: "terminal", Status: st, Findings: fs,
				Replay: &results.Replay{From: from, Direction: dir, Frames: 3, Recorded: client}}
		}
		refusal := results.Finding{Kind: results.DecoderRefusal, Message: "refused OutputSpan"}
		run := &results.Run{SchemaVersion: 1, Seed: 1, Pairings: []*results.Pairing{
			cellOf(1, "v2", "v1", "H>C", "host v2 × desktop client v2 · terminal", refusal, refusal),
			cellOf(2, "v2", "v1", "H>C", "host v2 × desktop client v1 · terminal"),
			cellOf(3, "v2", "v1", "C>H", "host v1 × desktop client v1 · terminal"),
		}}
		page, _ := renderHTML(run)
		Expect(page).To(ContainSubstring(`data-journey="terminal · H&gt;C replayed"`))
		Expect(page).To(ContainSubstring(`data-journey="terminal · C&gt;H replayed"`))
		Expect(page).To(ContainSubstring(`<a class="cell s-fail" href="#p1" data-id="1" data-status="fail" data-kinds="decoder-refusal"`),
			"the pass recorded after the failure does not hide it")
		Expect(page).To(MatchRegexp(`data-id="1"[^>]*>fail 2</a>`))
		Expect(strings.Count(page, `<a class="cell `)).To(Equal(2))
	})

	It("interns fields that repeat: the pairings of one journey send the same frames", func() {
		run := sampleRun()
		run.Pairings[1].Timeline = append([]results.FrameEvent(nil), run.Pairings[0].Timeline...)
		_, data := renderHTML(run)
		Expect(data.P[1].Timeline[10]).To(Equal(data.P[0].Timeline[10]))
		n := 0
		for _, s := range data.S {
			if strings.HasPrefix(s, `{"opcode":9`) {
				n++
			}
		}
		Expect(n).To(Equal(1))
	})

	It("needs nothing from the network", func() {
		page, _ := renderHTML(resultstest.Run(resultstest.Options{}))
		Expect(page).NotTo(MatchRegexp(`(?i)(src|href)\s*=\s*"(https?:)?//`))
		Expect(page).NotTo(MatchRegexp(`(?i)@import|url\(`))
		Expect(page).NotTo(MatchRegexp(`<script[^>]+src=`))
		Expect(page).NotTo(MatchRegexp(`<link[^>]+stylesheet`))
	})

	It("keeps what a subject's drivers said from breaking out of the page", func() {
		run := sampleRun()
		evil := `</script><script>alert("x")</script><img src=x onerror=alert(1)>`
		run.Pairings[1].Findings[0].Message = evil
		run.Pairings[1].Host = `<b>v1</b>`
		page, data := renderHTML(run)
		Expect(page).NotTo(ContainSubstring(evil))
		Expect(page).NotTo(ContainSubstring(`<b>v1</b>`))
		Expect(strings.Count(page, "<script")).To(Equal(2), "the data and the page's own script")
		Expect(data.P[1].Findings[0].Message).To(Equal(evil), "the data keeps the text as it was")
	})

	It("marks a flaky pairing and keeps its attempts", func() {
		run := sampleRun()
		run.Pairings[1].Status = results.StatusFlaky
		run.Pairings[1].Attempts = []results.Status{results.StatusFail, results.StatusPass}
		page, data := renderHTML(run)
		Expect(page).To(ContainSubstring(`data-status="flaky"`))
		Expect(page).To(ContainSubstring(`>flaky 1</a>`))
		Expect(page).To(ContainSubstring(`value="flaky" checked>`))
		Expect(data.P[1].Attempts).To(Equal([]results.Status{results.StatusFail, results.StatusPass}))
	})

	It("names pairings by position when a results.json has no plan index", func() {
		run := sampleRun()
		for _, p := range run.Pairings {
			p.Index = 0
		}
		page, data := renderHTML(run)
		Expect(page).To(ContainSubstring(`href="#p3"`))
		Expect(data.P[2].ID).To(Equal(3))
	})

	It("stays a few megabytes for 675 pairings of about 100 frames each", func() {
		run := resultstest.Run(resultstest.Large)
		Expect(run.Pairings).To(HaveLen(675))
		frames := 0
		for _, p := range run.Pairings {
			frames += len(p.Timeline)
		}
		page, data := renderHTML(run)
		Expect(data.P).To(HaveLen(675))
		Expect(strings.Count(page, `<a class="cell `)).To(Equal(675))
		Expect(len(page)).To(BeNumerically("<", 3<<20))
		AddReportEntry("report.html for 675 pairings", fmt.Sprintf("%d bytes, %d frames", len(page), frames))
	})
})
