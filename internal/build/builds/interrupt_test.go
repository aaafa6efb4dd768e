package builds_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

// The helper process (this test binary, see TestMain) builds one commit into a cache and
// blocks in its recipe until it is killed.
const (
	helperRepo   = "BUILDS_TEST_HELPER_REPO"
	helperCache  = "BUILDS_TEST_HELPER_CACHE"
	helperCommit = "BUILDS_TEST_HELPER_COMMIT"
)

func helper() int {
	b := &builds.Builder{CacheDir: os.Getenv(helperCache), Toolchain: "test-toolchain", Log: os.Stderr}
	_, err := b.Build(context.Background(), os.Getenv(helperRepo), builds.AtCommit("v1", plumbing.NewHash(os.Getenv(helperCommit))))
	fmt.Fprintln(os.Stderr, "helper: the build ended, but it should have been killed:", err)
	return 1
}

// Recipes that block until they are killed, after saying so on a FIFO (%[1]q).
const (
	// grandchildren leaves a background child, an orphan and a process in a new session.
	grandchildren = `sleep 600 & (sleep 600 &); setsid sleep 600 & echo started 1<>%[1]q; wait`
	// goBuild generates a Go program and builds it with a cold GOCACHE (the runtime and
	// every package it needs compile first); a -toolexec wrapper says when the first
	// compile starts, and the step never ends on its own.
	goBuild = `i=0; { echo 'package main'; while [ $i -lt 300 ]; do echo "func f$i(x int) int { return x*$i + $i }"; i=$((i+1)); done; echo 'func main() { println(f1(2)) }'; } > gen.go` +
		` && printf '#!/bin/sh\ncase "$2" in -V=full) ;; *) case "$1" in */compile) echo started 1<>%[1]q;; esac;; esac\nexec "$@"\n' > toolexec.sh && chmod +x toolexec.sh` +
		` && go build -toolexec "$PWD/toolexec.sh" -o "$SKEWTEST_OUT/gen" gen.go && sleep 600`
)

var _ = Describe("a SIGKILLed build", Label(testlabels.Slow), func() {
	BeforeEach(func() {
		if runtime.GOOS != "linux" {
			Skip("reads /proc")
		}
	})

	type killCase struct {
		recipe string
		group  bool // kill the helper's whole process group (as CI runners and terminals do)
	}
	DescribeTable("leaves no process and, after the next run's sweep, no temporary directory",
		func(ctx SpecContext, c killCase) {
			tmp := GinkgoT().TempDir()
			fifo := filepath.Join(tmp, "started")
			Expect(syscall.Mkfifo(fifo, 0o600)).To(Succeed())
			started := readLines(fifo)
			s := mustSubject(fmt.Sprintf(c.recipe, fifo))
			h := s.mustCommit("v1")
			s.mustWrite("skewtest.yaml", subjectConfig("true"), 0o644) // the next run: quick
			cache := filepath.Join(tmp, "cache")
			userTmp := filepath.Join(tmp, "user-tmp") // the helper's $TMPDIR
			Expect(os.Mkdir(userTmp, 0o755)).To(Succeed())

			marker := proctest.Marker()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), marker, "TMPDIR="+userTmp,
				helperRepo+"="+s.dir, helperCache+"="+cache, helperCommit+"="+h.String())
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() { // if the spec failed before it was reaped
				if cmd.ProcessState == nil {
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					_ = cmd.Wait()
				}
			})
			Eventually(started).WithContext(ctx).Should(Receive(Equal("started")))

			pid := cmd.Process.Pid
			if c.group {
				pid = -pid
			}
			Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
			Expect(cmd.Wait()).To(MatchError("signal: killed"))
			Eventually(proctest.Find).WithArguments(marker).WithTimeout(5*time.Second).WithContext(ctx).Should(BeEmpty(), "no process of the build is left")
			Expect(os.ReadDir(userTmp)).To(BeEmpty(), "nothing in the user's $TMPDIR")
			Expect(os.ReadDir(filepath.Join(cache, "tmp"))).To(HaveLen(1), "the killed build's temporary directory")

			// The next run sweeps what the killed one left.
			b := &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain", Log: GinkgoWriter}
			_, err := b.Build(ctx, s.dir, builds.Worktree())
			Expect(err).NotTo(HaveOccurred())
			Expect(os.ReadDir(filepath.Join(cache, "tmp"))).To(BeEmpty())
			Expect(filepath.Glob(filepath.Join(cache, "builds", ".staging-*"))).To(BeEmpty())
		},
		func(c killCase) string {
			what := "a recipe with grandchildren"
			if strings.Contains(c.recipe, "go build") {
				what = "go build of generated code"
			}
			if c.group {
				return what + ", its process group killed"
			}
			return what + ", its pid killed"
		},
		Entry(nil, NodeTimeout(2*time.Minute), killCase{recipe: grandchildren}),
		Entry(nil, NodeTimeout(2*time.Minute), killCase{recipe: grandchildren, group: true}),
		Entry(nil, NodeTimeout(2*time.Minute), killCase{recipe: goBuild}),
		Entry(nil, NodeTimeout(2*time.Minute), killCase{recipe: goBuild, group: true}),
	)
})

// readLines opens a FIFO without waiting for a writer and sends each line written to it;
// it is closed when the spec ends.
func readLines(fifo string) <-chan string {
	GinkgoHelper()
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	Expect(err).NotTo(HaveOccurred())
	lines := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := bufio.NewScanner(f)
		for s.Scan() {
			select {
			case lines <- s.Text():
			default: // nobody reads any more
			}
		}
		_, _ = io.Copy(io.Discard, f)
	}()
	DeferCleanup(func() { f.Close(); <-done })
	return lines
}
