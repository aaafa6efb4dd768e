package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// notesd's working tree with dropPushInCall: a sync client that drops a push arriving
// while one of its calls waits for its reply. The sync journey's host edit is followed by
// the client's next call without a barrier on the push, so only a late push shows it: the
// gate, whose steps settle, stays green; explore's schedules find it, as a race.
var _ = Describe("explore's schedules on notesd", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	const planted = `worktree:NOTESD_FEATURES={"dropPushInCall":true}`
	var repo string
	BeforeAll(func() {
		src, err := example.FindSource("notesd")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "notesd")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
	})
	// The sync journey whole, under the schedules seed 3 draws: its first case ends steps
	// unsettled with H>C late, so the host's push lands during the client's next call.
	explore := func(ctx SpecContext, env ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		args := []string{"explore", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--host", "worktree", "--client", "worktree",
			"--kind", "sync", "--generator", "journey-sync", "--cases", "12", "--seed", "3"}
		for _, e := range env {
			args = append(args, "--env", e)
		}
		code, out := cli(ctx, args...)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred(), out)
		return code, out, run
	}

	It("finds a race that only a drawn schedule shows, with its replay rate, kept as a journey that keeps the schedule", func(ctx SpecContext) {
		code, out, run := explore(ctx, planted)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("2 journeys also run whole, under drawn schedules (journey-*)"))
		var race *results.CampaignFinding
		for i, f := range run.Campaign.Findings {
			if f.Race {
				race = &run.Campaign.Findings[i]
			}
		}
		Expect(race).NotTo(BeNil(), out)
		Expect(race.First).To(HavePrefix("fuzz-journey-sync-"), "the journey run whole reaches the late push")
		Expect(race.Schedule).NotTo(Or(BeEmpty(), Equal("settled")))
		Expect(race.Replays).To(Equal(10))
		Expect(race.Reproduced).To(BeNumerically(">=", 1))
		Expect(race.Own).To(BeTrue(), "the working tree with itself")
		Expect(out).To(ContainSubstring("race: only its schedule (" + race.Schedule + ") shows it"))
		text, err := os.ReadFile(race.Shrunk)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(text)).To(ContainSubstring("# schedule: " + race.Schedule))
		j, err := journeys.Load(race.Shrunk)
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Steps[0].Commands[0].Verb).To(Or(Equal("tap"), Equal("client")))
		Expect(race.Repro).To(ContainSubstring("--journey " + race.Shrunk))
		Expect(race.Repro).To(ContainSubstring("dropPushInCall"))
	})

	It("finds nothing without the switch (negative control)", func(ctx SpecContext) {
		code, out, run := explore(ctx)
		Expect(code).To(Equal(exitOK), out)
		Expect(run.Campaign.Findings).To(BeEmpty())
		Expect(run.Campaign.Cases).To(Equal(12))
	})

	It("leaves the gate green with the switch on: its steps settle, so the push lands first", func(ctx SpecContext) {
		// The working tree with the newest release both ways, and each with itself.
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", GinkgoT().TempDir(), "--pins", "v0.3.0",
			"--kind", "sync", "--journey", "sync", "--seed", "1", "--env", planted)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("4 pairings: 4 passed"))
	})
})
