package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/run/harness"
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

	It("ends at its budget, builds included, keeping what it found before it: a shrink the deadline (or its share of the budget) cuts keeps the smallest case so far", func(ctx SpecContext) {
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
		// A shrink stops at the deadline or, before it, at its share of the budget
		// (campaign.ShrinkShare), with the smallest failing case so far either way.
		Expect(out).To(Or(ContainSubstring("fuzz: past the budget: shrinking"), ContainSubstring("took its share of the budget")))
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

	It("reports what its first cases find within the budget, its batches ramping from a small first one (no --batch)", func(ctx SpecContext) {
		// The builds first (a budget counts them).
		code, out, _, _ := explore(ctx, "--cases", "1")
		Expect(code).To(Equal(0), out)
		// Packs of 32: a full batch is -j packs of 32 cases, hundreds of cases that on a
		// loaded machine outlast the budget, so a finding of the first cases would be
		// reported only at its end.
		budget := 4 * time.Minute
		code, out, run, _ := explore(ctx, "--env", `worktree:REMOTETERM_FEATURES={"chunkCutsCodePoints":true}`,
			"--budget", budget.String(), "--pack", "32", "--shrink-tries", "4")
		Expect(code).To(Equal(1), out)
		Expect(run.Campaign.Timeline).NotTo(BeEmpty(), out)
		first := run.Campaign.Timeline[0]
		// Lanes weigh their pairings: the ramp starts at a case for every four heavy pairings.
		Expect(first.Cases).To(BeNumerically("<=", max(2, harness.DefaultLaneParallel()/campaign.HeavyWeight/4)), "the first batch is a few cases, not -j packs")
		var skew *results.CampaignFinding
		for i, f := range run.Campaign.Findings {
			if f.Kind == results.DataLoss && f.Host == "worktree" && f.Client == "v1.4.190" {
				skew = &run.Campaign.Findings[i]
			}
		}
		Expect(skew).NotTo(BeNil(), out)
		Expect(skew.After).To(BeNumerically("<", budget), "recorded before the budget's end")
		GinkgoWriter.Printf("first batch: %d cases, ended after %s; the skew's first finding after %s (case %s)\n", first.Cases, first.After, skew.After, skew.First)
	}, SpecTimeout(15*time.Minute))

	It("ends within its budget and grace with every core busy several times over, the whole drawn vocabulary running (megabyte outputs, future peers, every kind, a planted bug)", func(ctx SpecContext) {
		// The builds first (a budget counts them).
		code, out, _, _ := explore(ctx, "--cases", "1")
		Expect(code).To(Equal(0), out)
		// Twelve busy loops a core, each in a process group of its own: before a cut pairing
		// left nothing behind, the transcripts of the pairings the deadline cut were still
		// being written 38 to 54 s past a 90 s budget at such a load.
		for range 12 * runtime.NumCPU() {
			cmd := exec.Command("sh", "-c", "while :; do :; done")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
			})
		}
		budget := 90 * time.Second
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		args := []string{"explore", "--repo", sharedHistory(), "--cache-dir", sharedCache, "--report-dir", dir,
			"--host", "worktree", "--client", "v1.4.190", "--seed", "1", "--budget", budget.String(),
			"--env", `worktree:REMOTETERM_FEATURES={"snapshotResumeOffByOne":true}`}
		start := time.Now()
		code = exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		took := time.Since(start)
		load, _ := os.ReadFile("/proc/loadavg")
		out = stdout.String() + stderr.String()
		GinkgoWriter.Printf("budget %s, grace %s, ended after %s, load %s\n%s", budget, campaign.Grace(budget), took.Round(time.Millisecond), load, out)
		Expect(took).To(BeNumerically("<", budget+campaign.Grace(budget)), out)
		Expect(code).To(BeElementOf(0, 1), out)
		Expect(out).NotTo(ContainSubstring("interrupted"))
	}, SpecTimeout(15*time.Minute))

	It("passes the same campaign on the unpatched working tree, its future peers included", func(ctx SpecContext) {
		code, out, run, _ := explore(ctx)
		Expect(code).To(Equal(0), out)
		Expect(run.Campaign.Findings).To(BeEmpty())
		// The future-peer pass ran: each case's working-tree pairings ran twice more.
		Expect(run.Campaign.Pairings).To(BeNumerically(">", 6*3))
	})
})
