package main

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("a reference history adopted late", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var (
		repo    string
		written *example.Written
	)

	BeforeAll(func() {
		src, err := example.FindSource("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "late")
		written, err = example.WriteWith(src, repo, example.Options{AdoptedAt: "v1.4.165"})
		Expect(err).NotTo(HaveOccurred())
	})

	It("has no skewtest file in a tag before the adoption, and one versions row for each", func(ctx SpecContext) {
		r, err := git.PlainOpen(repo)
		Expect(err).NotTo(HaveOccurred())
		tree := func(tag string) *object.Tree {
			ref, err := r.Tag(tag)
			Expect(err).NotTo(HaveOccurred())
			to, err := r.TagObject(ref.Hash())
			Expect(err).NotTo(HaveOccurred())
			c, err := to.Commit()
			Expect(err).NotTo(HaveOccurred())
			t, err := c.Tree()
			Expect(err).NotTo(HaveOccurred())
			return t
		}
		var files []string
		Expect(tree("v1.4.157").Files().ForEach(func(f *object.File) error {
			files = append(files, f.Name)
			return nil
		})).To(Succeed())
		for _, f := range files {
			Expect(f).NotTo(Or(Equal("skewtest.yaml"), Equal("skewtest-contract.json"), HavePrefix("journeys/"), HavePrefix("fuzz/"),
				HavePrefix("cmd/remoteterm-driver/"), HavePrefix("third_party/skewtest/")), "v1.4.157 predates the adoption")
		}
		gomod, err := tree("v1.4.157").File("go.mod")
		Expect(err).NotTo(HaveOccurred())
		Expect(gomod.Contents()).NotTo(ContainSubstring("github.com/skewtest/skewtest "), "nor does its go.mod know the kit")
		_, err = tree("v1.4.165").File("skewtest.yaml")
		Expect(err).NotTo(HaveOccurred(), "the adoption's own tag has it")

		code, out := cli(ctx, "doctor", "--repo", repo, "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`ok   old tags: 14 stable tags: 8 with their own skewtest.yaml, 6 through a versions: row`))
	})

	It("finds every documented bug, the tags before the adoption built and read from the working tree's rows", func(ctx SpecContext) {
		cfg := matrix.Config{Repo: repo, CacheDir: sharedCache, ReportDir: GinkgoT().TempDir(), Seed: 1, Stdout: GinkgoWriter, Stderr: GinkgoWriter}
		pre := 0
		for _, b := range written.KnownBugs {
			cfg.Pairings = append(cfg.Pairings, matrix.Pair{Host: b.Host, Client: b.Client, Kind: b.Kind, Journey: b.Journey})
		}
		run, err := matrix.Run(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		for _, b := range written.KnownBugs {
			s := b.Check(run)
			Expect(s.Found()).To(BeTrue(), "%s: %s", b.Label(), s.Missing)
		}
		for _, b := range run.Builds {
			Expect(b.Status).NotTo(Equal("error"), b.Label)
			if strings.HasPrefix(b.Contract, "skewtest.yaml:") {
				pre++
				Expect(b.Contract).To(HaveSuffix("skewtest/contracts/" + b.Label + ".json"))
			}
		}
		Expect(pre).To(BeNumerically(">=", 2), "some documented bugs are in releases before the adoption")
	})
})
