package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/resultstest"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("merge-reports", func() {
	// Specs run inside CI jobs too: keep their reports out of the job's own summary.
	BeforeEach(func() { GinkgoT().Setenv(reports.StepSummaryEnv, "") })

	// shardDirs writes the reports of run split in n shards.
	shardDirs := func(run *results.Run, n int) []string {
		var dirs []string
		for _, s := range resultstest.Split(run, n) {
			d := GinkgoT().TempDir()
			Expect(reports.Write(d, s)).To(Succeed())
			Expect(resultstest.WriteArtifacts(d, s)).To(Succeed())
			dirs = append(dirs, d)
		}
		return dirs
	}

	It("parses the output directory and the shards' directories, flags anywhere", func() {
		o, err := parseMerge([]string{"a", "--report-dir", "out", "b", "c"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.ReportDir).To(Equal("out"))
		Expect(o.Dirs).To(Equal([]string{"a", "b", "c"}))
	})

	It("merges shards and exits as the whole run would", func() {
		whole := resultstest.Run(resultstest.Options{Builds: 3, Seed: 4})
		out := filepath.Join(GinkgoT().TempDir(), "merged")
		var stdout bytes.Buffer
		err := dispatch(context.Background(), append([]string{"merge-reports", "--report-dir", out}, shardDirs(whole, 3)...), &stdout, io.Discard)
		Expect(exitCode(err, io.Discard)).To(Equal(whole.ExitCode()))
		Expect(stdout.String()).To(ContainSubstring("merged 3 reports: 18 pairings"))
		Expect(stdout.String()).To(ContainSubstring("reports: " + out))
		merged, err := results.Load(filepath.Join(out, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Pairings).To(HaveLen(18))
		Expect(filepath.Join(out, reports.HTMLFile)).To(BeAnExistingFile())
	})

	DescribeTable("refuses inputs that are not one plan's shards with exit code 2",
		func(args func() []string, want string) {
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args(), io.Discard, io.Discard)
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
		},
		Entry("no directory", func() []string { return []string{"merge-reports"} }, "give the report directory of every shard"),
		Entry("not a report", func() []string {
			return []string{"merge-reports", "--report-dir", GinkgoT().TempDir() + "/out", GinkgoT().TempDir()}
		}, "has no results.json"),
		Entry("a shard missing", func() []string {
			dirs := shardDirs(resultstest.Run(resultstest.Options{}), 3)
			return []string{"merge-reports", "--report-dir", GinkgoT().TempDir() + "/out", dirs[0], dirs[2]}
		}, "shard 2/3 missing"),
	)
})
