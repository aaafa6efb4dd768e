package builds_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/skewtest/skewtest/builds"
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
