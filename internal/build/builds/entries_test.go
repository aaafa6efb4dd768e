package builds_test

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("the cache", func() {
	var (
		s     *subject
		cache string
		b     *builds.Builder
	)
	BeforeEach(func() {
		s = mustSubject()
		cache = filepath.Join(GinkgoT().TempDir(), "cache")
		b = &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain"}
	})

	statuses := func(es []builds.Entry) map[string]string {
		out := map[string]string{}
		for _, e := range es {
			out[e.Label] = e.Status
		}
		return out
	}

	It("lists every entry with its label, revision, status, size and age", func(ctx SpecContext) {
		Expect(builds.List(cache)).To(BeEmpty(), "a missing cache is empty")
		good := s.mustCommit("good")
		s.mustWrite("skewtest.yaml", subjectConfig("exit 1"), 0o644)
		bad := s.mustCommit("bad")
		b.BuildAll(ctx, s.dir, []builds.Source{builds.AtCommit("v1", good), builds.AtCommit("v2", bad)})

		es, err := builds.List(cache)
		Expect(err).NotTo(HaveOccurred())
		Expect(statuses(es)).To(Equal(map[string]string{"v1": "ok", "v2": "failed"}))
		for _, e := range es {
			Expect(e.Key).To(HaveLen(64))
			Expect(e.Size).To(BeNumerically(">", 0))
			Expect(e.Toolchain).To(Equal("test-toolchain"))
			Expect(e.Built).NotTo(BeZero())
			Expect(e.Used).NotTo(BeTemporally("<", e.Built))
		}
		Expect(es[0].Revision).To(BeElementOf(good.String(), bad.String()))
	})

	It("marks a build used when a later build finds it", func(ctx SpecContext) {
		h := s.mustCommit("v1")
		a, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
		Expect(err).NotTo(HaveOccurred())
		long := time.Now().Add(-48 * time.Hour)
		Expect(os.Chtimes(filepath.Join(cache, "builds", a.Key, "build.json"), long, long)).To(Succeed())
		es, _ := builds.List(cache)
		Expect(es[0].Used).To(BeTemporally("~", long, time.Second))

		_, err = b.Build(ctx, s.dir, builds.AtCommit("v1", h))
		Expect(err).NotTo(HaveOccurred())
		es, _ = builds.List(cache)
		Expect(es[0].Used).To(BeTemporally("~", time.Now(), time.Minute))
	})

	Describe("Prune", func() {
		var old, recent *builds.Artifact
		BeforeEach(func(ctx SpecContext) {
			var err error
			s.mustWrite("VERSION", "old\n", 0o644)
			old, err = b.Build(ctx, s.dir, builds.AtCommit("old", s.mustCommit("old")))
			Expect(err).NotTo(HaveOccurred())
			s.mustWrite("VERSION", "recent\n", 0o644)
			recent, err = b.Build(ctx, s.dir, builds.AtCommit("recent", s.mustCommit("recent")))
			Expect(err).NotTo(HaveOccurred())
			long := time.Now().Add(-10 * 24 * time.Hour)
			Expect(os.Chtimes(filepath.Join(cache, "builds", old.Key, "build.json"), long, long)).To(Succeed())
			s.mustWrite("skewtest.yaml", subjectConfig("exit 1"), 0o644)
			_, err = b.Build(ctx, s.dir, builds.AtCommit("failed", s.mustCommit("failed")))
			Expect(err).To(HaveOccurred())
			Expect(os.MkdirAll(filepath.Join(cache, "gocache", "00"), 0o755)).To(Succeed())
			// A staging directory left by a killed process.
			Expect(os.Mkdir(filepath.Join(cache, "builds", ".staging-"+old.Key+"-123"), 0o755)).To(Succeed())
		})

		It("removes failed builds and left-overs by default", func(ctx SpecContext) {
			res, err := builds.Prune(ctx, cache, builds.PruneOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Removed).To(HaveLen(2))
			Expect(statuses(res.Removed)).To(Equal(map[string]string{"failed": "failed", "": "stale"}))
			es, _ := builds.List(cache)
			Expect(statuses(es)).To(Equal(map[string]string{"old": "ok", "recent": "ok"}))
		})

		It("removes builds unused for longer than a duration", func(ctx SpecContext) {
			res, err := builds.Prune(ctx, cache, builds.PruneOptions{OlderThan: 7 * 24 * time.Hour})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Freed).To(BeNumerically(">", 0))
			es, _ := builds.List(cache)
			Expect(statuses(es)).To(Equal(map[string]string{"recent": "ok"}))
			Expect(recent.Dir).To(BeADirectory())
			Expect(old.Dir).NotTo(BeADirectory())
		})

		It("never removes a build whose lock another process holds", func(ctx SpecContext) {
			l := flock.New(filepath.Join(cache, "builds", ".lock-"+old.Key))
			ok, err := l.TryLock()
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			defer l.Close()

			es, _ := builds.List(cache)
			Expect(statuses(es)).To(HaveKeyWithValue("", "building"), "a staging directory whose lock is held")

			res, err := builds.Prune(ctx, cache, builds.PruneOptions{All: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(statuses(res.Busy)).To(Equal(map[string]string{"old": "ok", "": "building"}))
			Expect(old.Dir).To(BeADirectory())
			Expect(recent.Dir).NotTo(BeADirectory())
			Expect(filepath.Join(cache, "gocache")).To(BeADirectory(), "the shared GOCACHE stays while a build may use it")

			Expect(l.Unlock()).To(Succeed())
			res, err = builds.Prune(ctx, cache, builds.PruneOptions{All: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Busy).To(BeEmpty())
			Expect(builds.List(cache)).To(BeEmpty())
			Expect(filepath.Join(cache, "gocache")).NotTo(BeADirectory())
		})
	})
})

var _ = Describe("progress", func() {
	It("reports each build's states in order", func(ctx SpecContext) {
		s := mustSubject("true")
		h := s.mustCommit("v1")
		var (
			mu     sync.Mutex
			states []string
		)
		b := &builds.Builder{CacheDir: GinkgoT().TempDir(), Toolchain: "t", Progress: func(e builds.Event) {
			mu.Lock()
			defer mu.Unlock()
			states = append(states, e.State.String())
			if e.State == builds.Running {
				Expect(e.Steps).To(Equal(3))
				Expect(e.String()).To(HavePrefix("build v1: step "))
			}
		}}
		_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
		Expect(err).NotTo(HaveOccurred())
		_, err = b.Build(ctx, s.dir, builds.AtCommit("v1", h))
		Expect(err).NotTo(HaveOccurred())
		Expect(states).To(Equal([]string{"materializing", "running", "running", "running", "built", "cached"}))
	})
})
