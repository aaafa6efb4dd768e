package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("fuzz flags", func() {
	It("runs PR mode by default: a fixed case count and a fixed seed", func() {
		o, err := parseFuzz("fuzz", []string{"--repo", "/r", "--cache-dir", "/c"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Cases).To(Equal(campaign.DefaultCases))
		Expect(o.Seed).To(Equal(int64(campaign.DefaultSeed)))
		Expect(o.Pack).To(BeZero(), "each generator's own pack line, else DefaultFuzzPack")
	})

	It("keeps a given seed, and draws a fresh one for a nightly budget", func() {
		o, err := parseFuzz("fuzz", []string{"--repo", "/r", "--cache-dir", "/c", "--seed", "9", "--cases", "3"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Seed).To(Equal(int64(9)))
		o, err = parseFuzz("fuzz", []string{"--repo", "/r", "--cache-dir", "/c", "--budget", "2m"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Budget).To(Equal(2 * time.Minute))
		Expect(o.Cases).To(BeZero())
		Expect(o.Seed).NotTo(BeZero())
	})

	It("reads generators, exclusions and kinds as lists", func() {
		o, err := parseFuzz("fuzz", []string{"--repo", "/r", "--cache-dir", "/c", "--generator", "a, b", "--exclude", "zero-run", "--kind", "desktop",
			"--host", "v1", "--client", "worktree", "--corpus", "/k"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Generators).To(Equal([]string{"a", "b"}))
		Expect(o.Exclude).To(Equal([]string{"zero-run"}))
		Expect(o.Kinds).To(Equal([]string{"desktop"}))
		Expect(o.Host).To(Equal("v1"))
		Expect(o.Corpus).To(Equal("/k"))
	})

	DescribeTable("refuses what does not go together, as a usage error",
		func(want string, args ...string) {
			_, err := parseFuzz("fuzz", append([]string{"--repo", "/r", "--cache-dir", "/c"}, args...), io.Discard)
			var ue *usageError
			Expect(errors.As(err, &ue)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("cases and budget", "--cases and --budget do not go together", "--cases", "3", "--budget", "1m"),
		Entry("a host without a client", "--host and --client go together", "--host", "v1"),
		Entry("a pair and pin rules", "do not go together", "--host", "v1", "--client", "v2", "--last", "2"),
		Entry("no pack", "--pack -1", "--pack", "-1"),
		Entry("negative cases", "-cases: -1 is too small: give how many cases to run, 1 or more", "--cases", "-1"),
		Entry("R3, N22: no cases (was accepted, and built)", "-cases: 0 is too small: give how many cases to run, 1 or more", "--cases", "0"),
	)
})

// An interrupted campaign (Ctrl-C, SIGTERM, a cancelled CI job) writes every report, as an
// interrupted run does: the trial's F1, F3 and N22 (R1) left only drivers/ and pairings/.
var _ = Describe("an interrupted fuzz campaign", func() {
	// fuzzSubject is the shell subject with a generator whose one event waits for what its
	// driver never observes: each case stalls (a finding), fast with --quiet.
	fuzzSubject := func() *tinySubject {
		s := newShellSubject()
		Expect(os.Mkdir(filepath.Join(s.dir, "fuzz"), 0o755)).To(Succeed())
		s.write("fuzz/stuck.txtar", "kind desktop\nevents 1..1\n\n-- event stuck --\nclient noop\nawait client never-comes\n")
		s.edit("skewtest.yaml", func(y string) string { return y + "fuzz: [fuzz/*.txtar]\n" })
		return s
	}
	// interrupt runs fuzz on s, cancelled once its progress says word, and returns the exit
	// code and the report directory.
	interrupt := func(ctx SpecContext, s *tinySubject, word string, args ...string) (int, string) {
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		progress := &cancelOn{word: word, cancel: cancel}
		report := GinkgoT().TempDir()
		var stdout bytes.Buffer
		code := exitCode(dispatch(runCtx, append([]string{"fuzz", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir(),
			"--report-dir", report, "--host", "worktree", "--client", "worktree"}, args...), &stdout, progress), progress)
		GinkgoWriter.Printf("%s%s", stdout.String(), progress.String())
		Expect(progress.seen).To(BeTrue(), "interrupted when the progress said %q", word)
		return code, report
	}
	// interrupted checks that every report is written and says the campaign was interrupted.
	interrupted := func(report string) *results.Run {
		GinkgoHelper()
		run, err := results.Load(filepath.Join(report, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Interrupted).To(BeTrue())
		Expect(run.Campaign).NotTo(BeNil())
		for _, f := range []string{reports.SummaryFile, reports.JUnitFile, "report.html"} {
			data, err := os.ReadFile(filepath.Join(report, f))
			Expect(err).NotTo(HaveOccurred(), f)
			Expect(strings.ToLower(string(data))).To(ContainSubstring("interrupted"), f)
		}
		return run
	}

	It("writes every report when interrupted during its builds (N22)", func(ctx SpecContext) {
		s := fuzzSubject()
		gate := filepath.Join(GinkgoT().TempDir(), "gate") // never made: the build waits until it is stopped
		s.edit("skewtest.yaml", func(y string) string {
			return regexp.MustCompile(`(?m)^  steps: \[`).ReplaceAllString(y, `  steps: ['while [ ! -e `+gate+` ]; do sleep 0.05; done', `)
		})
		code, report := interrupt(ctx, s, ": building (", "--cases", "2")
		Expect(code).To(Equal(exitInfra))
		run := interrupted(report)
		Expect(run.Campaign.Cases).To(BeZero())
	}, NodeTimeout(2*time.Minute))

	It("writes every report, with the finding it had, when interrupted while confirming a failing case (F1, F3)", func(ctx SpecContext) {
		s := fuzzSubject()
		code, report := interrupt(ctx, s, "fuzz: stall on ", "--cases", "2", "--quiet", "200ms", "--pack", "1")
		Expect(code).To(Equal(exitInfra))
		Expect(filepath.Join(report, reports.ResultsFile)).To(BeAnExistingFile())
		run := interrupted(report)
		Expect(run.Campaign.Findings).NotTo(BeEmpty(), "the campaign's finding is in results.json, not only on stderr")
		Expect(run.Campaign.Findings[0].Kind).To(Equal(results.Stall))
	}, NodeTimeout(2*time.Minute))
})
