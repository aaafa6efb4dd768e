package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/testkit/drivertest"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
)

const grace = 300 * time.Millisecond

// messages collects what a driver said.
type messages struct{ drivertest.Messages }

func (m *messages) add(msg driver.Message) { m.Add(msg) }
func (m *messages) all() []driver.Message  { return m.All() }

func (m *messages) types() []string {
	var ts []string
	for _, msg := range m.all() {
		ts = append(ts, msg.Type)
	}
	return ts
}

func spec(script string) driver.Spec {
	return driver.Spec{
		Argv:      []string{"./" + script},
		Dir:       scriptDir,
		Env:       []string{"SKEWTEST_ROLE=host"},
		LogPath:   filepath.Join(GinkgoT().TempDir(), "driver.log"),
		Name:      "host " + script,
		StopGrace: grace,
	}
}

// start starts a driver and registers its Stop as cleanup.
func start(ctx context.Context, s driver.Spec, msgs *messages) *driver.Driver {
	GinkgoHelper()
	d, err := driver.Start(ctx, s, msgs.add)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { _ = d.Stop(ctx) }, NodeTimeout(10*time.Second))
	return d
}

func ready(ctx context.Context, d *driver.Driver) {
	GinkgoHelper()
	_, err := d.WaitReady(ctx)
	Expect(err).NotTo(HaveOccurred())
}

