package main

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/results"
)

// BenchmarkRunWarm measures a whole `skewtest run` of the reference subject (working tree ×
// newest stable tag both ways plus references, every built-in journey: 12 pairings) with a
// warm build cache: what a pull request pays when only the pairings run. The first, cold
// run is outside the timer.
func BenchmarkRunWarm(b *testing.B) {
	repo := referenceRepo(b)
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

// BenchmarkFullMatrix measures `skewtest run --matrix full` over the reference subject's
// whole history (every stable tag and the working tree, every journey: 675 pairings) with
// warm builds and the default timeouts, at the default parallelism and at -j 1
// (sub-benchmarks j=default and j=1). The builds are made before the timer starts. The target
// is 90 seconds at the default parallelism on a quiet 2-core machine, with the verdicts of
// 414 pass, 189 fail and 72 expected refusals. Findings are expected (the history has real
// release-skew bugs): the exit code may be 1, never 2 or 3.
func BenchmarkFullMatrix(b *testing.B) {
	repo := referenceRepo(b)
	cache := b.TempDir()
	base := []string{"--repo", repo, "--cache-dir", cache, "--last", "14"}
	if code := exitCode(dispatch(context.Background(), append([]string{"build"}, base...), io.Discard, io.Discard), io.Discard); code != 0 {
		b.Fatalf("skewtest build exited %d", code)
	}
	for _, j := range []string{"default", "1"} {
		b.Run("j="+j, func(b *testing.B) {
			args := append([]string{"run", "--matrix", "full", "--seed", "1", "--report-dir", b.TempDir()}, base...)
			if j != "default" {
				args = append(args, "-j", j)
			}
			for b.Loop() {
				if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code > 1 {
					b.Fatalf("skewtest run exited %d", code)
				}
			}
		})
	}
}

// BenchmarkPlanCold measures `skewtest plan` on the reference subject with an empty build
// cache (a new --cache-dir each time): pins resolved, each build's skewtest.yaml and contract
// read from git objects, journeys checked, the plan printed, and nothing built. The issue's
// target is under 2 seconds.
func BenchmarkPlanCold(b *testing.B) {
	repo := referenceRepo(b)
	for _, bc := range []struct{ name, last, matrix string }{{"default", "1", "default"}, {"full-14-tags", "14", "full"}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				args := []string{"plan", "--repo", repo, "--cache-dir", b.TempDir(), "--last", bc.last, "--matrix", bc.matrix, "--seed", "1"}
				if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code != 0 {
					b.Fatalf("skewtest plan exited %d", code)
				}
			}
		})
	}
}

// BenchmarkFuzz measures skewtest fuzz on the reference subject with warm builds, in cases
// per minute (the cases/min metric) and in CPU milliseconds per case (cpu-ms/case: skewtest's
// and every driver's, user and system; steadier than the rate on a shared machine), per
// generator: on a passing pairing (the working tree × v1.4.190, both directions, every client
// kind the generator drives, references) and on a failing one (v1.4.190 host × v1.4.120
// desktop client, where most terminal cases fail and are run again case by case; shrinking is
// bounded to one candidate so the figure is the rate of cases, not of shrinking). Each
// iteration is a PR-mode campaign with seed 1, each generator's own pack (in lanes, cut to
// spread the batch over -j packs) and the default -j.
func BenchmarkFuzz(b *testing.B) {
	repo := referenceRepo(b)
	cache := b.TempDir()
	for _, bc := range []struct {
		name, host, client, kind, generator string
		cases                               int
	}{
		{"passing=worktree-x-v1.4.190/generator=session", "worktree", "v1.4.190", "", "session", 2048},
		{"passing=worktree-x-v1.4.190/generator=terminal", "worktree", "v1.4.190", "", "terminal", 128},
		{"passing=worktree-x-v1.4.190/generator=all", "worktree", "v1.4.190", "", "", 512},
		{"failing=v1.4.190-x-v1.4.120-desktop/generator=terminal", "v1.4.190", "v1.4.120", "desktop", "terminal", 32},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := []string{"fuzz", "--repo", repo, "--cache-dir", cache, "--host", bc.host, "--client", bc.client,
				"--seed", "1", "--shrink-tries", "1"}
			if bc.kind != "" {
				args = append(args, "--kind", bc.kind)
			}
			if bc.generator != "" {
				args = append(args, "--generator", bc.generator)
			}
			run := func(cases int) {
				a := append(args[:len(args):len(args)], "--report-dir", b.TempDir(), "--cases", strconv.Itoa(cases))
				if code := exitCode(dispatch(context.Background(), a, io.Discard, io.Discard), io.Discard); code > 1 {
					b.Fatalf("skewtest fuzz exited %d", code)
				}
			}
			run(1) // the builds, outside the timer
			b.ResetTimer()
			cases := 0
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				run(bc.cases)
				cases += bc.cases
			}
			b.ReportMetric(float64(cases)/time.Since(start).Minutes(), "cases/min")
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(cases), "cpu-ms/case")
		})
	}
}

// cpuTime is the CPU time, user and system, of this process and of every child it has
// waited for (the drivers' guardians, and under them the drivers).
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	sum := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return sum(self) + sum(children)
}

