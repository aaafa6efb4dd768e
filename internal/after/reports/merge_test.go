package reports_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/resultstest"
	"github.com/skewtest/skewtest/results"
)

// writeReport writes run's reports and stand-ins for its transcripts and logs into a new
// directory.
func writeReport(run *results.Run) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	Expect(reports.Write(dir, run)).To(Succeed())
	Expect(resultstest.WriteArtifacts(dir, run)).To(Succeed())
	return dir
}

func readFile(path string) string {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// took is the one line of report.html that depends on timings.
var took = regexp.MustCompile(`<dt>took</dt><dd>[^<]*</dd>`)

var _ = Describe("MergeDirs", func() {
	It("merges 3 shards' reports into the report of the unsharded run, timings aside", func() {
		whole := resultstest.Run(resultstest.Options{Builds: 4, Seed: 11})
		wholeDir := writeReport(whole)
		var dirs []string
		for _, s := range resultstest.Split(whole, 3) {
			dirs = append(dirs, writeReport(s))
		}
		out := filepath.Join(GinkgoT().TempDir(), "merged")
		merged, err := reports.MergeDirs(out, dirs[1], dirs[2], dirs[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.ExitCode()).To(Equal(whole.ExitCode()))

		back, err := results.Load(filepath.Join(out, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Finished).NotTo(Equal(whole.Finished), "the shards ran at their own times")
		back.Finished = whole.Finished
		Expect(back).To(Equal(whole))
		for _, f := range []string{reports.JUnitFile, reports.SummaryFile} {
			Expect(readFile(filepath.Join(out, f))).To(Equal(readFile(filepath.Join(wholeDir, f))), f)
		}
		Expect(took.ReplaceAllString(readFile(filepath.Join(out, reports.HTMLFile)), "")).
			To(Equal(took.ReplaceAllString(readFile(filepath.Join(wholeDir, reports.HTMLFile)), "")))
		for _, p := range back.Pairings {
			for _, f := range append(p.Logs, p.Transcript) {
				if f != "" {
					Expect(readFile(filepath.Join(out, f))).To(Equal(readFile(filepath.Join(wholeDir, f))))
				}
			}
		}
	})

	It("moves a shard's directory aside when another shard already used its name", func() {
		mk := func(shard string, index int) *results.Run {
			return &results.Run{SchemaVersion: 1, Seed: 3, Shard: shard, Started: time.Now(),
				Builds: []results.Build{{Label: "worktree", Revision: "worktree", Status: "built"}},
				Pairings: []*results.Pairing{{Index: index, Host: "worktree", Client: "worktree", ClientKind: "desktop",
					Journey: fmt.Sprint("j", index), Status: results.StatusPass, Findings: []results.Finding{},
					Transcript: "pairings/001-worktree/transcript.json.gz", Logs: []string{"pairings/001-worktree/host.log"}}}}
		}
		one, two := mk("1/2", 1), mk("2/2", 2)
		out := filepath.Join(GinkgoT().TempDir(), "merged")
		merged, err := reports.MergeDirs(out, writeReport(one), writeReport(two))
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Pairings[0].Transcript).To(Equal("pairings/001-worktree/transcript.json.gz"))
		Expect(merged.Pairings[1].Transcript).To(Equal("shards/2-of-2/pairings/001-worktree/transcript.json.gz"))
		Expect(merged.Pairings[1].Logs).To(Equal([]string{"shards/2-of-2/pairings/001-worktree/host.log"}))
		Expect(readFile(filepath.Join(out, merged.Pairings[1].Logs[0]))).To(HavePrefix("host worktree × desktop client worktree · j2\n"))
		Expect(readFile(filepath.Join(out, merged.Pairings[0].Logs[0]))).To(HavePrefix("host worktree × desktop client worktree · j1\n"))
	})

	It("refuses to merge into one of the shards", func() {
		dir := writeReport(resultstest.Run(resultstest.Options{}))
		_, err := reports.MergeDirs(dir, dir)
		Expect(err).To(MatchError(reports.ErrMergeInput))
	})

	It("refuses a directory that is not a report", func() {
		_, err := reports.MergeDirs(GinkgoT().TempDir(), GinkgoT().TempDir())
		Expect(err).To(MatchError(reports.ErrMergeInput))
		Expect(err).To(MatchError(ContainSubstring("has no results.json")))
	})

	It("refuses a results.json naming files outside its report", func() {
		run := resultstest.Run(resultstest.Options{Builds: 1})
		run.Pairings[0].Transcript = "../../etc/passwd"
		dir := GinkgoT().TempDir()
		Expect(reports.Write(dir, run)).To(Succeed())
		_, err := reports.MergeDirs(filepath.Join(GinkgoT().TempDir(), "out"), dir)
		Expect(err).To(MatchError(reports.ErrMergeInput))
		Expect(err).To(MatchError(ContainSubstring("outside its report directory")))
	})

	It("says which shards disagree", func() {
		shards := resultstest.Split(resultstest.Run(resultstest.Options{}), 2)
		one := writeReport(shards[0])
		shards[1].Seed = 99
		two := writeReport(shards[1])
		_, err := reports.MergeDirs(filepath.Join(GinkgoT().TempDir(), "out"), one, two)
		Expect(err).To(MatchError(results.ErrSeedConflict))
	})
})
