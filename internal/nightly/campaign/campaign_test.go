package campaign_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/testcache"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// referenceSubject writes the reference subject's release history to a temporary directory
// and opens it.
func referenceSubject() *subject.Subject {
	src, err := example.FindSource("")
	Expect(err).NotTo(HaveOccurred())
	repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
	_, err = example.Write(src, repo)
	Expect(err).NotTo(HaveOccurred())
	s, err := subject.Open(repo)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// A Go program outside the command runs a campaign through the library, as `skewtest fuzz`
// does: the reference history's working tree with itself, a few cases.
var _ = Describe("campaign.Run", func() {
	It("runs a fuzz campaign from a Config and writes its reports", func(ctx SpecContext) {
		s := referenceSubject()

		var out bytes.Buffer
		report, corpus := GinkgoT().TempDir(), filepath.Join(GinkgoT().TempDir(), "corpus")
		cfg := campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "worktree", Kinds: []string{"desktop"},
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: report, Seed: campaign.DefaultSeed, Stdout: &out, Stderr: GinkgoWriter},
			Cases:  4,
			Corpus: corpus,
		}
		run, err := campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(run.Campaign.Cases).To(Equal(4), out.String())
		Expect(run.ExitCode()).To(Equal(0), out.String())
		Expect(out.String()).To(ContainSubstring("skewtest fuzz: seed 1"))
		saved, err := results.Load(filepath.Join(report, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(saved.Campaign.Cases).To(Equal(4))
		Expect(saved.ToolVersion).To(Equal(version.String()))

		// The campaign's coverage: the run's, its timeline, and its file in the corpus's memory.
		Expect(saved.Coverage).NotTo(BeNil())
		covered, _ := saved.Coverage.Count(results.CoverFrame)
		Expect(covered).To(BeNumerically(">", 0))
		Expect(saved.Campaign.Timeline).NotTo(BeEmpty())
		Expect(saved.Campaign.History).To(HaveLen(1))
		first := saved.Campaign.History[0]
		Expect(first.New).To(Equal(first.Reached))
		files, _ := filepath.Glob(filepath.Join(corpus, campaign.MemoryDir, "*.json"))
		Expect(files).To(HaveLen(1))

		// A second, guided campaign reads the memory: it adds its own file and finds little
		// that is new.
		out.Reset()
		cfg.ReportDir, cfg.Guided, cfg.Seed = GinkgoT().TempDir(), true, 2
		run, err = campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(out.String()).To(ContainSubstring("coverage memory: 1 earlier campaign"))
		Expect(run.Campaign.History).To(HaveLen(2))
		second := run.Campaign.History[1]
		Expect(second.New).To(BeNumerically("<", second.Reached))
		Expect(second.Ever).To(Equal(first.Reached + second.New))
		files, _ = filepath.Glob(filepath.Join(corpus, campaign.MemoryDir, "*.json"))
		Expect(files).To(HaveLen(2))
		md, err := os.ReadFile(filepath.Join(cfg.ReportDir, reports.SummaryFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("## Coverage over time"))
	}, SpecTimeout(15*time.Minute))

	It("refuses a campaign whose options do not go together, before building, naming its Config's fields", func(ctx SpecContext) {
		_, err := campaign.Run(ctx, campaign.Config{Config: matrix.Config{Repo: GinkgoT().TempDir(), Host: "worktree"}, Cases: 1})
		var ue *usage.Error
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError("Host and Client go together"))
		_, err = campaign.Run(ctx, campaign.Config{Config: matrix.Config{Repo: GinkgoT().TempDir()}, Cases: 1, Budget: time.Minute})
		Expect(err).To(MatchError("Cases and Budget do not go together: Cases for a pull request, Budget for a nightly campaign"))
		_, err = campaign.Run(ctx, campaign.Config{Config: matrix.Config{Repo: GinkgoT().TempDir()}, Pack: -1})
		Expect(err).To(MatchError("Pack -1: give how many cases share a journey, 1 or more"))
		Expect(err.Error()).NotTo(ContainSubstring("--"))
	})
})

var _ = Describe("a finding on several pairings of one case", func() {
	It("is shrunk once: the other pairings run the shrunk journey and take it when it shows there too", Label(testlabels.Slow), func(ctx SpecContext) {
		s := referenceSubject()
		var out, progress bytes.Buffer
		// The working tree's host names the command in rpcError, not the request: a probe
		// fails on every pairing with that host, the working tree's own and the skew one.
		cfg := campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "v1.4.190", Kinds: []string{"session"},
				Env:      []string{`worktree:REMOTETERM_FEATURES={"rpcErrorWrongRequestId":true}`},
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: GinkgoT().TempDir(), Seed: 7, Stdout: &out, Stderr: &progress},
			Cases: 2, Pack: 1,
		}
		run, err := campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		byCase := map[string][]results.CampaignFinding{}
		for _, f := range run.Campaign.Findings {
			if !f.Flaky && !f.Unshrunk && !f.Race {
				byCase[f.First+"|"+string(f.Kind)] = append(byCase[f.First+"|"+string(f.Kind)], f)
			}
		}
		reused := 0
		for _, fs := range byCase {
			if len(fs) < 2 {
				continue
			}
			// The first is shrunk (more than its one confirming run); the others take its
			// journey after one run each.
			Expect(fs[0].ShrinkRuns).To(BeNumerically(">", 1), "%+v", fs)
			for _, f := range fs[1:] {
				Expect(f.ShrinkRuns).To(Equal(1), "%+v", fs)
				Expect(f.Shrunk).To(Equal(fs[0].Shrunk))
				Expect(f.Repro).To(ContainSubstring(f.Shrunk))
				reused++
			}
		}
		Expect(reused).To(BeNumerically(">", 0), "no case showed a finding on two pairings:\n%s\n%s", out.String(), progress.String())
		Expect(progress.String()).To(ContainSubstring("shows with the journey it was shrunk to on"))
	}, SpecTimeout(15*time.Minute))
})

