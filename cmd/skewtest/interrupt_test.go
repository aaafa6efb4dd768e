package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/proctest"
	"github.com/skewtest/skewtest/internal/testlabels"
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
