package skewtest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
)

// A Go caller sets Config fields and passes no flags: what it must fix is named by the
// field (the command, which took the value from a flag, names the flag: cmd/skewtest's
// flags spec).
var _ = Describe("Config", func() {
	var repo, cache string
	BeforeEach(func() {
		repo, cache = tinyRepo(), GinkgoT().TempDir()
	})

	It("names a shard that is none by its field, Shard, before anything is built", func(ctx SpecContext) {
		_, err := skewtest.Run(ctx, skewtest.Config{Repo: repo, CacheDir: cache, Shard: "3/2"})
		Expect(skewtest.IsUsage(err)).To(BeTrue())
		Expect(err).To(MatchError(`Shard "3/2": want K/N with 1 <= K <= N, such as 2/3`))
		Expect(err.Error()).NotTo(ContainSubstring("--"), "no flag: the caller passed none")
		Expect(filepath.Join(cache, "builds")).NotTo(BeADirectory(), "nothing was built")
	})

	It("plans the same config with a shard that is one (control: the repository is a subject)", func(ctx SpecContext) {
		var out bytes.Buffer
		run, err := skewtest.Run(ctx, skewtest.Config{Repo: repo, CacheDir: cache, Shard: "1/2", Seed: 1, PlanOnly: true, Stdout: &out})
		Expect(err).NotTo(HaveOccurred())
		Expect(run).To(BeNil(), "a plan has no verdicts")
		Expect(out.String()).To(ContainSubstring("shard 1/2"))
		Expect(filepath.Join(cache, "builds")).NotTo(BeADirectory(), "nothing was built")
	})

	DescribeTable("names a fuzz campaign's options by their fields",
		func(ctx SpecContext, cfg skewtest.FuzzConfig, want string) {
			cfg.Repo, cfg.CacheDir = repo, cache
			_, err := skewtest.Fuzz(ctx, cfg)
			Expect(skewtest.IsUsage(err)).To(BeTrue())
			Expect(err).To(MatchError(want))
		},
		Entry("Cases with Budget", skewtest.FuzzConfig{Cases: 3, Budget: time.Minute},
			"Cases and Budget do not go together: Cases for a pull request, Budget for a nightly campaign"),
		Entry("Host without Client", skewtest.FuzzConfig{Config: skewtest.Config{Host: "v1.0.0"}}, "Host and Client go together"),
		Entry("a negative Pack", skewtest.FuzzConfig{Pack: -1}, "Pack -1: give how many cases share a journey, 1 or more"),
		Entry("a bad Shard, the run's", skewtest.FuzzConfig{Config: skewtest.Config{Shard: "0/1"}},
			`Shard "0/1": want K/N with 1 <= K <= N, such as 2/3`),
	)
})

// tinyRepo is a subject's git repository: a skewtest.yaml whose driver is a shell script,
// a contract and a journey, committed and tagged v1.0.0.
func tinyRepo() string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	files := map[string]string{
		"skewtest.yaml": "product: tiny\ncontract: contract.json\nbuild:\n  steps: ['cp driver.sh \"$SKEWTEST_OUT/driver\"']\n" +
			"drivers:\n  host: [./driver, host]\n  clients: {desktop: [./driver, client]}\njourneys: [tiny.txtar]\n",
		"driver.sh":     "#!/bin/sh\nexit 1\n",
		"tiny.txtar":    "kind desktop\n-- script --\nstep a\nclient noop\n",
		"contract.json": `{"contractVersion": 1, "product": "tiny", "protocol": {"version": 1, "minCompatible": 1}}`,
	}
	for name, body := range files {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)).To(Succeed())
	}
	r, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	wt, err := r.Worktree()
	Expect(err).NotTo(HaveOccurred())
	Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
	sig := &object.Signature{Name: "T", Email: "t@example.com", When: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	h, err := wt.Commit("v1.0.0", &git.CommitOptions{Author: sig, Committer: sig})
	Expect(err).NotTo(HaveOccurred())
	_, err = r.CreateTag("v1.0.0", h, &git.CreateTagOptions{Tagger: sig, Message: "v1.0.0"})
	Expect(err).NotTo(HaveOccurred())
	return dir
}
