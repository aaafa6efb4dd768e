package skew_test

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

// The dropPushInCall negative control is a race, not a skew: the sync client drops a
// notes.changed that arrives while one of its calls waits for its reply. The working tree
// with itself shows it, on a schedule where the push is late (testdata/late-push.txtar holds
// it in the tap past the client's next call), and only there: the gate's sync journey, whose
// settle period lands the push before the client's next call, passes with it on.
var _ = Describe("notesd's dropPushInCall switch, the working tree with itself", Ordered, func() {
	var repo string

	BeforeAll(func(ctx SpecContext) {
		repo = writeHistory(ctx)
	}, NodeTimeout(5*time.Minute))

	// runSync runs one journey (a name of the gate's, or a file) on the working tree with
	// itself, the sync client only, with the switch on or off in its drivers.
	runSync := func(ctx SpecContext, journey string, drop bool) *results.Run {
		GinkgoHelper()
		cfg := skewtest.Config{Repo: repo, CacheDir: cache, ReportDir: GinkgoT().TempDir(), Seed: 1,
			Host: "worktree", Client: "worktree", Kinds: []string{"sync"}, Journeys: []string{journey},
			Stdout: GinkgoWriter, Stderr: GinkgoWriter}
		if drop {
			cfg.Env = []string{results.WorktreeLabel + `:NOTESD_FEATURES={"dropPushInCall":true}`}
		}
		run, err := skewtesting.Matrix(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Pairings).To(HaveLen(1))
		return run
	}
	latePush := func() string {
		GinkgoHelper()
		path, err := filepath.Abs(filepath.Join("testdata", "late-push.txtar"))
		Expect(err).NotTo(HaveOccurred())
		return path
	}

	It("loses the late push with the switch on: the last barrier stalls at write-back", func(ctx SpecContext) {
		run := runSync(ctx, latePush(), true)
		Expect(run).NotTo(skewtesting.BeCompatible())
		Expect(run.Pairings[0].Findings).To(ContainElement(SatisfyAll(
			HaveField("Kind", results.Stall), HaveField("Step", "write-back"),
			HaveField("Message", ContainSubstring(`await client applied id="h1" rev="2"`)))))
	}, SpecTimeout(5*time.Minute))

	It("takes the same late push with the switch off", func(ctx SpecContext) {
		Expect(runSync(ctx, latePush(), false)).To(skewtesting.BeCompatible())
	}, SpecTimeout(5*time.Minute))

	It("passes the gate's sync journey with the switch on: the settle period lands the push first", func(ctx SpecContext) {
		Expect(runSync(ctx, "sync", true)).To(skewtesting.BeCompatible())
	}, SpecTimeout(5*time.Minute))
})
