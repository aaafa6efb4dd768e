package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Explore on the reference subject's history: generators drawn from the drivers' described
// vocabulary (examples/remoteterm/cmd/remoteterm-driver/describe.go), none written by hand.
var _ = Describe("skewtest explore on the reference subject", Label(testlabels.E2E, testlabels.Slow), func() {
	// Only the edge event of emit-output (and the idle within the quiet), so a handful of
	// cases reaches the chunk cap.
	others := "client-*,held-*,delayed-*,fragmented-*,host-emit-output,host-emit-transformed,host-emit-transformed-edge,host-set-*,*-then-*,idle-past-quiet"

	explore := func(ctx SpecContext, args ...string) (int, string, *results.Run, string) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		base := []string{"explore", "--repo", sharedHistory(), "--cache-dir", sharedCache, "--report-dir", dir,
			"--host", "worktree", "--client", "v1.4.190", "--kind", "desktop", "--drawn-only", "--pack", "1",
			"--seed", "1", "--shrink-tries", "12", "--exclude", others}
		if !slices.Contains(args, "--budget") {
			base = append(base, "--cases", "6")
		}
		args = append(base, args...)
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		out := stdout.String() + stderr.String()
		GinkgoWriter.Printf("skewtest %s -> %d\n%s", strings.Join(args, " "), code, out)
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		Expect(err).NotTo(HaveOccurred(), out)
		var run results.Run
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		return code, out, &run, dir
	}

	It("finds a chunker that cuts a code point at the cap with text it drew itself, shrunk to a journey repro replays", func(ctx SpecContext) {
		code, out, run, dir := explore(ctx, "--env", `worktree:REMOTETERM_FEATURES={"chunkCutsCodePoints":true}`)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("skewtest explore: seed 1"))
		Expect(filepath.Join(dir, "explore", "explore-terminal.txtar")).To(BeAnExistingFile())
		var skew *results.CampaignFinding
		for i, f := range run.Campaign.Findings {
			if f.Kind == results.DataLoss && f.Host == "worktree" && f.Client == "v1.4.190" {
				skew = &run.Campaign.Findings[i]
			}
			if f.Kind == results.DataLoss && f.Host == "worktree" {
				// The switch is the working tree's host's: paired with itself it loses the
				// same data, so every pairing of that host says whose bug it is.
				Expect(f.Own).To(BeTrue(), "%+v", f)
				Expect(f.OwnOf).To(Equal("worktree"), "%+v", f)
			}
		}
		Expect(skew).NotTo(BeNil(), out)
		Expect(skew.Message).To(HavePrefix("stream screen: "))
		Expect(skew.ShrunkEvents).To(Equal([]string{"host-emit-output-edge"}))
		j, err := journeys.Load(skew.Shrunk)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(j.StepNames())).To(BeNumerically("<=", 10))
		Expect(skew.Repro).To(ContainSubstring("--journey " + skew.Shrunk))
	})

	It("ends at its budget, builds included, keeping what it found before it: a shrink the deadline cuts keeps the smallest case so far", func(ctx SpecContext) {
		// The builds first (a budget counts them): the budgeted run then starts on cached
		// builds, its first batch finds the bug, and its shrinking (100000 tries allowed)
		// is what the deadline cuts.
		code, out, _, _ := explore(ctx, "--cases", "1")
		Expect(code).To(Equal(0), out)
		budget := 90 * time.Second
		start := time.Now()
		code, out, run, _ := explore(ctx, "--env", `worktree:REMOTETERM_FEATURES={"chunkCutsCodePoints":true}`,
			"--budget", budget.String(), "--batch", "6", "--shrink-tries", "100000")
		took := time.Since(start)
		Expect(took).To(BeNumerically("<", budget+campaign.Grace(budget)), out)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("fuzz: past the budget: shrinking"))
		Expect(run.Interrupted).To(BeFalse(), "a budget's end is no interruption")
		// Every finding seen before the deadline is reported, each with a journey file its
		// repro line replays: shrunk as far as the budget allowed, or kept as found.
		var skew, own *results.CampaignFinding
		for i, f := range run.Campaign.Findings {
			Expect(f.Shrunk).To(BeAnExistingFile(), "%+v", f)
			Expect(f.Repro).To(ContainSubstring("--journey "+f.Shrunk), "%+v", f)
			switch {
			case f.Kind == results.DataLoss && f.Host == "worktree" && f.Client == "v1.4.190":
				skew = &run.Campaign.Findings[i]
			case f.Kind == results.DataLoss && f.Host == "worktree" && f.Client == "worktree":
				own = &run.Campaign.Findings[i] // the switch is the working tree's own bug too
			}
		}
		Expect(skew).NotTo(BeNil(), out)
		Expect(own).NotTo(BeNil(), out)
		Expect(own.ShrinkRuns+skew.ShrinkRuns).To(BeNumerically(">", 1), "candidates ran until the deadline")
	}, SpecTimeout(10*time.Minute))

	It("passes the same campaign on the unpatched working tree, its future peers included", func(ctx SpecContext) {
		code, out, run, _ := explore(ctx)
		Expect(code).To(Equal(0), out)
		Expect(run.Campaign.Findings).To(BeEmpty())
		// The future-peer pass ran: each case's working-tree pairings ran twice more.
		Expect(run.Campaign.Pairings).To(BeNumerically(">", 6*3))
	})
})
