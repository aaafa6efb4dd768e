package proc_test

import (
	"bufio"
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

	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
)

// A helper process (this test binary, see TestMain) starts a command under proc and is
// then SIGKILLed, alone or with its whole process group as CI runners do, or lets the
// command exit. No process of the command may be left either way.
var _ = Describe("a command of a SIGKILLed process", func() {
	BeforeEach(func() {
		if runtime.GOOS != "linux" {
			Skip("these specs read /proc")
		}
	})

	type how int
	const (
		killPID how = iota
		killGroup
		exits
	)
	type killCase struct {
		guard  string // SKEWTEST_GUARD of the helper
		want   string // the mode it must end up in; "" is a PID namespace (userns unless root)
		script string
		how    how
		nobody bool // run the helper as uid 65534 (needs root)
	}
	DescribeTable("dies with it",
		func(ctx SpecContext, c killCase) {
			if c.nobody && os.Geteuid() != 0 {
				Skip("needs root to run a helper as another user")
			}
			want := c.want
			if want == "" {
				want = "userns"
				if os.Geteuid() == 0 && !c.nobody {
					want = "pidns"
				}
			}
			marker := proctest.Marker()
			bin := os.Args[0]
			cmd := exec.Command(bin)
			if c.nobody {
				cmd = exec.Command(worldExecutableCopy(bin))
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				cmd.Dir = "/"
			} else {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Setpgid = true // so that its group can be killed without ours
			cmd.Env = append(os.Environ(), helperEnv+"="+c.script, proc.EnvGuard+"="+c.guard, marker)
			cmd.Stderr = GinkgoWriter
			out, err := cmd.StdoutPipe()
			Expect(err).NotTo(HaveOccurred())
			Expect(cmd.Start()).To(Succeed())
			DeferCleanup(func() { // if the spec failed before it was reaped
				if cmd.ProcessState == nil {
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					_ = cmd.Wait()
				}
			})
			lines := make(chan string, 4)
			go func() {
				defer close(lines)
				s := bufio.NewScanner(out)
				for s.Scan() {
					lines <- s.Text()
				}
				_, _ = io.Copy(io.Discard, out)
			}()

			var first string
			Eventually(lines).WithContext(ctx).Should(Receive(&first))
			Expect(first).To(Equal("mode "+want), "the helper's first line")
			Eventually(lines).WithContext(ctx).Should(Receive(Equal("ready")))
			switch c.how {
			case killPID:
				Expect(syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)).To(Succeed())
			case killGroup:
				Expect(syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)).To(Succeed())
			}
			// The command's processes all hold the helper's stdout: it closes when the
			// last of them is gone.
			Eventually(lines).WithContext(ctx).Should(BeClosed())
			err = cmd.Wait()
			if c.how == exits {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(MatchError("signal: killed"))
			}
			Eventually(proctest.Find).WithArguments(marker).WithTimeout(5 * time.Second).WithContext(ctx).Should(BeEmpty())
		},
		func(c killCase) string {
			who := map[how]string{killPID: "SIGKILL of its pid", killGroup: "SIGKILL of its process group", exits: "its exit"}[c.how]
			user := ""
			if c.nobody {
				user = ", not root"
			}
			mode := c.want
			if mode == "" {
				mode = "PID namespace"
			}
			return mode + user + ": " + who
		},
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "auto", script: everyWay, how: killPID}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "auto", script: everyWay, how: killGroup}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "auto", script: everyWay, how: killPID, nobody: true}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "auto", script: everyWay, how: killGroup, nobody: true}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "subreaper", want: "subreaper", script: everyWay, how: killPID}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "subreaper", want: "subreaper", script: everyWay, how: killGroup}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "subreaper", want: "subreaper", script: exitsEveryWay, how: exits}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "group", want: "group", script: inGroup, how: killPID}),
		Entry(nil, NodeTimeout(30*time.Second), killCase{guard: "group", want: "group", script: inGroup, how: killGroup}),
	)
})

// worldExecutableCopy copies the test binary where another user can run it.
func worldExecutableCopy(bin string) string {
	GinkgoHelper()
	dir, err := os.MkdirTemp("", "proc-test-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	data, err := os.ReadFile(bin)
	Expect(err).NotTo(HaveOccurred())
	dst := filepath.Join(dir, strings.TrimSuffix(filepath.Base(bin), ".test")+".test")
	Expect(os.WriteFile(dst, data, 0o755)).To(Succeed())
	return dst
}