var _ = Describe("a campaign in lanes", func() {
	It("cuts each batch's packs to spread its cases over a pack for every pairing run at once, with the same verdicts; --pack is kept (negative control)", func(ctx SpecContext) {
		s := referenceSubject()
		var out bytes.Buffer
		// The working tree with itself: a pairing per pack.
		cfg := campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "worktree", Kinds: []string{"session"}, Parallel: 4,
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: GinkgoT().TempDir(), Seed: 3, Stdout: &out, Stderr: GinkgoWriter},
			Cases: 64, Generators: []string{"session"}, ParallelGiven: true,
		}
		run, err := campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(out.String()).To(ContainSubstring("4 pairings at once"))
		// The generator packs 64; a batch of 64 cases at -j 4 runs 4 packs of 16.
		Expect(run.Campaign.Cases).To(Equal(64), out.String())
		Expect(run.Campaign.Pairings).To(Equal(4), out.String())
		Expect(run.ExitCode()).To(Equal(0), out.String())
		cut := caseStatuses(run)

		out.Reset()
		cfg.ReportDir, cfg.Pack = GinkgoT().TempDir(), 64
		run, err = campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(run.Campaign.Pairings).To(Equal(1), "--pack 64: one pack of the 64 cases\n%s", out.String())
		Expect(caseStatuses(run)).To(Equal(cut), "the same seed, the same cases and verdicts however they are packed")

		// Without -j the pairings are weighed: the session generator's are light, one unit
		// of harness.DefaultLaneParallel each; the batch's 64 cases run as 8 packs of 8.
		out.Reset()
		cfg.ReportDir, cfg.Pack, cfg.Parallel, cfg.ParallelGiven = GinkgoT().TempDir(), 0, 0, false
		run, err = campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())
		units := harness.DefaultLaneParallel()
		Expect(out.String()).To(ContainSubstring(fmt.Sprintf("%d pairings at once, %d of cases that move 64 KiB or more", units, units/campaign.HeavyWeight)))
		Expect(run.Campaign.Pairings).To(Equal(64/max(campaign.DefaultPack, (64+units-1)/units)), out.String())
		Expect(caseStatuses(run)).To(Equal(cut), "the same seed, the same cases and verdicts however many run at once")
	}, SpecTimeout(15*time.Minute))
})

// caseStatuses is each case's verdict, by name.
func caseStatuses(run *results.Run) map[string]results.Status {
	out := map[string]results.Status{}
	for _, c := range run.Campaign.CaseList {
		out[c.Name] = c.Status
	}
	return out
}
