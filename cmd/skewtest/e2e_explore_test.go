package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Explore on the reference subject's history: generators drawn from the drivers' described
// vocabulary (examples/remoteterm/cmd/remoteterm-driver/describe.go), none written by hand.
var _ = Describe("skewtest explore on the reference subject", Label(testlabels.E2E, testlabels.Slow), func() {
	// Only the edge event of emit-output, so a handful of cases reaches the chunk cap.
	others := "client-*,held-*,delayed-*,fragmented-*,host-emit-output,host-emit-transformed,host-emit-transformed-edge,host-set-*"

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
			if f.Kind == results.DataLoss {
				// The switch is the working tree's host's: paired with itself it loses the
				// same data, and says so.
				Expect(f.Own).To(Equal(f.Host == f.Client), "%+v", f)
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

	It("stops shrinking at a quarter past its budget, keeping the case as found", func(ctx SpecContext) {
		// A one-second budget: the first batch (the six cases above) ends past it.
		code, out, run, _ := explore(ctx, "--env", `worktree:REMOTETERM_FEATURES={"chunkCutsCodePoints":true}`,
			"--budget", "1s", "--batch", "6")
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("fuzz: past the budget: shrinking"))
		var skew *results.CampaignFinding
		for i, f := range run.Campaign.Findings {
			if f.Kind == results.DataLoss && f.Host == "worktree" && f.Client == "v1.4.190" {
				skew = &run.Campaign.Findings[i]
			}
		}
		Expect(skew).NotTo(BeNil(), out)
		Expect(skew.ShrinkRuns).To(Equal(1), "no candidate ran: only the case's own run from its file")
		Expect(skew.Repro).To(ContainSubstring("--journey " + skew.Shrunk))
	})

	It("passes the same campaign on the unpatched working tree, its future peers included", func(ctx SpecContext) {
		code, out, run, _ := explore(ctx)
		Expect(code).To(Equal(0), out)
		Expect(run.Campaign.Findings).To(BeEmpty())
		// The future-peer pass ran: each case's working-tree pairings ran twice more.
		Expect(run.Campaign.Pairings).To(BeNumerically(">", 6*3))
	})
})
