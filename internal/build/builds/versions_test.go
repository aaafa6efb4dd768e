package builds_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("the versions table", func() {
	var (
		s     *subject
		cache string
		b     *builds.Builder
	)
	BeforeEach(func() {
		s = mustSubject()
		cache = filepath.Join(GinkgoT().TempDir(), "cache")
		b = &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain", Log: GinkgoWriter}
	})

	// withVersions writes the working tree's skewtest.yaml with a versions table.
	withVersions := func(table string) {
		GinkgoHelper()
		s.mustWrite("skewtest.yaml", subjectConfig(`echo run >> `+s.counter, `cp driver.sh "$SKEWTEST_OUT/driver"`)+"versions:\n"+table, 0o644)
	}

	Describe("overlays", func() {
		var old builds.Source
		BeforeEach(func() {
			s.mustWrite("drivers/legacy.txt", "removed since\n", 0o644)
			s.mustWrite("lib/lib.txt", "old lib\n", 0o644)
			h := s.mustCommit("v1.0.0")
			Expect(s.tag("v1.0.0", h, true)).To(Succeed())
			old = builds.AtCommit("v1.0.0", h)
			// The working tree: new drivers, a changed lib.
			Expect(os.Remove(filepath.Join(s.dir, "drivers/legacy.txt"))).To(Succeed())
			s.mustWrite("drivers/new/driver.go", "package driver // new\n", 0o644)
			s.mustWrite("drivers/run.sh", "#!/bin/sh\n", 0o755)
			s.mustWrite("lib/lib.txt", "new lib\n", 0o644)
			withVersions("  - range: \"<v1.1.0\"\n    overlay: [drivers]\n")
		})

		It("replace their path in the old checkout with the working tree's", func(ctx SpecContext) {
			a, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Version).NotTo(BeNil())
			Expect(a.Version.Range).To(Equal("<v1.1.0"))
			Expect(readFile(filepath.Join(a.SrcDir, "drivers/new/driver.go"))).To(ContainSubstring("new"))
			Expect(filepath.Join(a.SrcDir, "drivers/legacy.txt")).NotTo(BeAnExistingFile(), "an overlay replaces the directory whole")
			Expect(readFile(filepath.Join(a.SrcDir, "lib/lib.txt"))).To(Equal("old lib\n"), "only overlays come from the working tree")
			info, err := os.Stat(filepath.Join(a.SrcDir, "drivers/run.sh"))
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm() & 0o111).NotTo(BeZero())
			Expect(readFile(a.LogPath)).To(ContainSubstring("overlay from the working tree: drivers"))
		})

		It("are part of the key: only their content changes it", func(ctx SpecContext) {
			first, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())

			s.mustWrite("lib/lib.txt", "newer lib\n", 0o644)
			again, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Cached).To(BeTrue(), "a change outside the overlays")
			Expect(again.Key).To(Equal(first.Key))

			s.mustWrite("drivers/new/driver.go", "package driver // newer\n", 0o644)
			changed, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(changed.Cached).To(BeFalse())
			Expect(changed.Key).NotTo(Equal(first.Key))
			Expect(readFile(filepath.Join(changed.SrcDir, "drivers/new/driver.go"))).To(ContainSubstring("newer"))
			Expect(s.runs()).To(Equal(2))
		})

		It("leave the fixtures directory out, so that recording fixtures builds no old tag again", func(ctx SpecContext) {
			// The layout skewtest init writes: one overlaid folder holding the drivers and,
			// by default, the fixtures (skewtest/fixtures).
			s.mustWrite("skewtest/driver/main.go", "package main // driver\n", 0o644)
			s.mustWrite("skewtest/fixtures/v1.0.0/app.json", "{}\n", 0o644)
			withVersions("  - range: \"<v1.1.0\"\n    overlay: [skewtest]\n")
			first, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(readFile(filepath.Join(first.SrcDir, "skewtest/driver/main.go"))).To(ContainSubstring("driver"))
			Expect(filepath.Join(first.SrcDir, "skewtest/fixtures")).NotTo(BeAnExistingFile(), "fixtures are not laid over an old checkout")

			s.mustWrite("skewtest/fixtures/v1.1.0/app.json", "{\"recorded\": true}\n", 0o644)
			s.mustWrite("skewtest/fixtures/v1.0.0/app.json", "{\"again\": true}\n", 0o644)
			again, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Cached).To(BeTrue(), "new and changed fixtures")
			Expect(again.Key).To(Equal(first.Key))

			// The negative control: the rest of the overlaid folder is still its key.
			s.mustWrite("skewtest/driver/main.go", "package main // changed\n", 0o644)
			changed, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(changed.Cached).To(BeFalse())
			Expect(changed.Key).NotTo(Equal(first.Key))
		})

		It("leave out a fixtures directory the skewtest.yaml names elsewhere", func(ctx SpecContext) {
			s.mustWrite("drivers/recorded/v1.0.0/app.json", "{}\n", 0o644)
			s.mustWrite("skewtest.yaml", subjectConfig(`echo run >> `+s.counter, `cp driver.sh "$SKEWTEST_OUT/driver"`)+
				"fixtures: drivers/recorded\nversions:\n  - range: \"<v1.1.0\"\n    overlay: [drivers]\n", 0o644)
			first, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(filepath.Join(first.SrcDir, "drivers/recorded")).NotTo(BeAnExistingFile())
			s.mustWrite("drivers/recorded/v1.0.0/app.json", "{\"again\": true}\n", 0o644)
			again, err := b.Build(ctx, s.dir, old)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Cached).To(BeTrue())
		})

		It("do not apply outside the row's range", func(ctx SpecContext) {
			h := s.mustCommit("v1.1.0")
			Expect(s.tag("v1.1.0", h, false)).To(Succeed())
			a, err := b.Build(ctx, s.dir, builds.AtCommit("v1.1.0", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Version).To(BeNil())
			a, err = b.Build(ctx, s.dir, builds.AtCommit("main", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Version).To(BeNil(), "a branch at v1.1.0 matches as v1.1.0, the nearest stable tag below it, does")
		})

		It("must exist in the working tree", func(ctx SpecContext) {
			withVersions("  - range: \"<v1.1.0\"\n    overlay: [drivers, cmd/driver]\n")
			_, err := b.Build(ctx, s.dir, old)
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(ce.File).To(Equal(filepath.Join(s.dir, "skewtest.yaml")))
			Expect(ce.Line).To(Equal(12))
			Expect(err).To(MatchError(ContainSubstring(`overlay "cmd/driver" is not in the working tree`)))
		})
	})

	It("replaces the recipe", func(ctx SpecContext) {
		h := s.mustCommit("v1.0.0")
		withVersions("  - range: \"v1.0.0\"\n    recipe: ['echo recipe from the row > \"$SKEWTEST_OUT/driver\"']\n")
		a, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Config.Build.Steps).To(Equal([]string{`echo recipe from the row > "$SKEWTEST_OUT/driver"`}))
		Expect(readFile(filepath.Join(a.Dir, "driver"))).To(Equal("recipe from the row\n"))
		Expect(s.runs()).To(BeZero(), "the tag's own steps did not run")
	})

	Describe("a tag that predates skewtest.yaml", func() {
		var h builds.Source
		BeforeEach(func() {
			Expect(os.Remove(filepath.Join(s.dir, "skewtest.yaml"))).To(Succeed())
			c := s.mustCommit("v0.9.0")
			h = builds.AtCommit("v0.9.0", c)
		})

		It("is built with the working tree's skewtest.yaml when a row covers it", func(ctx SpecContext) {
			withVersions("  - range: \"<v1\"\n    toolchain: go1.20\n")
			a, err := b.Build(ctx, s.dir, h)
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Config.Product).To(Equal("fixture"))
			Expect(a.Config.Versions).To(BeNil())
			Expect(filepath.Join(a.Dir, "driver")).To(BeAnExistingFile())
			log := readFile(a.LogPath)
			Expect(log).To(ContainSubstring("no skewtest.yaml in v0.9.0: built with the working tree's"))
		})

		It("is built as the nearest stable tag below it, for a commit between old tags (a bisect candidate)", func(ctx SpecContext) {
			Expect(s.tag("v0.9.0", h.Commit, false)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(s.dir, "fix.txt"), []byte("a fix\n"), 0o644)).To(Succeed())
			c := s.mustCommit("a fix after v0.9.0")
			between := builds.AtCommit(c.String()[:12], c)
			withVersions("  - range: \"<v1\"\n    toolchain: go1.20\n")
			a, err := b.Build(ctx, s.dir, between)
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Config.Product).To(Equal("fixture"), "the working tree's skewtest.yaml, as for v0.9.0")
			Expect(readFile(a.LogPath)).To(ContainSubstring(`versions row "<v1" (`))
			Expect(readFile(a.LogPath)).To(ContainSubstring("through v0.9.0, the nearest stable tag below " + between.Label))

			// Negative control: a row that covers no tag below it leaves the commit without one.
			withVersions("  - range: \">=v1\"\n    toolchain: go1.20\n")
			_, err = b.Build(ctx, s.dir, between)
			Expect(err).To(MatchError(ContainSubstring("add a versions row whose range covers it")))
		})

		It("says how to build it when no row covers it", func(ctx SpecContext) {
			withVersions("  - range: \">=v1\"\n    toolchain: go1.20\n")
			_, err := b.Build(ctx, s.dir, h)
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(ce.File).To(Equal("v0.9.0:skewtest.yaml"))
			Expect(err).To(MatchError(ContainSubstring("add a versions row whose range covers it")))
		})
	})

	It("names the toolchain to the runner and notes it in the local runner's log", func(ctx SpecContext) {
		h := s.mustCommit("v1.0.0")
		withVersions("  - range: \"v1.0.0\"\n    toolchain: go1.20\n")
		r := &recordingRunner{}
		b = &builds.Builder{CacheDir: cache, Runner: r}
		a, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.names).To(Equal([]string{"go1.20"}))
		Expect(readFile(a.LogPath)).To(ContainSubstring(`toolchain "go1.20" applies to --runner container`))
		Expect(readFile(filepath.Join(cache, "builds", a.Key, "build.json"))).To(ContainSubstring(`"toolchain": "recorded go1.20"`))

		b = &builds.Builder{CacheDir: cache, Runner: r}
		again, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.1", h))
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Key).NotTo(Equal(a.Key), "the toolchain is part of the key")
	})
})

// recordingRunner is the local runner with a toolchain string that names what it was
// asked for.
type recordingRunner struct {
	builds.Local
	mu    sync.Mutex
	names []string
}

func (r *recordingRunner) Toolchain(_ context.Context, name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, name)
	return strings.TrimSpace("recorded " + name), nil
}
