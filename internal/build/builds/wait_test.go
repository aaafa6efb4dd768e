package builds_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("a build that waits for another process's build of its key", func() {
	It("names that process and the lock file, and builds once the process is gone, its holder file left behind", func(ctx SpecContext) {
		tmp := GinkgoT().TempDir()
		fifo, gate := filepath.Join(tmp, "started"), filepath.Join(tmp, "gate")
		Expect(syscall.Mkfifo(fifo, 0o600)).To(Succeed())
		started := readLines(fifo)
		s := mustSubject(fmt.Sprintf(`echo started 1<>%q; while [ ! -e %q ]; do sleep 0.05; done`, fifo, gate))
		h := s.mustCommit("v1")
		cache := filepath.Join(tmp, "cache")

		// The holder: this test binary as the helper process (see interrupt_test.go), with
		// words its command line must quote.
		cmd := exec.Command(os.Args[0], "holds the lock", "--repo", s.dir)
		cmd.Env = append(os.Environ(), helperRepo+"="+s.dir, helperCache+"="+cache, helperCommit+"="+h.String())
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() {
			if cmd.ProcessState == nil {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				_ = cmd.Wait()
			}
		})
		Eventually(started).WithContext(ctx).Should(Receive(Equal("started")))

		events := make(chan builds.Event, 64)
		b := &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain", Progress: func(e builds.Event) { events <- e }}
		done := make(chan error, 1)
		go func() {
			defer GinkgoRecover()
			_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
			done <- err
		}()
		var w builds.Event
		Eventually(events).WithContext(ctx).Should(Receive(&w))
		Expect(w.State).To(Equal(builds.Waiting))
		lock := filepath.Join(cache, "builds", ".lock-"+w.Key)
		Expect(w.LockPath).To(Equal(lock))
		Expect(w.Holder).NotTo(BeNil())
		Expect(w.Holder.PID).To(Equal(cmd.Process.Pid))
		Expect(w.Holder.Command).To(HavePrefix(os.Args[0] + " 'holds the lock' --repo "))
		Expect(w.Holder.Since).To(BeTemporally("~", time.Now(), time.Minute))
		Expect(w.String()).To(HavePrefix(fmt.Sprintf("build v1: waiting for another build of %.12s, held by pid %d (%s) since %s; lock %s",
			w.Key, cmd.Process.Pid, w.Holder.Command, w.Holder.Since.Local().Format(time.TimeOnly), lock)))

		// cache ls and prune see the build in progress and nothing else.
		es, err := builds.List(cache)
		Expect(err).NotTo(HaveOccurred())
		Expect(es).To(HaveLen(1))
		Expect(es[0].Status).To(Equal("building"))
		res, err := builds.Prune(ctx, cache, builds.PruneOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Removed).To(BeEmpty())
		Expect(res.Busy).To(HaveLen(1))

		// Killed, the holder leaves its holder file; it blocks nothing.
		Expect(syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)).To(Succeed())
		Expect(cmd.Wait()).To(MatchError("signal: killed"))
		Expect(lock + ".holder").To(BeARegularFile())
		Expect(os.WriteFile(gate, nil, 0o644)).To(Succeed())
		Eventually(done).WithContext(ctx).Should(Receive(BeNil()))
		Expect(lock + ".holder").NotTo(BeAnExistingFile())
		es, err = builds.List(cache)
		Expect(err).NotTo(HaveOccurred())
		Expect(es).To(HaveLen(1))
		Expect(es[0].Status).To(Equal("ok"))
	}, SpecTimeout(time.Minute))

	DescribeTable("says 'another process' when its holder file names nobody, and names a holder that writes itself late",
		func(ctx SpecContext, holderFile func() []byte) {
			s := mustSubject()
			h := s.mustCommit("v1")
			first := &builds.Builder{CacheDir: filepath.Join(GinkgoT().TempDir(), "cache"), Toolchain: "test-toolchain"}
			a, err := first.Build(ctx, s.dir, builds.AtCommit("v1", h))
			Expect(err).NotTo(HaveOccurred())

			// Another cache, where this spec holds the key's lock.
			cache := filepath.Join(GinkgoT().TempDir(), "cache")
			lock := filepath.Join(cache, "builds", ".lock-"+a.Key)
			Expect(os.MkdirAll(filepath.Dir(lock), 0o755)).To(Succeed())
			if data := holderFile(); data != nil {
				Expect(os.WriteFile(lock+".holder", data, 0o644)).To(Succeed())
			}
			l := flock.New(lock)
			ok, err := l.TryLock()
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue())
			defer l.Close()

			events := make(chan builds.Event, 64)
			b := &builds.Builder{CacheDir: cache, Toolchain: "test-toolchain", Progress: func(e builds.Event) { events <- e }}
			done := make(chan error, 1)
			go func() {
				defer GinkgoRecover()
				_, err := b.Build(ctx, s.dir, builds.AtCommit("v1", h))
				done <- err
			}()
			var w builds.Event
			Eventually(events).WithContext(ctx).Should(Receive(&w))
			Expect(w.State).To(Equal(builds.Waiting))
			Expect(w.Holder).To(BeNil())
			Expect(w.String()).To(Equal(fmt.Sprintf("build v1: waiting for another build of %.12s, held by another process; lock %s", a.Key, lock)))

			late, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "command": "skewtest build --repo r", "since": time.Now()})
			Expect(os.WriteFile(lock+".holder", late, 0o644)).To(Succeed())
			Eventually(events).WithContext(ctx).Should(Receive(&w))
			Expect(w.State).To(Equal(builds.Waiting))
			Expect(w.String()).To(ContainSubstring(fmt.Sprintf(", held by pid %d (skewtest build --repo r) since ", os.Getpid())))

			Expect(os.Remove(lock + ".holder")).To(Succeed())
			Expect(l.Unlock()).To(Succeed())
			Eventually(done).WithContext(ctx).Should(Receive(BeNil()))
		},
		Entry("no holder file (an older skewtest)", SpecTimeout(time.Minute), func() []byte { return nil }),
		Entry("an unreadable one", SpecTimeout(time.Minute), func() []byte { return []byte("{pid") }),
		Entry("one a killed process left", SpecTimeout(time.Minute), func() []byte {
			gone := exec.Command("true")
			Expect(gone.Run()).To(Succeed())
			data, _ := json.Marshal(map[string]any{"pid": gone.Process.Pid, "command": "skewtest run", "since": time.Now()})
			return data
		}),
	)
})
