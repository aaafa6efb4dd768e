package builds_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("Builder", func() {
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

	Describe("a commit's tree", func() {
		It("comes from the object database, not the working tree", func(ctx SpecContext) {
			s.mustWrite("a.txt", "committed\n", 0o644)
			s.mustWrite("tools/run.sh", "#!/bin/sh\n", 0o755)
			Expect(os.Symlink("a.txt", filepath.Join(s.dir, "link"))).To(Succeed())
			h := s.mustCommit("v1")
			Expect(s.tag("v1.0.0", h, true)).To(Succeed())
			s.mustWrite("a.txt", "edited\n", 0o644)
			s.mustWrite("untracked.txt", "new\n", 0o644)

			a, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Label).To(Equal("v1.0.0"))
			Expect(a.Revision).To(Equal(h.String()))
			Expect(readFile(filepath.Join(a.SrcDir, "a.txt"))).To(Equal("committed\n"))
			Expect(filepath.Join(a.SrcDir, "untracked.txt")).NotTo(BeAnExistingFile())
			Expect(filepath.Join(a.SrcDir, ".git")).NotTo(BeAnExistingFile())

			info, err := os.Stat(filepath.Join(a.SrcDir, "tools/run.sh"))
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm() & 0o111).NotTo(BeZero())
			info, err = os.Stat(filepath.Join(a.SrcDir, "a.txt"))
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm() & 0o111).To(BeZero())
			link, err := os.Readlink(filepath.Join(a.SrcDir, "link"))
			Expect(err).NotTo(HaveOccurred())
			Expect(link).To(Equal("a.txt"))
		})

		It("reports a wrong skewtest.yaml with the commit, file and line", func(ctx SpecContext) {
			s.mustWrite("skewtest.yaml", strings.Replace(subjectConfig("true"), "product:", "prodcut:", 1), 0o644)
			h := s.mustCommit("typo")
			_, err := b.Build(ctx, s.dir, builds.AtCommit("v0.1.0", h))
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(ce.File).To(Equal("v0.1.0:skewtest.yaml"))
			Expect(ce.Line).To(Equal(1))
			Expect(err.Error()).To(ContainSubstring(`v0.1.0:skewtest.yaml:1: unknown key "prodcut"`))
		})
	})

	Describe("the working tree", func() {
		It("includes uncommitted and untracked files but not ignored ones", func(ctx SpecContext) {
			s.mustWrite("a.txt", "committed\n", 0o644)
			s.mustWrite("keep.log", "tracked, though ignored later\n", 0o644)
			s.mustCommit("first")
			s.mustWrite(".gitignore", "*.log\nbuild/\n", 0o644)
			s.mustWrite("a.txt", "edited\n", 0o644)
			s.mustWrite("new/untracked.txt", "new\n", 0o644)
			s.mustWrite("debug.log", "ignored\n", 0o644)
			s.mustWrite("build/out.bin", "ignored\n", 0o644)
			s.mustWrite("sub/.gitignore", "secret\n", 0o644)
			s.mustWrite("sub/secret", "ignored\n", 0o644)
			s.mustWrite("sub/public", "kept\n", 0o644)

			a, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Label).To(Equal("worktree"))
			Expect(readFile(filepath.Join(a.SrcDir, "a.txt"))).To(Equal("edited\n"))
			Expect(readFile(filepath.Join(a.SrcDir, "new/untracked.txt"))).To(Equal("new\n"))
			Expect(readFile(filepath.Join(a.SrcDir, "keep.log"))).To(HavePrefix("tracked"))
			Expect(readFile(filepath.Join(a.SrcDir, "sub/public"))).To(Equal("kept\n"))
			for _, ignored := range []string{"debug.log", "build", "sub/secret", ".git"} {
				Expect(filepath.Join(a.SrcDir, ignored)).NotTo(BeAnExistingFile(), ignored)
			}
		})

		It("is marked dirty when its files are not HEAD's: changed, added, deleted or of another mode, not for what a build leaves out", func(ctx SpecContext) {
			b.CacheDir = filepath.Join(s.dir, ".cache") // inside the tree, not ignored: left out, so not a change
			s.mustWrite(".gitignore", "*.log\n", 0o644)
			s.mustWrite("a.txt", "committed\n", 0o644)
			s.mustWrite("run.sh", "#!/bin/sh\n", 0o755)
			s.mustCommit("first")
			s.mustWrite("debug.log", "ignored\n", 0o644)
			dirty := func() bool {
				GinkgoHelper()
				a, err := b.Build(ctx, s.dir, builds.Worktree())
				Expect(err).NotTo(HaveOccurred())
				return a.Dirty
			}
			Expect(dirty()).To(BeFalse(), "clean: an ignored file and the cache do not count")
			s.mustWrite("skewtest.lock", "# tags, not the product\n", 0o644)
			Expect(dirty()).To(BeFalse(), "the lock is left out of the build")

			for name, change := range map[string]func(){
				"changed":      func() { s.mustWrite("a.txt", "edited\n", 0o644) },
				"added":        func() { s.mustWrite("new.txt", "new\n", 0o644) },
				"deleted":      func() { Expect(os.Remove(filepath.Join(s.dir, "a.txt"))).To(Succeed()) },
				"another mode": func() { Expect(os.Chmod(filepath.Join(s.dir, "run.sh"), 0o644)).To(Succeed()) },
			} {
				change()
				Expect(dirty()).To(BeTrue(), name)
				wt, err := s.repo.Worktree()
				Expect(err).NotTo(HaveOccurred())
				Expect(wt.Reset(&git.ResetOptions{Mode: git.HardReset})).To(Succeed())
				_ = os.Remove(filepath.Join(s.dir, "new.txt"))
				Expect(dirty()).To(BeFalse(), "after undoing: "+name)
			}
		})

		It("leaves a report directory inside the tree out, and no other directory", func(ctx SpecContext) {
			first, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			// What a run leaves in its --report-dir: the lock that marks it, and its reports.
			s.mustWrite("reports/run/"+builds.ReportDirMarker, "pid 1: skewtest run\n", 0o644)
			s.mustWrite("reports/run/results.json", "{}\n", 0o644)
			reported, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(reported.Cached).To(BeTrue(), "a report directory is not the product")
			Expect(filepath.Join(reported.SrcDir, "reports")).NotTo(BeAnExistingFile())
			s.mustWrite("reports/run/results.json", "{\"again\": true}\n", 0o644)
			again, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Key).To(Equal(first.Key), "a run into it again")

			// The negative control: the same files in a directory without the marker are the
			// product's.
			s.mustWrite("notes/results.json", "{}\n", 0o644)
			plain, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(plain.Cached).To(BeFalse())
			Expect(plain.Key).NotTo(Equal(first.Key))
			Expect(filepath.Join(plain.SrcDir, "notes", "results.json")).To(BeAnExistingFile())
		})

		It("changes key when a file changes and leaves a cache inside the tree out", func(ctx SpecContext) {
			b.CacheDir = filepath.Join(s.dir, ".cache") // not ignored: must still be left out
			first, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(filepath.Join(first.SrcDir, ".cache")).NotTo(BeAnExistingFile())

			again, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Cached).To(BeTrue())
			Expect(again.Key).To(Equal(first.Key))

			s.mustWrite("skewtest.lock", "# tags, not product\n", 0o644)
			locked, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(locked.Cached).To(BeTrue(), "skewtest.lock is not part of the working tree's build")

			s.mustWrite("skewtest/fixtures/v1.0.0/desktop-terminal.json.gz", "recorded traffic", 0o644)
			recorded, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(recorded.Cached).To(BeTrue(), "nor are the fixtures skewtest record writes")

			s.mustWrite("driver.sh", "#!/bin/sh\necho changed\n", 0o755)
			changed, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(changed.Cached).To(BeFalse())
			Expect(changed.Key).NotTo(Equal(first.Key))
			Expect(s.runs()).To(Equal(2))
		})
	})

	Describe("the cache", func() {
		It("never rebuilds a successful build", func(ctx SpecContext) {
			h := s.mustCommit("v1")
			cold, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(cold.Cached).To(BeFalse())
			Expect(s.runs()).To(Equal(1))
			Expect(cold.Dir).To(Equal(filepath.Join(cache, "builds", cold.Key, "out")))
			Expect(filepath.Join(cold.Dir, "driver")).To(BeAnExistingFile())
			Expect(readFile(cold.LogPath)).To(ContainSubstring(`$ cp driver.sh "$SKEWTEST_OUT/driver"`))
			Expect(readFile(filepath.Join(cache, "builds", cold.Key, "build.json"))).To(ContainSubstring(`"status": "ok"`))

			warm, err := (&builds.Builder{CacheDir: cache, Toolchain: "test-toolchain"}).
				Build(ctx, s.dir, builds.AtCommit("release", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(warm.Cached).To(BeTrue())
			Expect(warm.Label).To(Equal("release"))
			Expect(warm.Key).To(Equal(cold.Key))
			Expect(warm.Dir).To(Equal(cold.Dir))
			Expect(warm.Config).To(Equal(cold.Config))
			Expect(s.runs()).To(Equal(1), "the recipe ran again")
			entries, err := filepath.Glob(filepath.Join(cache, "builds", ".staging-*"))
			Expect(err).NotTo(HaveOccurred())
			Expect(entries).To(BeEmpty())
		})

		It("keys by toolchain", func(ctx SpecContext) {
			h := s.mustCommit("v1")
			a, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
			Expect(err).NotTo(HaveOccurred())
			other := &builds.Builder{CacheDir: cache, Toolchain: "other-toolchain"}
			c, err := other.Build(ctx, s.dir, builds.AtCommit("v1", h))
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Key).NotTo(Equal(a.Key))
			Expect(s.runs()).To(Equal(2))
		})

		It("builds a key once when two builders race for it", func(ctx SpecContext) {
			s = mustSubject("sleep 0.3")
			h := s.mustCommit("v1")
			var wg sync.WaitGroup
			arts := make([]*builds.Artifact, 2)
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					defer GinkgoRecover()
					other := &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain"}
					arts[i], errs[i] = other.Build(ctx, s.dir, builds.AtCommit("v1", h))
				})
			}
			wg.Wait()
			Expect(errs).To(HaveEach(BeNil()))
			Expect(s.runs()).To(Equal(1))
			Expect([]bool{arts[0].Cached, arts[1].Cached}).To(ConsistOf(true, false))
			Expect(arts[0].Dir).To(Equal(arts[1].Dir))
		})
	})

	Describe("a failing recipe", func() {
		It("gives a BuildError with the log tail, keeps the log and retries next time", func(ctx SpecContext) {
			s = mustSubject(`for i in $(seq 1 40); do echo "noise $i"; done; echo "undefined: Frobnicate" >&2; exit 3`)
			h := s.mustCommit("broken")
			_, err := b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
			var be *builds.BuildError
			Expect(errors.As(err, &be)).To(BeTrue(), "%v", err)
			Expect(be.Label).To(Equal("v1.0.0"))
			Expect(be.Tail).To(ContainSubstring("undefined: Frobnicate"))
			Expect(be.Tail).NotTo(ContainSubstring("noise 5\n"))
			Expect(strings.Count(be.Tail, "\n")).To(Equal(builds.TailLines - 1))
			Expect(err.Error()).To(ContainSubstring("step 3/3"))
			Expect(err.Error()).To(ContainSubstring("exit status 3"))
			Expect(err.Error()).NotTo(ContainSubstring("timed out"))
			Expect(readFile(be.LogPath)).To(ContainSubstring("noise 1\n"))
			Expect(readFile(filepath.Join(filepath.Dir(be.LogPath), "build.json"))).To(ContainSubstring(`"status": "failed"`))

			_, err = b.Build(ctx, s.dir, builds.AtCommit("v1.0.0", h))
			Expect(errors.As(err, &be)).To(BeTrue())
			Expect(s.runs()).To(Equal(2), "a recorded failure is retried")
		})

		It("times out as a failed build", func(ctx SpecContext) {
			s = mustSubject("sleep 30")
			h := s.mustCommit("slow")
			b.Timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
			var be *builds.BuildError
			Expect(errors.As(err, &be)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring("timed out after 300ms"))
			Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		}, SpecTimeout(20*time.Second))

		It("stops on cancel and records nothing", func(ctx SpecContext) {
			s = mustSubject("sleep 30 & wait")
			h := s.mustCommit("slow")
			cctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			_, err := b.Build(cctx, s.dir, builds.AtCommit("v1", h))
			Expect(err).To(MatchError(context.Canceled))
			Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
			left, _ := os.ReadDir(filepath.Join(cache, "builds"))
			for _, e := range left {
				Expect(e.Name()).To(HavePrefix(".lock-"))
			}
		}, SpecTimeout(20*time.Second))
	})

	It("resolves driver commands in the output directory", func(ctx SpecContext) {
		a, err := b.Build(ctx, s.dir, builds.Worktree())
		Expect(err).NotTo(HaveOccurred())
		Expect(a.HostArgv()).To(Equal([]string{filepath.Join(a.Dir, "driver"), "host"}))
		argv, err := a.ClientArgv("desktop")
		Expect(err).NotTo(HaveOccurred())
		Expect(argv).To(Equal([]string{filepath.Join(a.Dir, "driver"), "client", "desktop"}))
		_, err = a.ClientArgv("mobile")
		Expect(err).To(MatchError(ContainSubstring(`no "mobile" client driver (it has: desktop)`)))
		Expect(a.ContractPath()).To(Equal(filepath.Join(a.SrcDir, "contract.json")))
	})

	It("builds several sources and reports each", func(ctx SpecContext) {
		good := s.mustCommit("good")
		s.mustWrite("skewtest.yaml", subjectConfig("exit 1"), 0o644)
		bad := s.mustCommit("bad")
		res := b.BuildAll(ctx, s.dir, []builds.Source{
			builds.AtCommit("good", good), builds.AtCommit("bad", bad), builds.Worktree(),
		})
		Expect(res).To(HaveLen(3))
		Expect(res[0].Err).NotTo(HaveOccurred())
		Expect(res[0].Artifact.Label).To(Equal("good"))
		var be *builds.BuildError
		Expect(errors.As(res[1].Err, &be)).To(BeTrue())
		Expect(res[1].Source.Label).To(Equal("bad"))
		Expect(errors.As(res[2].Err, &be)).To(BeTrue())
	})

	It("refuses a directory outside any repository", func(ctx SpecContext) {
		_, err := b.Build(ctx, GinkgoT().TempDir(), builds.Worktree())
		Expect(err).To(MatchError(pins.ErrNotRepository))
	})
})
