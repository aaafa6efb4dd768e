package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Shards and merge-reports on the reference subject: three shards of the default plan,
// merged, make the report one machine makes, timings aside.
var _ = Describe("shards of a run on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string
	BeforeAll(func() {
		repo = referenceHistory()
		cache = sharedCache
	})

	cli := func(ctx SpecContext, args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		return code, stdout.String() + stderr.String()
	}
	// comparable is a run without what timing changes: durations, paths, build status
	// (built or cached), timelines' instants.
	comparable := func(run *results.Run) string {
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d shard %q interrupted %v notRun %d\n", run.Seed, run.Shard, run.Interrupted, run.NotRun)
		for _, bl := range run.Builds {
			fmt.Fprintf(&b, "build %s %s\n", bl.Label, bl.Revision)
		}
		for _, f := range run.Findings {
			fmt.Fprintf(&b, "run finding %s %s\n", f.Kind, f.Message)
		}
		for _, p := range run.Pairings {
			fmt.Fprintf(&b, "%d %s %s %v/%d %s\n", p.Index, p.Label(), p.Status, p.CompletedSteps, p.StepsTotal, p.Repro)
			for _, f := range p.Findings {
				fmt.Fprintf(&b, "  %s %s %s\n", f.Kind, f.Step, f.Message)
			}
		}
		return b.String()
	}

	It("merges --shard 1/3, 2/3 and 3/3 into the report of one run", func(ctx SpecContext) {
		base := []string{"run", "--repo", repo, "--cache-dir", cache, "--seed", "42"}
		single := GinkgoT().TempDir()
		code, out := cli(ctx, append(base, "--report-dir", single)...)
		Expect(code).To(Equal(0), out)

		var shards []string
		for k := 1; k <= 3; k++ {
			dir := GinkgoT().TempDir()
			code, out := cli(ctx, append(base, "--report-dir", dir, "--shard", fmt.Sprintf("%d/3", k))...)
			Expect(code).To(Equal(0), out)
			shards = append(shards, dir)
		}
		merged := GinkgoT().TempDir()
		code, out = cli(ctx, append([]string{"merge-reports", "--report-dir", merged}, shards...)...)
		Expect(code).To(Equal(0), out)

		want, err := results.Load(filepath.Join(single, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		got, err := results.Load(filepath.Join(merged, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(comparable(got)).To(Equal(comparable(want)))
		Expect(got.ToolVersion).To(Equal(version.String()), "the shards' skewtest, once")
		for _, f := range []string{reports.JUnitFile, reports.SummaryFile, "report.html"} {
			Expect(filepath.Join(merged, f)).To(BeAnExistingFile())
		}
		for _, p := range got.Pairings {
			Expect(filepath.Join(merged, p.Transcript)).To(BeAnExistingFile(), "the merged report links every transcript")
		}
	})
})
