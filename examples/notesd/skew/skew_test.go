package skew_test

import (
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/skewtesting"
)

var _ = Describe("notesd across its releases", Ordered, func() {
	var repo string

	BeforeAll(func(ctx SpecContext) {
		repo = writeHistory(ctx)
	}, NodeTimeout(5*time.Minute))

	config := func() skewtest.Config {
		return skewtest.Config{Repo: repo, CacheDir: cache, ReportDir: GinkgoT().TempDir(), Seed: 1,
			Stdout: GinkgoWriter, Stderr: GinkgoWriter}
	}

	It("the working tree and the last release understand each other both ways", func(ctx SpecContext) {
		cfg := config()
		cfg.Pins = skewtest.Pins{Last: 1}
		if _, err := exec.LookPath("node"); err != nil {
			// The web client (JavaScript, from v0.3.0) runs in node: without it, the Go
			// clients only.
			GinkgoWriter.Println("node is not on PATH: the web client is left out")
			cfg.Kinds = []string{"cli", "sync"}
		}
		run, err := skewtesting.Matrix(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(run).To(skewtesting.BeCompatible())
		Expect(run.Pairings).NotTo(BeEmpty())
	}, SpecTimeout(10*time.Minute))

	It("finds the v0.3.0 slim-push bug with a v0.2.0 sync client, with its repro line", func(ctx SpecContext) {
		cfg := config()
		cfg.Host, cfg.Client, cfg.Kinds, cfg.Journeys = "v0.3.0", "v0.2.0", []string{"sync"}, []string{"sync"}
		run, err := skewtesting.Matrix(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(run).NotTo(skewtesting.BeCompatible())
		failures := strings.Join(skewtesting.Failures(run), "\n")
		Expect(failures).To(ContainSubstring("published-field-removed"))
		Expect(failures).To(ContainSubstring("repro: skewtest repro --repo " + repo + " --host v0.3.0 --client v0.2.0 --kind sync --journey sync --seed 1"))
	}, SpecTimeout(10*time.Minute))
})
