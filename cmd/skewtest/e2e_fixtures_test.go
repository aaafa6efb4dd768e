package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("fixtures: a release's recorded traffic replayed into the working tree's decoders", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, saved string

	// run is one run of the desktop terminal journey: the working tree and v1.4.190.
	run := func(ctx SpecContext, args ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, append([]string{"run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--seed", "1",
			"--pins", "v1.4.190", "--kind", "desktop", "--journey", "terminal"}, args...)...)
		r, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred(), out)
		return code, out, r
	}

	BeforeAll(func(ctx SpecContext) {
		repo = referenceHistory()
		saved = GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", saved, "--seed", "1",
			"--pins", "v1.4.190", "--kind", "desktop", "--journey", "terminal")
		Expect(code).To(Equal(exitOK), out)
		r, err := results.Load(filepath.Join(saved, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Fixtures).To(BeNil(), "no fixtures yet: no tier")
	})

	It("needs a release name for the working tree's traffic when HEAD is no release", func(ctx SpecContext) {
		code, out := cli(ctx, "record", "--repo", repo, saved)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("name the release its traffic is recorded as with --as"))
	})

	It("records a release's pairings with itself, and a run replays them first, refusing nothing", func(ctx SpecContext) {
		code, out := cli(ctx, "record", "--repo", repo, "--build", "v1.4.190", saved)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("record: v1.4.190/desktop-terminal.json.gz"))
		Expect(filepath.Join(repo, "skewtest", "fixtures", "v1.4.190", "desktop-terminal.json.gz")).To(BeAnExistingFile())

		code, out, r := run(ctx)
		Expect(code).To(Equal(exitOK), out)
		Expect(r.Fixtures).NotTo(BeNil(), out)
		Expect(r.Fixtures.Releases).To(Equal([]string{"v1.4.190"}))
		Expect(r.Fixtures.Recordings).To(Equal(1))
		Expect(r.Fixtures.Frames).To(BeNumerically(">", 10))
		Expect(r.Fixtures.Findings).To(BeEmpty())
		Expect(out).To(MatchRegexp(`fixtures: 1 recordings of v1\.4\.190, \d+ frames into the working tree's decoders: 0 refused`))
	})

	It("finds a working tree that no longer decodes what a supported release sends, and skips a release the support policy leaves out", func(ctx SpecContext) {
		// The same traffic, recorded as a release the support policy leaves out (not one of
		// the last three, and cut: <v1.4.185).
		code, out := cli(ctx, "record", "--repo", repo, "--build", "v1.4.190", "--as", "v1.4.120", saved)
		Expect(code).To(Equal(exitOK), out)

		// A working tree whose desktop client forgot OutputSpan: v1.4.190's host sends it.
		code, out, r := run(ctx, "--env", `worktree:REMOTETERM_FEATURES={"outputSpan":false}`)
		Expect(code).To(Equal(exitFindings), out)
		Expect(r.Fixtures).NotTo(BeNil(), out)
		Expect(r.Fixtures.Releases).To(Equal([]string{"v1.4.120", "v1.4.190"}))
		Expect(r.Fixtures.Skipped).To(ContainElements(
			"host v1.4.120: outside the support window", "client v1.4.120: outside the support window"))
		Expect(r.Fixtures.Findings).NotTo(BeEmpty())
		for _, f := range r.Fixtures.Findings {
			Expect(f.Kind).To(Equal(results.DecoderRefusal))
			Expect(f.Message).To(MatchRegexp(`^desktop client worktree refused H>C OutputSpan \(message \d+ of fixture v1\.4\.190/desktop-terminal\.json\.gz\)`))
			Expect(f.Step).NotTo(BeEmpty())
		}
		Expect(out).To(ContainSubstring("fixtures: " + results.Plural(len(r.Fixtures.Findings), "refusal")))
		Expect(out).To(ContainSubstring("build worktree: cached"), "recording fixtures rebuilt nothing")
	})
})
