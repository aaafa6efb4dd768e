package driver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
)

// helperEnv names the driver script a helper process (this test binary, see
// TestMain) starts; it prints "ready" once the driver is, and waits to be
// killed.
const helperEnv = "DRIVER_TEST_HELPER_SCRIPT"

func helper(script string) int {
	d, err := driver.Start(context.Background(), driver.Spec{Argv: []string{script}, Name: "helper"}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := d.WaitReady(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	<-d.Exited()
	return 0
}

var _ = Describe("a driver of a SIGKILLed skewtest", func() {
	BeforeEach(func() {
		if runtime.GOOS != "linux" {
			Skip("reads /proc")
		}
	})

	DescribeTable("dies with it, children and all",
		func(ctx SpecContext, group bool) {
			marker := proctest.Marker()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), helperEnv+"="+filepath.Join(scriptDir, "tree.sh"), marker)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
			lines := make(chan string, 1)
			go func() {
				defer close(lines)
				s := bufio.NewScanner(out)
				for s.Scan() {
					lines <- s.Text()
				}
				_, _ = io.Copy(io.Discard, out)
			}()
			Eventually(lines).WithContext(ctx).Should(Receive(Equal("ready")))
			Expect(len(proctest.Find(marker))).To(BeNumerically(">=", 5), "helper, guardian, driver and its three sleeps")

			pid := cmd.Process.Pid
			if group {
				pid = -pid // as CI runners and terminals do
			}
			Expect(syscall.Kill(pid, syscall.SIGKILL)).To(Succeed())
			Eventually(lines).WithContext(ctx).Should(BeClosed())
			Expect(cmd.Wait()).To(MatchError("signal: killed"))
			Eventually(proctest.Find).WithArguments(marker).WithTimeout(5 * time.Second).WithContext(ctx).Should(BeEmpty())
		},
		Entry("SIGKILL of its pid", NodeTimeout(20*time.Second), false),
		Entry("SIGKILL of its process group", NodeTimeout(20*time.Second), true),
	)
})
