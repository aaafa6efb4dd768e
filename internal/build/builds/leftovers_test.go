package builds_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gofrs/flock"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("a build's temporary directory", func() {
	var (
		cache string
		b     *builds.Builder
	)
	BeforeEach(func() {
		cache = filepath.Join(GinkgoT().TempDir(), "cache")
		b = &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain", Log: GinkgoWriter}
	})

	// record is a step that writes $TMPDIR and $GOTMPDIR to a file outside the cache and
	// leaves a file in the temporary directory.
	record := func(file string) string {
		return fmt.Sprintf(`echo "$TMPDIR $GOTMPDIR" > %q; mkdir "$TMPDIR/go-build123"; touch "$TMPDIR/go-build123/x"`, file)
	}
	tmpOf := func(file string) string {
		GinkgoHelper()
		f := strings.Fields(readFile(file))
		Expect(f).To(HaveLen(2))
		Expect(f[0]).To(Equal(f[1]), "TMPDIR and GOTMPDIR")
		Expect(f[0]).To(HavePrefix(filepath.Join(cache, "tmp") + string(filepath.Separator)))
		return f[0]
	}

	It("is the steps' TMPDIR and GOTMPDIR, under the cache, and goes when the build succeeds", func(ctx SpecContext) {
		file := filepath.Join(GinkgoT().TempDir(), "tmpdir")
		s := mustSubject(record(file))
		_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", s.mustCommit("v1")))
		Expect(err).NotTo(HaveOccurred())
		Expect(tmpOf(file)).NotTo(BeAnExistingFile())
	})

	It("goes when the build fails", func(ctx SpecContext) {
		file := filepath.Join(GinkgoT().TempDir(), "tmpdir")
		s := mustSubject(record(file), "exit 1")
		_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", s.mustCommit("v1")))
		Expect(err).To(HaveOccurred())
		Expect(tmpOf(file)).NotTo(BeAnExistingFile())
	})

	It("goes when the build is cancelled", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		file, fifo := filepath.Join(dir, "tmpdir"), filepath.Join(dir, "started")
		Expect(syscall.Mkfifo(fifo, 0o600)).To(Succeed())
		started := readLines(fifo)
		s := mustSubject(record(file), fmt.Sprintf("echo started 1<>%q; sleep 600", fifo))
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			defer GinkgoRecover()
			select {
			case <-started:
				cancel()
			case <-cctx.Done():
			}
		}()
		_, err := b.Build(cctx, s.dir, builds.AtCommit("v1", s.mustCommit("v1")))
		Expect(err).To(MatchError(context.Canceled))
		Expect(tmpOf(file)).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("the first build of a run", func() {
	It("removes the staging and temporary directories of killed runs, and nothing another process holds", func(ctx SpecContext) {
		cache := filepath.Join(GinkgoT().TempDir(), "cache")
		dead, live := strings.Repeat("d", 64), strings.Repeat("e", 64)
		var left []string
		for _, key := range []string{dead, live} {
			for _, dir := range []string{
				filepath.Join(cache, "builds", ".staging-"+key+"-1"),
				filepath.Join(cache, "tmp", key+"-2", "go-build3"),
			} {
				Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
				left = append(left, dir)
			}
		}
		l := flock.New(filepath.Join(cache, "builds", ".lock-"+live))
		ok, err := l.TryLock()
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		defer l.Close()

		es, err := builds.List(cache)
		Expect(err).NotTo(HaveOccurred())
		statuses := map[string]int{}
		for _, e := range es {
			statuses[e.Status]++
			Expect(e.Leftover()).To(Equal(e.Status != "building"), e.Status)
		}
		Expect(statuses).To(Equal(map[string]int{"stale": 1, "stale-tmp": 1, "building": 1}),
			"a held temporary directory belongs to the build in progress, listed once")

		s := mustSubject()
		b := &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain"}
		_, err = b.Build(ctx, s.dir, builds.Worktree())
		Expect(err).NotTo(HaveOccurred())
		Expect(left[0]).NotTo(BeADirectory())
		Expect(filepath.Dir(left[1])).NotTo(BeADirectory())
		Expect(left[2]).To(BeADirectory(), "another process holds its key's lock")
		Expect(left[3]).To(BeADirectory())
	})

	It("lets cache prune free what killed runs left, saying how much", func(ctx SpecContext) {
		cache := filepath.Join(GinkgoT().TempDir(), "cache")
		key := strings.Repeat("f", 64)
		dir := filepath.Join(cache, "tmp", key+"-1", "go-build2")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "big"), make([]byte, 1<<20), 0o644)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(cache, "builds"), 0o755)).To(Succeed())

		res, err := builds.Prune(ctx, cache, builds.PruneOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Removed).To(HaveLen(1))
		Expect(res.Removed[0].Status).To(Equal("stale-tmp"))
		Expect(res.Freed).To(BeNumerically(">=", 1<<20))
		Expect(filepath.Join(cache, "tmp", key+"-1")).NotTo(BeADirectory())
	})
})