var _ = Describe("Driver", func() {
	var msgs *messages
	BeforeEach(func() { msgs = &messages{} })

	It("reads hello and ready, and runs in Dir with the extra environment", func(ctx SpecContext) {
		s := spec("polite.sh")
		d := start(ctx, s, msgs)
		r, err := d.WaitReady(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Type).To(Equal(driver.TypeReady))
		Expect(r.URL).To(Equal("ws://127.0.0.1:1"))
		Expect(r.At).NotTo(BeZero())

		h := d.Hello()
		Expect(h.Type).To(Equal(driver.TypeHello))
		Expect(h.Protocol).To(Equal(1))
		Expect(h.Role).To(Equal("host"))
		Expect(h.Actions).To(ContainElements("echo", "stop"))
		Expect(string(h.Build)).To(MatchJSON(`{"product":"test","version":"v0"}`))
		Expect(h.Line).To(ContainSubstring(`"future":true`))
		Expect(d.PID()).To(BeNumerically(">", 0))

		Expect(d.Stop(ctx)).To(Succeed())
		Expect(os.ReadFile(s.LogPath)).To(ContainSubstring("started in " + scriptDir + " as host"))
	}, NodeTimeout(10*time.Second))

	It("matches results to actions by id, also from concurrent callers", func(ctx SpecContext) {
		d := start(ctx, spec("polite.sh"), msgs)
		ready(ctx, d)

		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				res, err := d.Do(ctx, "echo", map[string]int{"n": i})
				Expect(err).NotTo(HaveOccurred())
				Expect(res.OK).To(BeTrue())
				Expect(string(res.Data)).To(MatchJSON(fmt.Sprintf(`{"n":%d}`, i)))
			})
		}
		wg.Wait()

		res, err := d.Do(ctx, "echo", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(res.Data)).To(MatchJSON(`{}`))
	}, NodeTimeout(10*time.Second))

	It("returns the driver's ActionError for a failed result", func(ctx SpecContext) {
		d := start(ctx, spec("polite.sh"), msgs)
		ready(ctx, d)

		res, err := d.Do(ctx, "fail", nil)
		var ae *driver.ActionError
		Expect(errors.As(err, &ae)).To(BeTrue())
		Expect(ae.Code).To(Equal(driver.CodeUnsupportedAction))
		Expect(ae.Message).To(Equal(`no action "fail" in v0`))
		Expect(res.Type).To(Equal(driver.TypeResult))
		Expect(res.OK).To(BeFalse())
	}, NodeTimeout(10*time.Second))

	It("passes every line to onMessage in order, invalid lines as type invalid", func(ctx SpecContext) {
		d := start(ctx, spec("polite.sh"), msgs)
		ready(ctx, d)
		id, err := d.Send("garbage", nil)
		Expect(err).NotTo(HaveOccurred())
		Eventually(msgs.types).WithContext(ctx).Should(HaveLen(7))

		all := msgs.all()
		Expect(msgs.types()).To(Equal([]string{"hello", "ready", "invalid", "invalid", "invalid", "observe", "result"}))
		Expect(all[2].Line).To(Equal("not json"))
		Expect(all[3].Line).To(Equal("[1,2]"))
		Expect(all[4].Line).To(Equal(`{"no":"type"}`))
		for _, m := range all[2:5] {
			Expect(m.What).NotTo(BeEmpty(), "says what is wrong")
			Expect(m.At).NotTo(BeZero())
		}
		Expect(all[5].What).To(Equal("error"))
		Expect(string(all[5].Data)).To(MatchJSON(`{"message":"x"}`))
		Expect(all[6].ID).To(Equal(id))
		for i := 1; i < len(all); i++ {
			Expect(all[i].At).NotTo(BeTemporally("<", all[i-1].At))
		}
	}, NodeTimeout(10*time.Second))

	It("makes Do fail promptly, naming the exit status, when the driver crashes", func(ctx SpecContext) {
		d := start(ctx, spec("polite.sh"), msgs)
		ready(ctx, d)

		began := time.Now()
		_, err := d.Do(ctx, "crash", nil)
		Expect(time.Since(began)).To(BeNumerically("<", 5*time.Second))
		Expect(err).To(MatchError(driver.ErrExited))
		Expect(err).To(MatchError(ContainSubstring("exit status 3")))
		Expect(err).To(MatchError(ContainSubstring("boom: simulated crash")), "the log tail")
		Expect(err).To(MatchError(ContainSubstring(`action "crash"`)))
		Expect(d.Exited()).To(BeClosed())
		Expect(d.ExitErr()).To(MatchError(ContainSubstring("exit status 3")))

		_, err = d.Do(ctx, "echo", nil)
		Expect(err).To(MatchError(driver.ErrExited))
	}, NodeTimeout(10*time.Second))

	Describe("WaitReady", func() {
		It("fails with the log tail when the driver exits first", func(ctx SpecContext) {
			d := start(ctx, spec("early-exit.sh"), msgs)
			_, err := d.WaitReady(ctx)
			Expect(err).To(MatchError(driver.ErrExited))
			Expect(err).To(MatchError(ContainSubstring("exit status 2")))
			Expect(err).To(MatchError(ContainSubstring("cannot load build: missing libfoo")))
		}, NodeTimeout(10*time.Second))

		It("fails when the first line is not hello", func(ctx SpecContext) {
			d := start(ctx, spec("no-hello.sh"), msgs)
			_, err := d.WaitReady(ctx)
			Expect(err).To(MatchError(driver.ErrNotHello))
			Expect(d.Stop(ctx)).To(Succeed())
		}, NodeTimeout(10*time.Second))

		It("gives up when its context expires", func(ctx SpecContext) {
			d := start(ctx, spec("never-ready.sh"), msgs)
			wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			_, err := d.WaitReady(wctx)
			Expect(err).To(MatchError(context.DeadlineExceeded))
			Expect(d.Hello().Type).To(Equal(driver.TypeHello))
			Expect(d.Stop(ctx)).To(Succeed(), "it exits 0 when stdin closes")
		}, NodeTimeout(10*time.Second))
	})

	It("applies the default timeouts when the context has no deadline", func(ctx SpecContext) {
		s := spec("never-ready.sh")
		s.ReadyTimeout, s.ActionTimeout = 200*time.Millisecond, 200*time.Millisecond
		d := start(ctx, s, msgs)
		_, err := d.WaitReady(context.WithoutCancel(ctx))
		Expect(err).To(MatchError(context.DeadlineExceeded))
		_, err = d.Do(context.WithoutCancel(ctx), "echo", nil) // read, never answered
		Expect(err).To(MatchError(context.DeadlineExceeded))
		Expect(err).To(MatchError(ContainSubstring(`action "echo" (id 1): no result`)))
	}, NodeTimeout(10*time.Second))

	type stopCase struct {
		script   string
		wantErr  error  // nil: a polite exit
		wantText string // in the error
	}
	// Entries take a NodeTimeout: a table container cannot.
	DescribeTable("Stop ends every process of the driver",
		func(ctx SpecContext, c stopCase) {
			s := spec(c.script)
			marker := proctest.Marker()
			s.Env = append(s.Env, marker)
			d := start(ctx, s, msgs)
			ready(ctx, d)

			err := d.Stop(ctx)
			if c.wantErr == nil {
				Expect(err).NotTo(HaveOccurred())
				Expect(d.ExitErr()).NotTo(HaveOccurred())
				Expect(msgs.all()).To(ContainElement(HaveField("Type", driver.TypeResult)), "the result of stop")
			} else {
				Expect(err).To(MatchError(c.wantErr))
				Expect(err).To(MatchError(ContainSubstring(c.wantText)))
				Expect(err).To(MatchError(ContainSubstring("host " + c.script)))
			}
			Expect(d.Exited()).To(BeClosed())
			Expect(proctest.Find(marker)).To(BeEmpty(), "every process of the driver is gone once it exited")
			again := d.Stop(ctx)
			if err == nil {
				Expect(again).NotTo(HaveOccurred(), "idempotent")
			} else {
				Expect(again).To(Equal(err), "idempotent")
			}
		},
		Entry("a polite driver exits 0", NodeTimeout(10*time.Second), stopCase{script: "polite.sh"}),
		Entry("a driver that ignores stop gets SIGTERM", NodeTimeout(10*time.Second), stopCase{
			script: "termable.sh", wantErr: driver.ErrStopIgnored, wantText: "terminated"}),
		Entry("a driver that ignores stop and SIGTERM is killed", NodeTimeout(10*time.Second), stopCase{
			script: "stubborn.sh", wantErr: driver.ErrStopIgnored, wantText: "killed"}),
		Entry("a grandchild in the group is killed too", NodeTimeout(10*time.Second), stopCase{
			script: "stubborn-grandchild.sh", wantErr: driver.ErrStopIgnored, wantText: "killed"}),
		Entry("so are processes that left the group, and orphans", NodeTimeout(10*time.Second), stopCase{
			script: "tree.sh", wantErr: driver.ErrStopIgnored, wantText: "killed"}),
	)

	// A guardian's teardown after the driver exited (killing what it left; the exit of a PID
	// namespace's init) took over the 3 s grace on a saturated machine, and a driver that
	// exited at once was reported as ignoring stop. EnvHoldTeardown holds the teardown here
	// until four graces have passed, or Stop gave up.
	DescribeTable("Stop judges the driver by when it exited, not by its guardian's teardown",
		func(ctx SpecContext, script string, wantErr error, wantText string) {
			hold := filepath.Join(GinkgoT().TempDir(), "hold")
			Expect(syscall.Mkfifo(hold, 0o600)).To(Succeed())
			s := spec(script)
			marker := proctest.Marker()
			s.Env = append(s.Env, marker, proc.EnvHoldTeardown+"="+hold)
			d := start(ctx, s, msgs)
			ready(ctx, d)

			stopped, released := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(released)
				select {
				case <-time.After(4 * grace): // the teardown outlasts the grace
				case <-stopped: // Stop gave up waiting and killed it
					return
				}
				if f, err := os.OpenFile(hold, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
			}()
			DeferCleanup(func() {
				// Unblocks the release if no guardian reads the hold any more.
				if f, err := os.OpenFile(hold, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer f.Close()
				}
				<-released
			})

			err := d.Stop(ctx)
			close(stopped)
			if wantErr == nil {
				Expect(err).NotTo(HaveOccurred())
				Expect(d.ExitErr()).NotTo(HaveOccurred())
			} else {
				Expect(err).To(MatchError(wantErr))
				Expect(err).To(MatchError(ContainSubstring(wantText)))
			}
			Expect(d.Exited()).To(BeClosed())
			Expect(proctest.Find(marker)).To(BeEmpty(), "Stop returns once the teardown is over")
		},
		Entry("a polite driver exits 0", NodeTimeout(10*time.Second), "polite.sh", nil, ""),
		// Negative control: a driver that does ignore stop is still reported.
		Entry("a driver that ignores stop gets SIGTERM", NodeTimeout(10*time.Second),
			"termable.sh", driver.ErrStopIgnored, "terminated by SIGTERM (signal: terminated)"),
	)

	It("kills every process of the driver when the Start context is cancelled", func(ctx SpecContext) {
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := spec("stubborn-grandchild.sh")
		marker := proctest.Marker()
		s.Env = append(s.Env, marker)
		d := start(sctx, s, msgs)
		ready(ctx, d)

		cancel()
		Eventually(d.Exited()).WithContext(ctx).Should(BeClosed())
		Expect(d.ExitErr()).To(MatchError(ContainSubstring("signal: killed")))
		Expect(proctest.Find(marker)).To(BeEmpty())
	}, NodeTimeout(10*time.Second))

	It("cuts Stop short when its context is done", func(ctx SpecContext) {
		d := start(ctx, spec("stubborn.sh"), msgs)
		ready(ctx, d)
		sctx, cancel := context.WithCancel(ctx)
		cancel()
		Expect(d.Stop(sctx)).To(MatchError(context.Canceled))
		Expect(d.Exited()).To(BeClosed())
	}, NodeTimeout(10*time.Second))

	It("reports a program that cannot start", func(ctx SpecContext) {
		_, err := driver.Start(ctx, spec("missing.sh"), nil)
		Expect(err).To(MatchError(ContainSubstring("start host missing.sh")))
		_, err = driver.Start(ctx, driver.Spec{}, nil)
		Expect(err).To(MatchError(ContainSubstring("empty argv")))
	}, NodeTimeout(10*time.Second))

	It("encodes actions as one JSON line", func(ctx SpecContext) {
		d := start(ctx, spec("polite.sh"), msgs)
		ready(ctx, d)
		res, err := d.Do(ctx, "echo", json.RawMessage(`{"bytes":"aGk="}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(res.Data)).To(MatchJSON(`{"bytes":"aGk="}`))
		// Arguments encoded already are sent as they are, in a lane too.
		res, err = d.DoLane(ctx, 3, "echo", driver.Encoded(`{"bytes":"aGk=","n":1}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(res.Data)).To(MatchJSON(`{"bytes":"aGk=","n":1}`))
	}, NodeTimeout(10*time.Second))
})