// BenchmarkExplore measures `skewtest explore` on a passing pairing of the reference
// subject (working tree × v1.4.190, both ways, future peers on) with warm builds: 256
// cases drawn from the vocabulary alone, every client kind the drivers describe actions for
// (generator=drawn, `--drawn-only`), 1,024 session-only cases (generator=session,
// `--generator session`: the product's session generator, whose driver describes no
// actions to draw, so no terminal and no megabyte payloads: what the harness itself costs
// a case), and 256 cases of the default mix (generator=mix: the product's generators and
// the drawn ones, as a nightly `explore` draws them). It reports cases per minute (cases/min), and CPU
// milliseconds per case (cpu-ms/case: skewtest's and every driver's, steadier than the rate
// on a shared machine). Its cases draw schedules, so a batch's packs (one schedule each)
// fill only across batches: a short campaign leaves part-filled packs at the end that a
// nightly campaign would not.
func BenchmarkExplore(b *testing.B) {
	repo := referenceRepo(b)
	cache := b.TempDir()
	base := []string{"explore", "--repo", repo, "--cache-dir", cache, "--host", "worktree", "--client", "v1.4.190",
		"--seed", "1"}
	// A campaign that reports a finding (exit 1: on this passing pairing, a timing-made one
	// the load made) still measures its rate: the findings are a metric of their own. The
	// harness breaking (exit 2 and over) stops the benchmark.
	explore := func(args []string, dir string) {
		if code := exitCode(dispatch(context.Background(), append(args, "--report-dir", dir), io.Discard, io.Discard), io.Discard); code > 1 {
			b.Fatalf("skewtest explore exited %d", code)
		}
	}
	explore(append(base[:len(base):len(base)], "--cases", "1"), b.TempDir()) // the builds, outside the timer
	for _, bc := range []struct {
		name  string
		cases int
		extra []string
	}{
		{"generator=drawn", 256, []string{"--drawn-only"}},
		{"generator=session", 1024, []string{"--generator", "session"}},
		{"generator=mix", 256, nil}, // the default: the product's generators and the drawn ones
		// The nightly shape: the default mix under a budget, its light and heavy generators
		// in streams side by side (a count of cases draws them slot by slot, one stream).
		{"generator=mix/budget=2m", 0, []string{"--budget", "2m"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := base[:len(base):len(base)]
			if bc.cases > 0 {
				args = append(args, "--cases", strconv.Itoa(bc.cases))
			}
			args = append(args, bc.extra...)
			var cases, minutes, findings float64
			cpu := cpuTime()
			for b.Loop() {
				dir := b.TempDir()
				explore(args, dir)
				run, err := results.Load(filepath.Join(dir, "results.json"))
				if err != nil {
					b.Fatal(err)
				}
				cases += float64(run.Campaign.Cases)
				minutes += run.Campaign.Duration.Minutes()
				findings += float64(len(run.Campaign.Findings))
			}
			b.ReportMetric(cases/minutes, "cases/min")
			b.ReportMetric(findings/float64(b.N), "findings/op")
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/cases, "cpu-ms/case")
		})
	}
}

// referenceRepo writes the reference subject's history to a temporary directory.
func referenceRepo(b *testing.B) string {
	b.Helper()
	src, err := example.FindSource("")
	if err != nil {
		b.Fatal(err)
	}
	repo := filepath.Join(b.TempDir(), "remoteterm")
	if _, err := example.Write(src, repo); err != nil {
		b.Fatal(err)
	}
	return repo
}

// BenchmarkReplayFullMatrix measures `skewtest replay` of the reference history's full
// matrix (675 recorded transcripts) into every build's decoders (the working tree and 14
// tags, both directions: 20250 cells) with warm builds, at the default parallelism and at
// -j 1. The matrix is recorded once, before the timer. The target is 30 s on a
// 2-core machine.
func BenchmarkReplayFullMatrix(b *testing.B) {
	repo := referenceRepo(b)
	cache, saved := b.TempDir(), b.TempDir()
	args := []string{"run", "--repo", repo, "--cache-dir", cache, "--last", "14", "--matrix", "full", "--seed", "1", "--report-dir", saved}
	if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code > 1 {
		b.Fatalf("skewtest run exited %d", code)
	}
	for _, j := range []string{"default", "1"} {
		b.Run("j="+j, func(b *testing.B) {
			for b.Loop() {
				args := []string{"replay", "--cache-dir", cache, "--last", "14", "--report-dir", b.TempDir()}
				if j != "default" {
					args = append(args, "-j", j)
				}
				args = append(args, saved) // after the flags: replay's one argument
				if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code > 1 {
					b.Fatalf("skewtest replay exited %d", code)
				}
			}
		})
	}
}

// BenchmarkBisectWarm measures `skewtest bisect` of a documented history bug across the
// history (host v1.4.190 × desktop client v1.4.120: the tags from v1.4.120 to v1.4.190,
// then the commits before the first bad one) with warm builds. The
// issue's target is 2 minutes; the first, cold bisection is outside the timer.
func BenchmarkBisectWarm(b *testing.B) {
	repo := referenceRepo(b)
	cache := b.TempDir()
	bisect := func() {
		args := []string{"bisect", "--repo", repo, "--cache-dir", cache, "--report-dir", b.TempDir(),
			"--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--journey", "terminal"}
		if code := exitCode(dispatch(context.Background(), args, io.Discard, io.Discard), io.Discard); code != 1 {
			b.Fatalf("skewtest bisect exited %d", code)
		}
	}
	bisect()
	for b.Loop() {
		bisect()
	}
}
