package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/reportshot"
	"github.com/skewtest/skewtest/internal/testkit/resultstest"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// screenshotDir is where the browser specs leave their screenshots: $SKEWTEST_SCREENSHOT_DIR,
// else testdata/out (ignored by git).
func screenshotDir() string {
	if d := os.Getenv("SKEWTEST_SCREENSHOT_DIR"); d != "" {
		return d
	}
	d, _ := filepath.Abs(filepath.Join("testdata", "out"))
	return d
}

var _ = Describe("report.html in a browser", Ordered, Label(testlabels.Browser), func() {
	var (
		browser context.Context
		run     *results.Run
		failing *results.Pairing // a failing pairing with a decoder refusal
		page    string           // report.html's URL
	)
	// do runs actions in the page with a deadline.
	do := func(actions ...chromedp.Action[chromedp.Void]) {
		GinkgoHelper()
		ctx, cancel := context.WithTimeout(browser, 20*time.Second)
		defer cancel()
		Expect(chromedp.Do(ctx, actions...)).To(Succeed())
	}
	eval := func(js string) int {
		GinkgoHelper()
		ctx, cancel := context.WithTimeout(browser, 20*time.Second)
		defer cancel()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		Expect(err).NotTo(HaveOccurred(), js)
		return n
	}
	text := func(sel string) string {
		GinkgoHelper()
		ctx, cancel := context.WithTimeout(browser, 20*time.Second)
		defer cancel()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		Expect(err).NotTo(HaveOccurred(), sel)
		return s
	}

	BeforeAll(func() {
		bin, err := reportshot.Chromium()
		if err != nil {
			Skip("browser specs: " + err.Error())
		}
		run = resultstest.Run(resultstest.Options{Builds: 5, Frames: 40, Seed: 3})
		for _, p := range run.Pairings {
			if p.Status == results.StatusFail && p.Findings[0].Kind == results.DecoderRefusal {
				failing = p
				break
			}
		}
		Expect(failing).NotTo(BeNil(), "the synthetic run has a decoder refusal")
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, run)).To(Succeed())
		Expect(resultstest.WriteArtifacts(dir, run)).To(Succeed())

		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
				chromedp.WindowSize(1600, 1000), chromedp.Flag("disable-gpu", true))...)
		DeferCleanup(cancelAlloc)
		var cancel context.CancelFunc
		browser, cancel = chromedp.NewContext(alloc)
		DeferCleanup(cancel)
		// The first action starts the browser, tied to the context it gets: give it the
		// browser's own, not one with a deadline.
		Expect(chromedp.Do(browser)).To(Succeed())
		page = "file://" + filepath.ToSlash(filepath.Join(dir, reports.HTMLFile))
		do(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("a.cell")))
	})

	It("shows a matrix per journey and client kind, every pairing a cell", func() {
		Expect(eval(`document.querySelectorAll("section.matrix").length`)).To(Equal(2))
		Expect(eval(`document.querySelectorAll("a.cell").length`)).To(Equal(len(run.Pairings)))
		Expect(eval(`document.querySelectorAll("a.cell.ref").length`)).To(Equal(10), "5 builds × 2 groups")
		Expect(text("#head")).To(ContainSubstring(fmt.Sprint(run.Seed)))
	})

	It("opens a failing pairing: its findings, steps and frames", func() {
		do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`a.cell[data-id="%d"]`, failing.Index))),
			chromedp.WaitVisible(chromedp.CSS("#view .finding")))
		view := text("#view")
		Expect(view).To(ContainSubstring(failing.Findings[0].Message))
		Expect(view).To(ContainSubstring(failing.Repro))
		Expect(eval(`document.querySelectorAll("#view table.frames tr.step").length`)).To(BeNumerically(">", 1))
		Expect(eval(`document.querySelectorAll("#view table.frames td.hit").length`)).To(BeNumerically(">=", 1), "the refused frame is marked")
		Expect(eval(`document.querySelectorAll("#view a.transcript").length`)).To(Equal(1))
	})

	It("shows a frame's payload and message sizes, where it arrived, and its fields on a click", func() {
		var e results.FrameEvent
		for _, f := range failing.Timeline {
			if f.Fields != "" && f.Dir == "H>C" {
				e = f
				break
			}
		}
		Expect(e.Fields).NotTo(BeEmpty(), "the synthetic timeline has fields")
		do(chromedp.Navigate(fmt.Sprintf("%s#p%d", page, failing.Index)), chromedp.WaitVisible(chromedp.CSS("#view table.frames")))
		row := fmt.Sprintf(`Array.from(document.querySelectorAll("#view table.frames tr.has-fields")).find((r) => r.querySelector("td.num").textContent === "#%d")`, e.Index)
		Expect(eval(row + `.querySelector("td.payload").textContent === "` + fmt.Sprint(*e.Payload) + ` B" ? 1 : 0`)).To(Equal(1))
		Expect(eval(row + `.querySelector("td.size").textContent === "` + fmt.Sprint(e.Size) + ` B" ? 1 : 0`)).To(Equal(1))
		Expect(eval(`document.querySelectorAll("#view table.frames tr.fields").length`)).To(Equal(0), "fields show on demand")

		do(chromedp.Evaluate[chromedp.Void](row+`.click()`), chromedp.WaitVisible(chromedp.CSS("#view table.frames tr.fields pre")))
		Expect(eval(row+`.nextElementSibling.classList.contains("fields") ? 1 : 0`)).To(Equal(1), "below the row clicked")
		var want, got any
		Expect(json.Unmarshal([]byte(e.Fields), &want)).To(Succeed())
		shown := text("#view table.frames tr.fields pre")
		Expect(json.Unmarshal([]byte(shown), &got)).To(Succeed(), shown)
		Expect(got).To(Equal(want))
		Expect(shown).To(ContainSubstring("\n  \""), "indented for reading")
		do(chromedp.Evaluate[chromedp.Void](row + `.click()`))
		Expect(eval(`document.querySelectorAll("#view table.frames tr.fields").length`)).To(Equal(0), "a second click hides them")

		arrived := 0
		for _, f := range failing.Timeline {
			if f.Arrived != "" {
				arrived++
			}
		}
		Expect(arrived).To(BeNumerically(">", 0), "the synthetic timeline has a frame that arrived in a later step")
		Expect(eval(`document.querySelectorAll("#view table.frames .tag.arrived").length`)).To(Equal(arrived))
		Expect(text("#view table.frames .tag.arrived")).To(Equal("arrived in live-output"))
	})

	It("colours a sequence-drift diff, and copies a repro line", func() {
		var drift *results.Pairing
		for _, p := range run.Pairings {
			if len(p.Findings) > 0 && p.Findings[0].Kind == results.SequenceDrift {
				drift = p
				break
			}
		}
		Expect(drift).NotTo(BeNil(), "the synthetic run has a sequence drift")
		do(chromedp.Navigate(fmt.Sprintf("%s#p%d", page, drift.Index)), chromedp.WaitVisible(chromedp.CSS("#view .finding")))
		Expect(eval(`document.querySelectorAll("#view pre.detail .ins").length`)).To(Equal(2))
		Expect(eval(`document.querySelectorAll("#view pre.detail .del").length`)).To(Equal(2))
		do(chromedp.Click(chromedp.CSS("#view button.copy")))
		Eventually(func() int {
			return eval(`document.querySelector("#view button.copy").dataset.copied === "yes" ? 1 : 0`)
		}).WithTimeout(10*time.Second).Should(Equal(1), "the copy happened (the clipboard answers asynchronously)")
		do(chromedp.KeyEvent("\x1b"), chromedp.WaitNotVisible(chromedp.CSS("#view")))
	})

	It("filters the matrix by status and by finding kind", func() {
		pass, stalls := 0, 0
		for _, p := range run.Pairings {
			if p.Status == results.StatusPass {
				pass++
			} else if slices.ContainsFunc(p.Findings, func(f results.Finding) bool { return f.Kind == results.Stall }) {
				stalls++
			}
		}
		do(chromedp.Click(chromedp.CSS(`#status-filter input[value="pass"]`)))
		Expect(eval(`document.querySelectorAll("a.cell.dim").length`)).To(Equal(pass))
		Expect(text("#match-count")).To(Equal(fmt.Sprintf("%d of %d pairings match", len(run.Pairings)-pass, len(run.Pairings))))

		do(chromedp.SetValue(chromedp.CSS("#kind-filter"), string(results.Stall)),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("kind-filter").dispatchEvent(new Event("change"))`))
		Expect(eval(`document.querySelectorAll("a.cell:not(.dim)").length`)).To(Equal(stalls))
		Expect(eval(`document.querySelectorAll("#list-items li").length`)).To(Equal(stalls))
	})

	It("saves a screenshot of the filtered matrix and a pairing", func() {
		do(chromedp.SetValue(chromedp.CSS("#kind-filter"), ""),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("kind-filter").dispatchEvent(new Event("change"))`),
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`a.cell[data-id="%d"]`, failing.Index))),
			chromedp.WaitVisible(chromedp.CSS("#view .finding")))
		ctx, cancel := context.WithTimeout(browser, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		Expect(err).NotTo(HaveOccurred())
		Expect(png[:8]).To(Equal([]byte("\x89PNG\r\n\x1a\n")))
		dir := screenshotDir()
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		path := filepath.Join(dir, "report.png")
		Expect(os.WriteFile(path, png, 0o644)).To(Succeed())
		AddReportEntry("screenshot", path)
		fmt.Fprintf(GinkgoWriter, "screenshot: %s\n", path)
	})

	It("stays usable with 675 pairings of about 100 frames each", func() {
		large := resultstest.Run(resultstest.Large)
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, large)).To(Succeed())
		var p *results.Pairing
		for _, q := range large.Pairings {
			if q.Status == results.StatusFail && len(q.Timeline) > 50 {
				p = q
			}
		}
		start := time.Now()
		do(chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(dir, reports.HTMLFile))),
			chromedp.WaitVisible(chromedp.CSS("a.cell")))
		loaded := time.Since(start)
		Expect(eval(`document.querySelectorAll("a.cell").length`)).To(Equal(675))
		start = time.Now()
		do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`a.cell[data-id="%d"]`, p.Index))),
			chromedp.WaitVisible(chromedp.CSS("#view .finding")))
		opened := time.Since(start)
		Expect(eval(`document.querySelectorAll("#view table.frames tbody tr:not(.step)").length`)).To(Equal(len(p.Timeline)))
		Expect(eval(`document.querySelectorAll("#view *").length`)).To(BeNumerically("<", 3000), "one pairing's view, not every pairing's")
		fmt.Fprintf(GinkgoWriter, "675 pairings: loaded in %s, pairing %d opened in %s\n", loaded, p.Index, opened)

		ctx, cancel := context.WithTimeout(browser, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		Expect(err).NotTo(HaveOccurred())
		path := filepath.Join(screenshotDir(), "report-675.png")
		Expect(os.WriteFile(path, png, 0o644)).To(Succeed())
		AddReportEntry("screenshot", path)
	})
})
