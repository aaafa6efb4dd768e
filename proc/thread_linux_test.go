package proc_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"

	"github.com/skewtest/skewtest/proc"
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
		tid := make(chan int, 1)
		started := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			tid <- unix.Gettid()
			started <- c.Start()
		}()
		Expect(<-started).To(Succeed())
		r.Close()
		task := filepath.Join("/proc/self/task", strconv.Itoa(<-tid))
		Eventually(func() error { _, err := os.Stat(task); return err }).WithContext(ctx).Should(MatchError(fs.ErrNotExist), "the thread ended")
		_, err = w.WriteString("go\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Wait()).To(Succeed())
		Expect(out.String()).To(Equal("alive\n"))
	})
})
