package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// The interrupt spec (issue 12, D1 and D2 of the trial): a CI job killed at its time limit
// SIGKILLs skewtest (or its whole process group) in the middle of a cold build. Nothing it
// started may survive it, nothing may be left in the user's $TMPDIR, and the next
// skewtest cache prune removes what it left in the cache. The skewtest binary is built
// once (go build) and run as a child in its own process group; every process it starts
// inherits a marker in its environment, which is how the spec finds them in /proc.
//
// Run it 20 times in a row (Ginkgo's --repeat is a flag of the ginkgo command, not of go
// test, and RunSpecs runs once per process) with one test binary, from cmd/skewtest:
//
//	go test -c -o /tmp/skewtest.test . && for i in $(seq 20); do /tmp/skewtest.test -ginkgo.focus=SIGKILLed || break; done
var _ = Describe("skewtest SIGKILLed during a cold build", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var bin, repo string

	BeforeAll(func(ctx SpecContext) {
		if runtime.GOOS != "linux" {
			Skip("reads /proc")
		}
		bin = filepath.Join(GinkgoT().TempDir(), "skewtest")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		repo = referenceHistory()
	}, NodeTimeout(5*time.Minute))

	DescribeTable("leaves no process, nothing in $TMPDIR, and nothing in the cache after cache prune",
		func(ctx SpecContext, group bool) {
			tmp := GinkgoT().TempDir()
			cache := filepath.Join(tmp, "cache") // cold: nothing built, no GOCACHE
			userTmp := filepath.Join(tmp, "user-tmp")
			Expect(os.Mkdir(userTmp, 0o755)).To(Succeed())
			marker := proctest.Marker()

			cmd := exec.Command(bin, "run", "--repo", repo, "--pins", "v1.4.173", "--cache-dir", cache,
				"--report-dir", filepath.Join(tmp, "report"), "-v")
			cmd.Env = append(os.Environ(), marker, "TMPDIR="+userTmp)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stderr, err := cmd.StderrPipe()
			Expect(err).NotTo(HaveOccurred())
			cmd.Stdout = GinkgoWriter
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() { // if the spec failed before reaping it
				if cmd.ProcessState == nil {
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					_ = cmd.Wait()
				}
			})
			var said bytes.Buffer
			lines := bufio.NewScanner(stderr)
			for lines.Scan() && !strings.Contains(lines.Text(), ": building (") {
				said.WriteString(lines.Text() + "\n")
			}
			Expect(lines.Err()).NotTo(HaveOccurred())
			go func() { _, _ = io.Copy(GinkgoWriter, stderr) }()

			// Kill once the build's compiler runs: the moment D1 left go build and compile
			// running under ppid 1.
			Eventually(func() []proctest.Process { return compilers(proctest.Find(marker)) }).
				WithTimeout(2*time.Minute).WithContext(ctx).ShouldNot(BeEmpty(), "a compiler of the build runs\n%s", said.String())
			pid := cmd.Process.Pid
			if group {
				pid = -pid
			}
			Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
			Expect(cmd.Wait()).To(MatchError("signal: killed"))

			Eventually(proctest.Find).WithArguments(marker).WithTimeout(5*time.Second).WithContext(ctx).
				Should(BeEmpty(), "no process skewtest started outlives it")
			Expect(inCmdline(cache)).To(BeEmpty(), "no process names the cache")
			Expect(os.ReadDir(userTmp)).To(BeEmpty(), "no go-build* (or anything) in the user's $TMPDIR")
			Expect(leftovers(cache)).NotTo(BeEmpty(), "control: the killed build left its temporary and staging directories in the cache")

			// The next skewtest cache prune removes what the killed run left.
			out, err := exec.CommandContext(ctx, bin, "cache", "prune", "--cache-dir", cache).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			GinkgoWriter.Printf("cache prune:\n%s", out)
			Expect(leftovers(cache)).To(BeEmpty(), "cache prune removed the killed run's leftovers")
		},
		Entry("its pid killed", NodeTimeout(4*time.Minute), false),
		Entry("its process group killed", NodeTimeout(4*time.Minute), true),
	)
})

// compilers are the processes of a Go build's compiler or linker among ps.
func compilers(ps []proctest.Process) []proctest.Process {
	var out []proctest.Process
	for _, p := range ps {
		if f := strings.Fields(p.Cmdline); len(f) > 0 {
			if b := filepath.Base(f[0]); b == "compile" || b == "link" || b == "asm" || b == "cgo" {
				out = append(out, p)
			}
		}
	}
	return out
}

// inCmdline lists the pids of live processes whose command line holds s.
func inCmdline(s string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			out = append(out, filepath.Base(dir))
		}
	}
	return out
}

// leftovers lists what a killed run leaves in a build cache: the builds' temporary
// directories (tmp/*) and staging directories (builds/.staging-*).
func leftovers(cache string) []string {
	tmp, _ := filepath.Glob(filepath.Join(cache, "tmp", "*"))
	staging, _ := filepath.Glob(filepath.Join(cache, "builds", ".staging-*"))
	return append(tmp, staging...)
}

