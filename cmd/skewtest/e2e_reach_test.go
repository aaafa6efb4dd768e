package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Explore's idles past the contract's quiet, judged against the references alone, on the
// reference subject's idleDropsSilentClients switch: the working tree's host closes a
// terminal connection quiet for 4 s (the terminal channel declares 3 s, so it may), and
// its desktop client pings every second; its mobile client does not ping either, so the
// working tree's mobile references show the drop, which the contract allows.
var _ = Describe("explore's idles past the declared quiet", Label(testlabels.E2E, testlabels.Slow), func() {
	const planted = `worktree:REMOTETERM_FEATURES={"idleDropsSilentClients":true}`
	// Only the drawn idle past the quiet: every other event is left out.
	explore := func(ctx SpecContext, env ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		args := []string{"explore", "--repo", sharedHistory(), "--cache-dir", sharedCache, "--report-dir", dir,
			"--host", "worktree", "--client", "v1.4.190", "--kind", "desktop,mobile", "--drawn-only", "--pack", "1",
			"--seed", "1", "--cases", "1", "--shrink-tries", "1", "--exclude", "client-*,host-*,held-*,fragmented-*,delayed-*,idle"}
		for _, e := range env {
			args = append(args, "--env", e)
		}
		code, out := cli(ctx, args...)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred(), out)
		return code, out, run
	}

	It("finds the host that drops an old desktop that never pings, and counts no drop a build shows with itself", func(ctx SpecContext) {
		code, out, run := explore(ctx, planted)
		Expect(code).To(Equal(exitFindings), out)
		Expect(run.Campaign.Findings).NotTo(BeEmpty(), out)
		for _, f := range run.Campaign.Findings {
			// The mobile pairings lose their connection too, and so do the working tree's
			// mobile references: what a build shows with itself does not count.
			Expect(f.ClientKind).To(Equal("desktop"), "%+v", f)
			Expect([]string{f.Host, f.Client}).To(Equal([]string{"worktree", "v1.4.190"}), "%+v", f)
			Expect(f.Own).To(BeFalse(), "%+v", f)
			Expect(f.First).To(HavePrefix("fuzz-explore-terminal-"), "%+v", f)
		}
	})

	It("finds nothing without the switch (negative control)", func(ctx SpecContext) {
		code, out, run := explore(ctx)
		Expect(code).To(Equal(exitOK), out)
		Expect(run.Campaign.Findings).To(BeEmpty())
	})
})
