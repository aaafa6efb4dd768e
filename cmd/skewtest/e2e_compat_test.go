package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("compat on the reference history", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo string
	BeforeAll(func() { repo = referenceHistory() })

	It("finds its shims: one overdue, one still needed by the supported releases", func(ctx SpecContext) {
		code, out := cli(ctx, "compat", "--repo", repo)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(MatchRegexp(`overdue: [^\n]*\n  session/progress\.go:\d+ COMPAT\(round-progress-unsequenced\): remove when no supported host predates v1\.4\.157`))
		Expect(out).To(MatchRegexp(`still needed:\n  host/negotiate\.go:\d+ COMPAT\(subscribe-span-gate\)[^\n]*\n    supported clients older than v1\.5\.0: v1\.4\.185, v1\.4\.190`))
	})

	It("proves a needed shim by turning it off: the supported mobile pairings break, and only those", func(ctx SpecContext) {
		code, out := cli(ctx, "compat", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", filepath.Join(GinkgoT().TempDir(), "prove"),
			"--prove", "subscribe-span-gate")
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("  broke: host worktree × mobile client v1.4.185 · terminal-mobile\n  broke: host worktree × mobile client v1.4.190 · terminal-mobile\n"))
		Expect(out).To(ContainSubstring("compat: removing COMPAT(subscribe-span-gate) breaks 2 pairings the working tree must still pass (the audit said: needed"))
	})

	It("cannot prove a shim whose marker names no switch", func(ctx SpecContext) {
		code, out := cli(ctx, "compat", "--repo", repo, "--prove", "round-progress-unsequenced")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(`names no switch to turn it off: add a line "Turn off: ENV=VALUE"`))
	})
})