// Signals to a real skewtest (R2 of the trial "bad inputs and interrupts", re-run): GNU
// timeout sends SIGTERM to its child and then to its own process group, which holds the
// child, so skewtest may get SIGTERM twice; that must not be taken as "Ctrl-C twice". A
// second Ctrl-C still exits at once. skewtest runs the shell subject, whose working-tree
// build step ignores SIGTERM and waits for a gate, so the run is surely still stopping (for
// the step's grace, 10s) when the second signal comes; each signal is sent once skewtest has
// said it handled the one before, the first once the step runs.
var _ = Describe("skewtest signalled twice", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var bin string

	BeforeAll(func(ctx SpecContext) {
		if runtime.GOOS != "linux" {
			Skip("reads /proc")
		}
		bin = filepath.Join(GinkgoT().TempDir(), "skewtest")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	}, NodeTimeout(5*time.Minute))

	type signals struct {
		first, second syscall.Signal
		group         bool // the second goes to skewtest's process group, as GNU timeout sends it
		code          int  // skewtest's exit status
		reports       bool // it stopped cleanly: reports written, nothing left in the cache
	}
	DescribeTable("stops cleanly unless a person presses Ctrl-C twice",
		func(ctx SpecContext, sig signals) {
			s := newShellSubject()
			tmp := GinkgoT().TempDir()
			gate, waiting := filepath.Join(tmp, "gate"), filepath.Join(tmp, "waiting")
			s.edit("skewtest.yaml", func(y string) string {
				return regexp.MustCompile(`(?m)^  steps: \[`).ReplaceAllString(y,
					`  steps: ['trap "" TERM; touch `+waiting+`; while [ ! -e `+gate+` ]; do sleep 0.05; done', `)
			})
			cache, report := filepath.Join(tmp, "cache"), filepath.Join(tmp, "report")
			marker := proctest.Marker()
			cmd := exec.Command(bin, "run", "--repo", s.dir, "--pins", "v1.0.0", "--cache-dir", cache, "--report-dir", report)
			cmd.Env = append(os.Environ(), marker)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stderr syncBuffer
			cmd.Stdout, cmd.Stderr = GinkgoWriter, io.MultiWriter(&stderr, GinkgoWriter)
			Expect(cmd.Start()).To(Succeed())
			exited := make(chan struct{}) // closed once skewtest is reaped, with waitErr set
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			DeferCleanup(func() {
				_ = os.WriteFile(gate, nil, 0o644)
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // if the spec failed before it ended
				Eventually(exited).WithTimeout(time.Minute).Should(BeClosed())
				Eventually(proctest.Find).WithArguments(marker).WithTimeout(10*time.Second).
					Should(BeEmpty(), "no process skewtest started outlives it")
			})

			// The working tree's build step runs (and ignores SIGTERM) once it made this file.
			Eventually(waiting).WithTimeout(2*time.Minute).WithContext(ctx).Should(BeAnExistingFile(), stderr.String)
			Expect(syscall.Kill(cmd.Process.Pid, sig.first)).To(Succeed())
			Eventually(stderr.String).WithTimeout(time.Minute).WithContext(ctx).Should(ContainSubstring("skewtest: interrupted; stopping"))
			to := cmd.Process.Pid
			if sig.group {
				to = -to
			}
			Expect(syscall.Kill(to, sig.second)).To(Succeed())
			if sig.reports {
				// Either way skewtest says how it took the second signal.
				Eventually(stderr.String).WithTimeout(time.Minute).WithContext(ctx).Should(
					Or(ContainSubstring("still stopping"), ContainSubstring("interrupted twice")))
				Expect(stderr.String()).To(ContainSubstring("still stopping"), "the second signal is not taken as Ctrl-C twice")
				Expect(stderr.String()).NotTo(ContainSubstring("interrupted twice"))
				Expect(os.WriteFile(gate, nil, 0o644)).To(Succeed()) // the build step may end now
			}
			Eventually(exited).WithTimeout(time.Minute).WithContext(ctx).Should(BeClosed())
			var ee *exec.ExitError
			Expect(errors.As(waitErr, &ee)).To(BeTrue(), "%v", waitErr)
			Expect(ee.ExitCode()).To(Equal(sig.code), stderr.String())
			if !sig.reports {
				Expect(stderr.String()).To(ContainSubstring("interrupted twice; exiting"))
				return
			}
			run, err := results.Load(filepath.Join(report, reports.ResultsFile))
			Expect(err).NotTo(HaveOccurred(), "the reports are written")
			Expect(run.Interrupted).To(BeTrue())
			Expect(filepath.Join(report, reports.SummaryFile)).To(BeAnExistingFile())
			Expect(leftovers(cache)).To(BeEmpty(), "no staging or temporary directory is left in the cache")
		},
		Entry("GNU timeout: SIGTERM to skewtest, then to its process group (was: interrupted twice, exit 130, no report, staging left)",
			NodeTimeout(4*time.Minute), signals{first: syscall.SIGTERM, second: syscall.SIGTERM, group: true, code: exitInfra, reports: true}),
		Entry("SIGTERM twice to skewtest", NodeTimeout(4*time.Minute),
			signals{first: syscall.SIGTERM, second: syscall.SIGTERM, code: exitInfra, reports: true}),
		Entry("Ctrl-C, then SIGTERM: still a clean stop", NodeTimeout(4*time.Minute),
			signals{first: syscall.SIGINT, second: syscall.SIGTERM, code: exitInfra, reports: true}),
		Entry("Ctrl-C twice: exits at once (control)", NodeTimeout(4*time.Minute),
			signals{first: syscall.SIGINT, second: syscall.SIGINT, code: 130}),
		Entry("SIGTERM, then Ctrl-C: a person's Ctrl-C still exits at once", NodeTimeout(4*time.Minute),
			signals{first: syscall.SIGTERM, second: syscall.SIGINT, code: 130}),
	)
})
