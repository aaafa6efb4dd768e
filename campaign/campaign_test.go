package campaign_test

import (
	"bytes"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/campaign"
	"github.com/skewtest/skewtest/example"
	"github.com/skewtest/skewtest/internal/testcache"
	"github.com/skewtest/skewtest/matrix"
	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/subject"
)

// A Go program outside the command runs a campaign through the library, as `skewtest fuzz`
// does: the reference history's working tree with itself, a few cases.
var _ = Describe("campaign.Run", func() {
	It("runs a fuzz campaign from a Config and writes its reports", func(ctx SpecContext) {
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
		s, err := subject.Open(repo)
		Expect(err).NotTo(HaveOccurred())

		var out bytes.Buffer
		report := GinkgoT().TempDir()
		run, err := campaign.Run(ctx, campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "worktree", Kinds: []string{"desktop"},
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: report, Seed: campaign.DefaultSeed, Stdout: &out, Stderr: GinkgoWriter},
			Cases: 4,
		})
		Expect(err).NotTo(HaveOccurred(), out.String())
		Expect(run.Campaign.Cases).To(Equal(4), out.String())
		Expect(run.ExitCode()).To(Equal(0), out.String())
		Expect(out.String()).To(ContainSubstring("skewtest fuzz: seed 1"))
		saved, err := reports.Load(filepath.Join(report, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(saved.Campaign.Cases).To(Equal(4))
	}, SpecTimeout(15*time.Minute))

	It("refuses a campaign whose options do not go together, before building", func(ctx SpecContext) {
		_, err := campaign.Run(ctx, campaign.Config{Config: matrix.Config{Repo: GinkgoT().TempDir(), Host: "worktree"}, Cases: 1})
		var ue *subject.UsageError
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError("--host and --client go together"))
		_, err = campaign.Run(ctx, campaign.Config{Config: matrix.Config{Repo: GinkgoT().TempDir()}, Cases: 1, Budget: time.Minute})
		Expect(err).To(MatchError(ContainSubstring("--cases and --budget do not go together")))
	})
})
