package builds_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// benchSubject is a small committed subject: a few dozen files and a one-line shell
// recipe, so the benchmarks measure skewtest's own work.
func benchSubject(b *testing.B) (*subject, builds.Source) {
	b.Helper()
	tmp := b.TempDir()
	s, err := newSubject(filepath.Join(tmp, "repo"), filepath.Join(tmp, "counter"))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		if err := s.write(fmt.Sprintf("pkg%d/file%d.go", i%5, i), fmt.Sprintf("package pkg\n\nconst N%d = %d\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	h, err := s.commit("bench")
	if err != nil {
		b.Fatal(err)
	}
	return s, builds.AtCommit("v1.0.0", h)
}

// BenchmarkBuildCold materializes and builds a commit into an empty cache every time.
func BenchmarkBuildCold(b *testing.B) {
	s, src := benchSubject(b)
	caches := b.TempDir()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		bl := &builds.Builder{CacheDir: filepath.Join(caches, fmt.Sprint(i)), Toolchain: "bench"}
		if _, err := bl.Build(ctx, s.dir, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildWarm finds the same commit in the cache every time: no materialization,
// no recipe.
func BenchmarkBuildWarm(b *testing.B) {
	s, src := benchSubject(b)
	bl := &builds.Builder{CacheDir: b.TempDir(), Toolchain: "bench"}
	ctx := context.Background()
	if _, err := bl.Build(ctx, s.dir, src); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		a, err := bl.Build(ctx, s.dir, src)
		if err != nil {
			b.Fatal(err)
		}
		if !a.Cached {
			b.Fatal("warm build was not cached")
		}
	}
	if n := s.runs(); n != 1 {
		b.Fatalf("recipe ran %d times, want 1", n)
	}
}

// BenchmarkBuildWarmWorktree finds the working tree in the cache: it still hashes every
// file to compute the key.
func BenchmarkBuildWarmWorktree(b *testing.B) {
	s, _ := benchSubject(b)
	bl := &builds.Builder{CacheDir: b.TempDir(), Toolchain: "bench"}
	ctx := context.Background()
	if _, err := bl.Build(ctx, s.dir, builds.Worktree()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := bl.Build(ctx, s.dir, builds.Worktree()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildAll compares, in one run, a cold and a warm `skewtest build` of five
// builds (the working tree and four tags, one of them with an overlay from the working
// tree): cold materializes and runs every recipe into an empty cache; warm finds all five
// in the cache and runs nothing.
func BenchmarkBuildAll(b *testing.B) {
	s, _ := benchSubject(b)
	var srcs []builds.Source
	for i := range 4 {
		if err := s.write("VERSION", fmt.Sprintf("v1.%d.0\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		h, err := s.commit(fmt.Sprintf("v1.%d.0", i))
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, builds.AtCommit(fmt.Sprintf("v1.%d.0", i), h))
	}
	if err := s.write("skewtest.yaml", subjectConfig(fmt.Sprintf("echo run >> %q", s.counter), `cp driver.sh "$SKEWTEST_OUT/driver"`)+
		"versions:\n  - range: \"<v1.1.0\"\n    overlay: [pkg0]\n", 0o644); err != nil {
		b.Fatal(err)
	}
	srcs = append(srcs, builds.Worktree())
	ctx := context.Background()
	buildAll := func(bl *builds.Builder, wantCached bool) {
		for _, r := range bl.BuildAll(ctx, s.dir, srcs) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
			if r.Artifact.Cached != wantCached {
				b.Fatalf("%s: cached %v, want %v", r.Source.Label, r.Artifact.Cached, wantCached)
			}
		}
	}
	b.Run("cold", func(b *testing.B) {
		caches := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			buildAll(&builds.Builder{CacheDir: filepath.Join(caches, fmt.Sprint(i)), Toolchain: "bench"}, false)
		}
	})
	b.Run("warm", func(b *testing.B) {
		bl := &builds.Builder{CacheDir: b.TempDir(), Toolchain: "bench"}
		buildAll(bl, false)
		runs := s.runs()
		for b.Loop() {
			buildAll(bl, true)
		}
		if s.runs() != runs {
			b.Fatalf("warm builds ran the recipe %d times", s.runs()-runs)
		}
	})
}
