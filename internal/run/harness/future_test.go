package harness_test

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("RunFuture (the future-peer pass)", func() {
	var j *journeys.Journey
	var pids string
	BeforeEach(func() {
		var err error
		j, err = journeys.Parse("fake.txtar", []byte(fakeJourney))
		Expect(err).NotTo(HaveOccurred())
		pids = pidDir()
	})
	AfterEach(func() {
		Eventually(func() []int { return alive(pids) }).WithTimeout(3*time.Second).Should(BeEmpty(), "no process may outlive its pairing")
	})

	// pass runs p unmodified, then its future-peer pass.
	pass := func(ctx SpecContext, p harness.Pairing) (*results.Pairing, *results.Pairing, *transcript.Transcript) {
		opts := harness.Options{Timeout: 5 * time.Second}
		opts.Dir = GinkgoT().TempDir()
		base, baseT := harness.Run(ctx, p, opts)
		opts.Dir = GinkgoT().TempDir()
		fut, t := harness.RunFuture(ctx, p, opts, base, baseT, harness.FutureOptions{Seed: 7})
		return base, fut, t
	}

	It("rewrites the frames bound for the working tree and finds nothing on a tolerant receiver", func(ctx SpecContext) {
		p := harness.Pairing{Host: build("v1", "ok", false), Client: build(results.WorktreeLabel, "ok", false), Kind: "desktop", Journey: j}
		base, fut, t := pass(ctx, p)
		Expect(base.Status).To(Equal(results.StatusPass))
		Expect(fut).NotTo(BeNil())
		Expect(fut.Future).To(BeTrue())
		Expect(fut.Status).To(Equal(results.StatusPass), "%v", fut.Findings)
		Expect(fut.Findings).To(BeEmpty())
		var rewritten []string
		for _, f := range t.Frames {
			if f.Original != nil {
				Expect(f.Dir).To(Equal("H>C"), "only frames bound for the working tree")
				rewritten = append(rewritten, f.Rewrite)
			}
		}
		Expect(rewritten).To(HaveLen(2), "ready and subscribed, the JSON frames")
		Expect(rewritten[0]).To(HavePrefix("optional-field: added optional field /skewtestFuture"))
	}, NodeTimeout(60*time.Second))

	It("finds a working-tree receiver that refuses what a later release may send", func(ctx SpecContext) {
		p := harness.Pairing{Host: build("v1", "ok", false), Client: build(results.WorktreeLabel, "strict-text", false), Kind: "desktop", Journey: j}
		base, fut, _ := pass(ctx, p)
		Expect(base.Status).To(Equal(results.StatusPass), "the unmodified run is clean: %v", base.Findings)
		Expect(fut.Status).To(Equal(results.StatusFail))
		Expect(kinds(fut)).To(HaveEach(results.IntolerantDecoder))
		Expect(fut.Findings[0].Message).To(HavePrefix("with frames rewritten as a later release may send them: decoder-refusal: "))
		Expect(fut.Findings[0].Detail).To(MatchRegexp(`rewrites:\n  #\d+ H>C ready \(step subscribe\): optional-field: added optional field /skewtestFuture`))
	}, NodeTimeout(60*time.Second))

	It("has nothing to do when no build is under test, or the unmodified run could not be tested", func(ctx SpecContext) {
		p := harness.Pairing{Host: build("v1", "ok", false), Client: build("v2", "ok", false), Kind: "desktop", Journey: j}
		fut, _ := harness.RunFuture(ctx, p, harness.Options{Dir: GinkgoT().TempDir()}, &results.Pairing{}, &transcript.Transcript{}, harness.FutureOptions{})
		Expect(fut).To(BeNil())
		p.Client.Label = results.WorktreeLabel
		fut, _ = harness.RunFuture(ctx, p, harness.Options{Dir: GinkgoT().TempDir()}, &results.Pairing{Status: results.StatusError}, &transcript.Transcript{}, harness.FutureOptions{})
		Expect(fut).To(BeNil())
	})

	It("runs in Execute after each pairing of the working tree, recorded after the plan, and the run says its coverage", func(ctx SpecContext) {
		wt := build(results.WorktreeLabel, "ok", false)
		rel := build("v1", "ok", false)
		plan := harness.Number(harness.WithReferences([]harness.Pairing{{Host: rel, Client: wt, Kind: "desktop", Journey: j}}))
		run := &results.Run{}
		dir := GinkgoT().TempDir()
		harness.Execute(ctx, plan, run, harness.ExecuteOptions{ReportDir: dir, Future: &harness.FutureOptions{Seed: 1},
			FutureRepro: func(harness.Pairing) string { return "repro --future-peers" }})
		var labels []string
		for _, p := range run.Pairings {
			labels = append(labels, p.Label())
			Expect(p.Findings).To(BeEmpty(), p.Label())
		}
		Expect(labels).To(Equal([]string{
			"host worktree × desktop client worktree · fake",
			"host v1 × desktop client v1 · fake",
			"host v1 × desktop client worktree · fake",
			"host worktree × desktop client worktree · fake · future peers",
			"host v1 × desktop client worktree · fake · future peers",
		}), "the release's own reference has nothing under test")
		last := run.Pairings[len(run.Pairings)-1]
		Expect(last.Repro).To(Equal("repro --future-peers"))
		Expect(last.Index).To(Equal(run.Pairings[2].Index))
		Expect(filepath.Join(dir, last.Transcript)).To(BeAnExistingFile())
		Expect(run.Coverage).NotTo(BeNil())
		covered, total := run.Coverage.Count(results.CoverFrame)
		Expect(covered).To(BeNumerically(">", 0))
		Expect(total).To(BeNumerically(">=", covered))
	}, NodeTimeout(90*time.Second))
})
