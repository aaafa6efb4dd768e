package skew_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

// The keepalive switch puts a timer on the wire: a host that has it sends notes.keepalive
// every 100 ms to each session that negotiated the keepalive capability, and the clients
// that have it declare the capability. Only the working tree with itself carries them (the
// capability gates them; old releases never see one). Wherever the timer fires, the frame
// lands in some step of the journey, which lists no keepalive; the working tree's contract
// marks it periodic, so it is checked and counted but not compared by step. Without the
// mark (the negative control) every keepalive reads as sequence drift.
var _ = Describe("notesd's keepalive switch, the working tree with itself", Ordered, func() {
	var repo string

	BeforeAll(func(ctx SpecContext) {
		repo = writeHistory(ctx)
	}, NodeTimeout(5*time.Minute))

	// run runs notesd's journeys (notes, sync) on the working tree with itself, its cli and
	// sync clients, with the keepalive switch on in its drivers.
	run := func(ctx SpecContext, seed int64) *results.Run {
		GinkgoHelper()
		cfg := skewtest.Config{Repo: repo, CacheDir: cache, ReportDir: GinkgoT().TempDir(), Seed: seed,
			Host: results.WorktreeLabel, Client: results.WorktreeLabel, Kinds: []string{"cli", "sync"},
			Journeys: []string{"notes", "sync"},
			Env:      []string{results.WorktreeLabel + `:NOTESD_FEATURES={"keepalive":true}`},
			Stdout:   GinkgoWriter, Stderr: GinkgoWriter}
		r, err := skewtesting.Matrix(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Pairings).To(HaveLen(3), "cli × notes, sync × notes, sync × sync")
		return r
	}

	It("carries keepalives in whatever step their timer fires, with no sequence drift, round after round with every core busy", func(ctx SpecContext) {
		const rounds = 6 // the first builds on a quiet machine; the rest run saturated
		var stop func()
		defer func() {
			if stop != nil {
				stop()
			}
		}()
		landed := map[string]int{} // keepalives by the step they landed in, over every round
		for round := 1; round <= rounds; round++ {
			if round == 2 {
				stop = saturate()
			}
			r := run(ctx, int64(round))
			for _, p := range r.Pairings {
				Expect(p.Findings).NotTo(ContainElement(HaveField("Kind", results.SequenceDrift)), "round %d: %s", round, p.Label())
			}
			Expect(r).To(skewtesting.BeCompatible(), "round %d of %d", round, rounds)
			// The keepalives flowed: the round's pairings carried some while their journeys ran
			// (a pairing whose connections live less than a timer period may carry none: steps
			// end as soon as their frames are in).
			var counts []string
			total := 0
			for _, p := range r.Pairings {
				n := 0
				for _, e := range p.Timeline {
					if e.Name == "notes.keepalive" && e.Dir == "H>C" && e.Step != "(teardown)" {
						n++
						landed[p.Journey+"/"+e.Step]++
					}
				}
				total += n
				counts = append(counts, fmt.Sprintf("%s %s: %d", p.ClientKind, p.Journey, n))
			}
			Expect(total).To(BeNumerically(">", 0), "round %d: no pairing carried a keepalive during its journey: %v", round, counts)
			Expect(r.Coverage.Items).To(ContainElement(SatisfyAll(
				HaveField("Category", results.CoverFrame), HaveField("Frame", "notes.keepalive"), HaveField("Seen", BeNumerically(">", 0)))),
				"coverage counts the periodic frame like any other")
			GinkgoWriter.Printf("round %d of %d: keepalives %s\n", round, rounds, strings.Join(counts, ", "))
		}
		steps := make([]string, 0, len(landed))
		for s := range landed {
			steps = append(steps, fmt.Sprintf("%s ×%d", s, landed[s]))
		}
		sort.Strings(steps)
		AddReportEntry("keepalives by step", strings.Join(steps, ", "))
		Expect(len(landed)).To(BeNumerically(">=", 3), "the timer landed in several steps: %v", steps)
	}, SpecTimeout(10*time.Minute))

	It("reads every keepalive as sequence drift once the working tree's contract drops the periodic mark (the negative control)", func(ctx SpecContext) {
		// The working tree's contract is read from the checkout: edit it there, and put it
		// back afterwards.
		path := filepath.Join(repo, "skewtest-contract.json")
		orig, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.WriteFile, path, orig, os.FileMode(0o644))
		Expect(os.WriteFile(path, withoutPeriodic(orig, "notes.keepalive"), 0o644)).To(Succeed())

		r := run(ctx, 1)
		Expect(r).NotTo(skewtesting.BeCompatible())
		// Every pairing that carried a keepalive during its journey reads it as drift.
		carried := 0
		for _, p := range r.Pairings {
			if !slices.ContainsFunc(p.Timeline, func(e results.FrameEvent) bool {
				return e.Name == "notes.keepalive" && e.Step != "(teardown)"
			}) {
				continue
			}
			carried++
			Expect(p.Findings).To(ContainElement(SatisfyAll(
				HaveField("Kind", results.SequenceDrift), HaveField("Detail", ContainSubstring("H>C notes.keepalive")))), p.Label())
		}
		Expect(carried).To(BeNumerically(">", 0), "some pairing carried a keepalive during its journey")
	}, SpecTimeout(5*time.Minute))
})

// withoutPeriodic returns a contract with the periodic mark of frame typ removed; it fails
// if the frame has none.
func withoutPeriodic(contract []byte, typ string) []byte {
	GinkgoHelper()
	var c map[string]any
	Expect(json.Unmarshal(contract, &c)).To(Succeed())
	removed := false
	for _, ch := range c["channels"].([]any) {
		for _, f := range ch.(map[string]any)["frames"].([]any) {
			f := f.(map[string]any)
			if f["type"] == typ && f["periodic"] == true {
				delete(f, "periodic")
				removed = true
			}
		}
	}
	Expect(removed).To(BeTrue(), "the contract marks %s periodic", typ)
	out, err := json.MarshalIndent(c, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	return append(out, '\n')
}

// saturate keeps every core busy with spinning goroutines until the returned func is called.
func saturate() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; ; n++ {
				if n%1024 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}
