package matrix_test

import (
	"bytes"
	"errors"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/matrix"
)

// Runs that name their pairings exactly, planned on the reference subject's history: the
// plan is made from the builds' own files, so nothing is built.
var _ = Describe("a run of exact pairings", Ordered, func() {
	var (
		repo  string
		known []example.KnownBug
	)
	BeforeAll(func() {
		src, err := example.FindSource("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "remoteterm")
		w, err := example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
		known = w.KnownBugs
	})

	plan := func(ctx SpecContext, pairs []matrix.Pair) (string, error) {
		var out bytes.Buffer
		run, err := matrix.Run(ctx, matrix.Config{Repo: repo, CacheDir: GinkgoT().TempDir(), ReportDir: GinkgoT().TempDir(),
			Seed: 7, PlanOnly: true, Pairings: pairs, Stdout: &out, Stderr: GinkgoWriter})
		Expect(run).To(BeNil())
		GinkgoWriter.Print(out.String())
		return out.String(), err
	}

	It("plans exactly those pairings, with the references each needs, each ref once", func(ctx SpecContext) {
		out, err := plan(ctx, []matrix.Pair{
			{Host: "v1.4.190", Client: "v1.4.120", Kind: "desktop", Journey: "terminal"},
			{Host: "worktree", Client: "v1.4.120", Kind: "desktop", Journey: "terminal"},
			{Host: "v1.4.120", Client: "v1.4.165", Kind: "session", Journey: "session"},
		})
		Expect(err).NotTo(HaveOccurred())
		// 3 pairings + references: v1.4.190, v1.4.120 and worktree on desktop terminal,
		// v1.4.120 and v1.4.165 on session.
		Expect(out).To(ContainSubstring("plan: 8 pairings\n"))
		Expect(out).To(ContainSubstring("host v1.4.120 × desktop client v1.4.120 · terminal  (reference)"))
		Expect(out).To(ContainSubstring("host v1.4.165 × session client v1.4.165 · session  (reference)"))
		Expect(out).To(ContainSubstring("--host worktree --client v1.4.120 --kind desktop --journey terminal --seed 7"))
		Expect(out).NotTo(ContainSubstring("pin "), "no pins are selected")
		Expect(out).NotTo(ContainSubstring("mobile"))
	})

	It("plans the known bugs the history declares", func(ctx SpecContext) {
		Expect(known).To(HaveLen(6))
		var pairs []matrix.Pair
		for _, b := range known {
			pairs = append(pairs, matrix.Pair{Host: b.Host, Client: b.Client, Kind: b.Kind, Journey: b.Journey})
		}
		out, err := plan(ctx, pairs)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("plan: 17 pairings\n")) // 6, and a reference for each of their 11 distinct sides
		for _, p := range pairs {
			Expect(out).To(ContainSubstring(p.String() + "\n"))
		}
	})

	DescribeTable("refuses a pairing it cannot run, naming it",
		func(ctx SpecContext, p matrix.Pair, want string) {
			_, err := plan(ctx, []matrix.Pair{{Host: "v1.4.190", Client: "worktree", Kind: "desktop", Journey: "terminal"}, p})
			var ue *usage.Error
			Expect(errors.As(err, &ue)).To(BeTrue(), "%v", err)
			Expect(err).To(MatchError(ContainSubstring("pairing " + p.String() + ": " + want)))
		},
		Entry("an unknown journey", matrix.Pair{Host: "v1.4.190", Client: "v1.4.120", Kind: "desktop", Journey: "terminl"},
			`no journey "terminl" in the subject's skewtest.yaml`),
		Entry("a kind its journey does not drive", matrix.Pair{Host: "v1.4.190", Client: "v1.4.120", Kind: "mobile", Journey: "terminal"},
			"journey terminal drives desktop, not mobile"),
		Entry("a kind no build has", matrix.Pair{Host: "v1.4.190", Client: "v1.4.120", Kind: "watch", Journey: "terminal"},
			"journey terminal drives desktop, not watch"),
	)

	It("refuses pairings given with host and client", func(ctx SpecContext) {
		_, err := matrix.Run(ctx, matrix.Config{Repo: repo, CacheDir: GinkgoT().TempDir(), PlanOnly: true, Host: "worktree", Client: "worktree",
			Pairings: []matrix.Pair{{Host: "v1.4.190", Client: "worktree", Kind: "desktop", Journey: "terminal"}}})
		Expect(err).To(MatchError(ContainSubstring("pairings and host/client both name the builds of the run")))
	})
})
