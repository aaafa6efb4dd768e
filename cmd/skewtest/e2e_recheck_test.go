package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("recheck of a saved report", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, saved string
	var original *results.Run

	BeforeAll(func(ctx SpecContext) {
		repo = referenceHistory()
		saved = GinkgoT().TempDir()
		code, out := cli(ctx, "repro", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", saved, "--seed", "9",
			"--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--journey", "terminal")
		Expect(code).To(Equal(exitFindings), out)
		var err error
		original, err = results.Load(filepath.Join(saved, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
	})

	It("reproduces every verdict of an unchanged checker, from the transcripts alone", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "recheck", "--report-dir", dir, saved)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("recheck: 3 of 3 pairings re-judged from their transcripts, 0 verdicts changed"))
		again, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(original.ToolVersion).To(Equal(version.String()), "a run names the skewtest that made it")
		Expect(again.ToolVersion).To(Equal(version.String()), "so does its recheck")
		Expect(again.Pairings).To(HaveLen(len(original.Pairings)))
		for i, p := range original.Pairings {
			Expect(again.Pairings[i].Status).To(Equal(p.Status), p.Label())
			Expect(again.Pairings[i].Findings).To(Equal(p.Findings), p.Label())
		}
	})

	It("says which verdicts a different judgement changes, and how", func(ctx SpecContext) {
		// The saved verdict says the skew pairing passed: the checks of today disagree.
		tampered := GinkgoT().TempDir()
		Expect(os.CopyFS(tampered, os.DirFS(saved))).To(Succeed())
		run, err := results.Load(filepath.Join(tampered, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		var skew *results.Pairing
		for _, p := range run.Pairings {
			if p.Host != p.Client {
				skew = p
			}
		}
		Expect(skew.Status).To(Equal(results.StatusFail))
		skew.Status, skew.Findings = results.StatusPass, nil
		data, err := json.Marshal(run)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(tampered, reports.ResultsFile), data, 0o644)).To(Succeed())

		code, out := cli(ctx, "recheck", tampered)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("changed: " + skew.Label() + ": pass → fail"))
		Expect(out).To(ContainSubstring("  + [decoder-refusal]"))
		Expect(out).To(ContainSubstring("1 verdict changed"))
		Expect(filepath.Join(tampered, "recheck", reports.ResultsFile)).To(BeAnExistingFile())
	})

	It("refuses a directory without a saved run", func(ctx SpecContext) {
		code, out := cli(ctx, "recheck", GinkgoT().TempDir())
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("results.json"))
	})
})

var _ = Describe("replay of a saved report into other builds' decoders", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, saved string

	BeforeAll(func(ctx SpecContext) {
		repo = referenceHistory()
		saved = GinkgoT().TempDir()
		code, out := cli(ctx, "repro", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", saved, "--seed", "9",
			"--host", "worktree", "--client", "worktree", "--kind", "desktop", "--journey", "terminal")
		Expect(code).To(Equal(exitOK), out)
	})

	It("finds an older desktop decoder's refusal of OutputSpan in a working-tree host's traffic, starting no host", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "replay", "--cache-dir", sharedCache, "--report-dir", dir, "--pins", "v1.4.120", saved)
		Expect(code).To(Equal(exitFindings), out)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(run.ToolVersion).To(Equal(version.String()))
		cells := map[string]*results.Pairing{}
		for _, p := range run.Pairings {
			Expect(p.Replay).NotTo(BeNil())
			cells[p.Replay.Direction+" "+p.Host+"×"+p.Client] = p
		}
		old := cells["H>C worktree×v1.4.120"]
		Expect(old).NotTo(BeNil(), out)
		Expect(old.Status).To(Equal(results.StatusFail))
		Expect(old.Findings).To(ContainElement(And(HaveField("Kind", results.DecoderRefusal),
			HaveField("Message", ContainSubstring("desktop client v1.4.120 refused H>C OutputSpan")),
			HaveField("Step", Not(BeEmpty())))))
		// Into the builds that recorded it: nothing refused, both ways.
		Expect(cells["H>C worktree×worktree"].Status).To(Equal(results.StatusPass))
		Expect(cells["C>H worktree×worktree"].Status).To(Equal(results.StatusPass))
		for _, p := range run.Pairings {
			Expect(p.Error).To(BeEmpty(), "no driver had to be a peer: %s", p.Label())
		}
	})
})

var _ = Describe("replay into the builds that recorded the traffic", Label(testlabels.E2E, testlabels.Slow), func() {
	It("refuses nothing on notesd, a product on a third-party protocol library", func(ctx SpecContext) {
		src, err := example.FindSource("notesd")
		Expect(err).NotTo(HaveOccurred())
		repo := filepath.Join(GinkgoT().TempDir(), "notesd")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
		saved, dir := GinkgoT().TempDir(), GinkgoT().TempDir()
		var out bytes.Buffer
		args := notesdKinds([]string{"run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", saved, "--seed", "3"})
		code := exitCode(dispatch(ctx, args, &out, &out), &out)
		Expect(code).To(BeNumerically("<=", exitFindings), out.String())
		code = exitCode(dispatch(ctx, []string{"replay", "--cache-dir", sharedCache, "--report-dir", dir, saved}, &out, &out), &out)
		Expect(code).To(BeNumerically("<=", exitFindings), out.String())
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		own := 0
		for _, p := range run.Pairings {
			Expect(p.Error).To(BeEmpty(), p.Label())
			receiver := p.Client
			if p.Replay.Direction == "C>H" {
				receiver = p.Host
			}
			if receiver == p.Replay.Recorded {
				own++
				Expect(p.Status).To(Equal(results.StatusPass), "%s from %s", p.Label(), p.Replay.From)
			}
		}
		Expect(own).To(BeNumerically(">", 0))
	})
})
