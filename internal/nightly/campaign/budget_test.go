package campaign_test

import (
	"bytes"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/testcache"
	"github.com/skewtest/skewtest/results"
)

// saturate keeps every core busy until the spec ends: perCore busy loops per core, each in
// a process group of its own, killed at cleanup.
func saturate(perCore int) {
	for range perCore * runtime.NumCPU() {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
	}
}

var _ = Describe("a budget", func() {
	It("is a deadline: with every core busy, a campaign ends within its budget and grace, its last cases cut and counted, its reports and coverage memory written", func(ctx SpecContext) {
		s := referenceSubject()
		var out bytes.Buffer
		cfg := campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "worktree", Kinds: []string{"desktop"},
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: GinkgoT().TempDir(), Seed: 5, Stdout: &out, Stderr: GinkgoWriter},
			Cases: 1,
		}
		// The builds first, on a quiet machine: the budget is the campaign's, builds included.
		_, err := campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())

		saturate(1)
		budget := 20 * time.Second
		corpus := filepath.Join(GinkgoT().TempDir(), "corpus")
		out.Reset()
		cfg.ReportDir, cfg.Cases, cfg.Budget, cfg.Corpus = GinkgoT().TempDir(), 0, budget, corpus
		start := time.Now()
		run, err := campaign.Run(ctx, cfg)
		took := time.Since(start)
		Expect(err).NotTo(HaveOccurred(), out.String())
		GinkgoWriter.Printf("budget %s, grace %s, ended after %s, %d cases, %d cut\n", budget, campaign.Grace(budget), took.Round(time.Millisecond),
			run.Campaign.Cases, run.Campaign.CasesNotRun)
		Expect(took).To(BeNumerically("<", budget+campaign.Grace(budget)), out.String())

		// The deadline did the stopping: cases were under way when it came, and are said
		// to be cut, not failed, errored or interrupted.
		Expect(run.Campaign.CasesNotRun).To(BeNumerically(">", 0), out.String())
		Expect(out.String()).To(ContainSubstring("not run: cut by the end of the budget"))
		Expect(run.Interrupted).To(BeFalse())
		Expect(run.NotRun).To(BeZero())
		Expect(run.ExitCode()).To(Equal(0), out.String())
		// Every case that ran passed, so no pairing's transcript is worth keeping: the ones
		// the deadline cut leave nothing behind either. (That the cut pairings write no
		// transcript at all, which once kept a campaign nearly a minute past its deadline on
		// a loaded machine, is the harness's DiscardCut spec: the campaign's end removes
		// every pairing directory results.json does not name, so this looks at the result.)
		var left []string
		Expect(filepath.WalkDir(filepath.Join(cfg.ReportDir, "pairings"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "transcript") {
				left = append(left, path)
			}
			return nil
		})).To(Succeed())
		Expect(left).To(BeEmpty(), "the campaign left transcripts of passing or cut pairings")

		saved, err := results.Load(filepath.Join(cfg.ReportDir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(saved.Campaign.Cases).To(Equal(run.Campaign.Cases))
		Expect(saved.Campaign.CasesNotRun).To(Equal(run.Campaign.CasesNotRun))
		files, _ := filepath.Glob(filepath.Join(corpus, campaign.MemoryDir, "*.json"))
		Expect(files).To(HaveLen(1), "the coverage memory is saved")
	}, SpecTimeout(15*time.Minute))

	It("is a deadline whatever runs at it: with every core busy several times over, a campaign whose cases fail (the corpus replayed first, packs of megabyte outputs, failing packs split, findings confirmed and shrunk) ends within its budget and grace, every finding kept with a journey file", func(ctx SpecContext) {
		s := referenceSubject()
		var out bytes.Buffer
		corpus := filepath.Join(GinkgoT().TempDir(), "corpus")
		// The session kind's rpcError names the command, not the request: every probe
		// fails, so findings are being confirmed and shrunk (100,000 tries allowed) while
		// the terminal's cases (megabyte outputs) run beside them.
		cfg := campaign.Config{
			Config: matrix.Config{Subject: s, Host: "worktree", Client: "worktree", Kinds: []string{"desktop", "session"},
				Env:      []string{`worktree:REMOTETERM_FEATURES={"rpcErrorWrongRequestId":true}`},
				CacheDir: testcache.Dir(GinkgoT().TempDir), ReportDir: GinkgoT().TempDir(), Seed: 7, Stdout: &out, Stderr: GinkgoWriter},
			Cases: 2, Corpus: corpus, ShrinkTries: 100000,
		}
		// The builds first, on a quiet machine, leaving a corpus to replay.
		_, err := campaign.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred(), out.String())

		saturate(6)
		budget := 40 * time.Second
		out.Reset()
		cfg.ReportDir, cfg.Cases, cfg.Budget = GinkgoT().TempDir(), 0, budget
		start := time.Now()
		run, err := campaign.Run(ctx, cfg)
		took := time.Since(start)
		Expect(err).NotTo(HaveOccurred(), out.String())
		GinkgoWriter.Printf("budget %s, grace %s, ended after %s, %d cases, %d cut, %d findings\n", budget, campaign.Grace(budget), took.Round(time.Millisecond),
			run.Campaign.Cases, run.Campaign.CasesNotRun, len(run.Campaign.Findings))
		Expect(took).To(BeNumerically("<", budget+campaign.Grace(budget)), out.String())
		Expect(out.String()).To(ContainSubstring("corpus: replaying"))
		Expect(run.Interrupted).To(BeFalse(), "a budget's end is no interruption")
		Expect(run.NotRun).To(BeZero())
		Expect(run.Campaign.Findings).NotTo(BeEmpty(), out.String())
		for _, f := range run.Campaign.Findings {
			Expect(f.Shrunk).To(BeAnExistingFile(), "%+v", f)
		}
		files, _ := filepath.Glob(filepath.Join(corpus, campaign.MemoryDir, "*.json"))
		Expect(files).To(HaveLen(2), "the coverage memory is saved")
	}, SpecTimeout(15*time.Minute))
})
