package matrix_test

import (
	"bytes"
	"errors"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// A Go program outside the command plans a run through the library, as `skewtest plan`
// does: nothing is built.
var _ = Describe("matrix.Run", func() {
	var repo string
	BeforeEach(func() {
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
	})

	It("plans the working tree with a pin both ways, with references and repro lines, building nothing", func(ctx SpecContext) {
		var out bytes.Buffer
		cache := GinkgoT().TempDir()
		run, err := matrix.Run(ctx, matrix.Config{Repo: repo, PlanOnly: true, Pins: pins.Options{Refs: pins.Refs("test", "v1.4.190")},
			Journeys: []string{"terminal"}, Kinds: []string{"desktop"}, Seed: 7, CacheDir: cache, Stdout: &out})
		Expect(err).NotTo(HaveOccurred())
		Expect(run).To(BeNil(), "a plan has no verdicts")
		Expect(out.String()).To(ContainSubstring("skewtest: seed 7\n"))
		Expect(out.String()).To(ContainSubstring("plan: 4 pairings\n"), "two skew pairings and the two references")
		Expect(out.String()).To(ContainSubstring("skewtest repro --repo " + repo + " --host v1.4.190 --client worktree --kind desktop --journey terminal --seed 7"))
		Expect(filepath.Join(cache, "builds")).NotTo(BeADirectory(), "nothing was built")
	})

	It("says what the user must fix as a usage error, naming the Config's fields", func(ctx SpecContext) {
		_, err := matrix.Run(ctx, matrix.Config{Repo: repo, PlanOnly: true, Matrix: "diagonal"})
		Expect(err).To(BeAssignableToTypeOf(&usage.Error{}))
		Expect(err).To(MatchError(`Matrix: unknown matrix "diagonal" (want default or full)`))
		_, err = matrix.Run(ctx, matrix.Config{Repo: repo, PlanOnly: true, Kinds: []string{"watch"}})
		Expect(err).To(MatchError(HavePrefix("Kinds watch: no build of this run has a watch client driver")))
		_, err = matrix.Run(ctx, matrix.Config{Repo: repo, PlanOnly: true, Shard: "3/2"})
		Expect(err).To(MatchError(`Shard "3/2": want K/N with 1 <= K <= N, such as 2/3`))
		var oe *usage.OptionError
		Expect(errors.As(err, &oe)).To(BeTrue())
		Expect(oe.Option).To(Equal("Shard"))
		_, err = matrix.Run(ctx, matrix.Config{Repo: repo, PlanOnly: true, LastFailed: true, ReportDir: GinkgoT().TempDir()})
		Expect(err).To(MatchError(HavePrefix("LastFailed needs the previous run's results.json: ")))
		_, err = matrix.ClaimReportDir(filepath.Join(repo, "skewtest.yaml"), nil)
		Expect(err).To(MatchError(HavePrefix("ReportDir " + filepath.Join(repo, "skewtest.yaml") + " is a file, not a directory")))
	})
})
