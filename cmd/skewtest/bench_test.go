package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/skewtest/skewtest/example"
)

// BenchmarkRunWarm measures a whole `skewtest run` of the reference subject (working tree ×
// newest stable tag both ways plus references, every built-in journey: 12 pairings) with a
// warm build cache: what a pull request pays when only the pairings run. The first, cold
// run is outside the timer.
func BenchmarkRunWarm(b *testing.B) {
	src, err := example.FindSource("")
	if err != nil {
		b.Fatal(err)
	}
	repo := filepath.Join(b.TempDir(), "remoteterm")
	if _, err := example.Write(src, repo); err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	run := func() {
		args := []string{"run", "--repo", repo, "--cache-dir", cache, "--report-dir", b.TempDir(), "--seed", "1"}
		if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code != 0 {
			b.Fatalf("skewtest run exited %d", code)
		}
	}
	run()
	for b.Loop() {
		run()
	}
}
