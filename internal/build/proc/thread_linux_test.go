package proc_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"

	"github.com/skewtest/skewtest/internal/build/proc"
)

var _ = Describe("Start", func() {
	It("keeps the command when the thread that called Start ends", func(ctx SpecContext) {
		// The parent-death signal follows the thread that forked, and a goroutine that
		// exits while locked to its thread ends that thread.
		r, w, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		defer w.Close()
		c := proc.CommandContext(ctx, "sh", "-c", "read line; echo alive")
		c.Stdin = r
		var out bytes.Buffer
		c.Stdout = &out
		// Start from a goroutine locked to a thread other than the main one (which Go
		// never ends), and let it exit locked: its thread ends with it.
		var tid int
		for tid == 0 {
			got := make(chan int, 1)
			started := make(chan error, 1)
			go func() {
				runtime.LockOSThread() // never unlocked, unless this is the main thread
				if unix.Gettid() == unix.Getpid() {
					runtime.UnlockOSThread()
					got <- 0
					return
				}
				got <- unix.Gettid()
				started <- c.Start()
			}()
			if tid = <-got; tid != 0 {
				Expect(<-started).To(Succeed())
			}
		}
		r.Close()
		task := filepath.Join("/proc/self/task", strconv.Itoa(tid))
		Eventually(func() error { _, err := os.Stat(task); return err }).WithContext(ctx).Should(MatchError(fs.ErrNotExist), "the thread ended")
		_, err = w.WriteString("go\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Wait()).To(Succeed())
		Expect(out.String()).To(Equal("alive\n"))
	}, NodeTimeout(20*time.Second))
})
