package e2e_test

import (
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

const specTimeout = 20 * time.Second

var large = "HEAD" + strings.Repeat("x", 65536) + "TAIL\r\n"

// noTrouble checks that neither side refused a frame, resynced or reported an error.
func noTrouble(r rig, c client) {
	GinkgoHelper()
	Expect(observe.Of[observe.Refused](r.rec)).To(BeEmpty())
	Expect(observe.Of[observe.Error](r.rec)).To(BeEmpty())
	Expect(observe.Of[observe.Refused](c.rec)).To(BeEmpty())
	Expect(observe.Of[observe.Resync](c.rec)).To(BeEmpty())
	Expect(observe.Of[observe.Error](c.rec)).To(BeEmpty())
	Expect(observe.Of[observe.TransportClosed](c.rec)).To(BeEmpty())
}

var _ = DescribeTable("a desktop pairing that works",
	func(ctx SpecContext, hf, cf release.Features) {
		r := startHost(hf)
		c := newDesktop(r, cf)
		d := c.desktop
		Expect(d.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(1))
		Expect(c.screen()).To(Equal("initial scrollback\r\n"))

		Expect(d.Input(ctx, "t1", []byte("echo cross-version\r"))).To(Succeed())
		Eventually(r.t.Input).Should(Equal([]byte("echo cross-version\r")))

		r.t.Emit([]byte("cross-version live output\r\n"))
		Eventually(c.screen).Should(HaveSuffix("live output\r\n"))
		r.t.EmitTransformed([]byte("transformed run\r\n"), 48)
		Eventually(c.screen).Should(HaveSuffix("live output\r\ntransformed run\r\n"))
		r.t.EmitTransformed(nil, 12)
		r.t.Emit([]byte("after the empty run\r\n"))
		Eventually(c.screen).Should(HaveSuffix("transformed run\r\nafter the empty run\r\n"))
		r.t.EmitTransformed([]byte(large), 65643)
		Eventually(c.screen).Should(HaveSuffix("TAIL\r\n"))
		Expect(c.screen()).To(Equal(r.produced()))

		Expect(d.RequestSnapshot(ctx, "t1", 200)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(2))
		Expect(c.screen()).To(Equal(r.produced()))

		Expect(d.Resize(ctx, "t1", 100, 30)).To(Succeed())
		if hf.OutputPause && cf.OutputPause {
			Expect(d.Pause(ctx, "t1", true)).To(Succeed())
			r.t.Emit([]byte("after resume\r\n"))
			Expect(d.Pause(ctx, "t1", false)).To(Succeed())
			Eventually(c.screen).Should(HaveSuffix("after resume\r\n"))
		}
		Expect(d.RequestSnapshot(ctx, "t1", 200)).To(Succeed())
		Eventually(func() []int {
			var cols []int
			for _, s := range observe.Of[observe.RenderedSnapshot](c.rec) {
				cols = append(cols, s.Cols)
			}
			return cols
		}).Should(Equal([]int{120, 120, 100}))
		Expect(c.screen()).To(Equal(r.produced()))
		Expect(d.Unsubscribe(ctx, "t1")).To(Succeed())
		noTrouble(r, c)
	},
	Entry("worktree host, worktree desktop", wt, wt, SpecTimeout(specTimeout)),
	Entry("worktree host, v1.4.120 desktop: seqs rebased onto display bytes", wt, v120, SpecTimeout(specTimeout)),
	Entry("v1.4.190 host, v1.4.173 desktop", v190, v173, SpecTimeout(specTimeout)),
	Entry("v1.4.180 host, v1.4.180 desktop: declares outputSpan", v180, v180, SpecTimeout(specTimeout)),
	Entry("v1.4.147 host, v1.4.147 desktop", v147, v147, SpecTimeout(specTimeout)),
)

var _ = Describe("a pre-1.4.147 desktop decoder and a host that always sends OutputSpan", func() {
	It("refuses the span and fails the connection", func(ctx SpecContext) {
		r := startHost(v190)
		c := newDesktop(r, v120)
		Expect(c.desktop.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(1))
		r.t.Emit([]byte("cross-version live output\r\n"))
		Eventually(c.screen).Should(HaveSuffix("live output\r\n"))
		r.t.EmitTransformed([]byte("transformed run\r\n"), 48)

		Eventually(func() []observe.TransportClosed { return observe.Of[observe.TransportClosed](c.rec) }).Should(HaveLen(1))
		Expect(observe.Of[observe.TransportClosed](c.rec)[0].Code).To(Equal(websocket.CloseProtocolError))
		refused := observe.Of[observe.Refused](c.rec)
		Expect(refused).To(HaveLen(1))
		Expect(refused[0].Direction).To(Equal("H>C"))
		Expect(refused[0].Opcode).To(Equal(15))
		Expect(refused[0].Silent).To(BeFalse())
		Expect(c.screen()).NotTo(ContainSubstring("transformed run"))
	}, SpecTimeout(specTimeout))
})

var _ = Describe("a v1.4.180 host downgrading transformed runs for a v1.4.173 desktop", func() {
	var (
		r rig
		c client
	)
	BeforeEach(func(ctx SpecContext) {
		r = startHost(v180)
		c = newDesktop(r, v173)
		Expect(c.desktop.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(1))
		r.t.Emit([]byte("cross-version live output\r\n"))
		Eventually(c.screen).Should(HaveSuffix("live output\r\n"))
	}, NodeTimeout(specTimeout))

	It("reads every transformed emission as a gap and resyncs", func(ctx SpecContext) {
		r.t.EmitTransformed([]byte("transformed run\r\n"), 48)
		Eventually(c.snapshots).Should(Equal(2))
		Expect(observe.Of[observe.Resync](c.rec)).To(Equal([]observe.Resync{{Terminal: "t1", Reason: "gap", ExpectedSeq: 27, Seq: 75}}))
		Expect(c.screen()).To(Equal(r.produced())) // recovered, at the cost of a snapshot
		r.t.EmitTransformed([]byte("again\r\n"), 20)
		Eventually(c.snapshots).Should(Equal(3))
		Expect(observe.Of[observe.Resync](c.rec)).To(HaveLen(2))
	}, SpecTimeout(specTimeout))

	It("parks a zero-byte run the ledger refuses, and loses all later output", func(ctx SpecContext) {
		r.t.EmitTransformed(nil, 12)
		r.t.Emit([]byte("after the empty run\r\n"))
		// The host holds "after the empty run" behind the parked head.
		Eventually(r.logged).Should(ContainElement(ContainSubstring("output parked, 2 frames queued: zero-byte admission")))
		Expect(c.screen()).NotTo(ContainSubstring("after the empty run"))
		Expect(observe.Of[observe.RenderedOutput](c.rec)).To(HaveLen(1))
	}, SpecTimeout(specTimeout))

	It("detaches the stream when a run over 48 KiB takes the delayed-final-seq path", func(ctx SpecContext) {
		r.t.EmitTransformed([]byte(large), 65643)
		Eventually(func() []observe.Error { return observe.Of[observe.Error](c.rec) }).Should(ContainElement(
			HaveField("Message", ContainSubstring("ended by the host: source-range-ledger"))))
		Expect(observe.Of[observe.Error](r.rec)).To(ContainElement(HaveField("Message", ContainSubstring("source-range mapping mode changed"))))
		Expect(c.screen()).NotTo(ContainSubstring("TAIL"))
		Expect(c.desktop.Input(ctx, "t1", []byte("x"))).To(HaveOccurred())
	}, SpecTimeout(specTimeout))
})

var _ = Describe("the mobile client on terminal.subscribe", func() {
	It("silently loses OutputSpan from a v1.4.147 host (ungated)", func(ctx SpecContext) {
		r := startHost(v147)
		c := newMobile(r)
		Expect(c.mobile.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(1))
		r.t.EmitTransformed([]byte("transformed run\r\n"), 48)
		r.t.Emit([]byte("after\r\n"))
		Eventually(c.screen).Should(HaveSuffix("after\r\n"))
		Expect(c.screen()).To(Equal("initial scrollback\r\nafter\r\n"))
		Expect(observe.Of[observe.Refused](c.rec)).To(ConsistOf(HaveField("Opcode", 15)))
		Expect(observe.Of[observe.Refused](c.rec)[0].Silent).To(BeTrue())
		Expect(observe.Of[observe.TransportClosed](c.rec)).To(BeEmpty())
	}, SpecTimeout(specTimeout))

	DescribeTable("gets every transformed run as text from a gated host",
		func(ctx SpecContext, hf release.Features) {
			r := startHost(hf)
			c := newMobile(r)
			Expect(c.mobile.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
			Eventually(c.snapshots).Should(Equal(1))
			r.t.Emit([]byte("cross-version live output\r\n"))
			r.t.EmitTransformed([]byte("transformed run\r\n"), 48)
			r.t.EmitTransformed(nil, 12)
			r.t.Emit([]byte("after the empty run\r\n"))
			r.t.EmitTransformed([]byte(large), 65643)
			Eventually(c.screen).Should(HaveSuffix("TAIL\r\n"))
			Expect(c.screen()).To(Equal(r.produced()))
			Expect(c.mobile.Resize(ctx, "t1", 100, 30)).To(Succeed())
			Expect(c.mobile.RequestSnapshot(ctx, "t1", 200)).To(Succeed())
			Eventually(c.snapshots).Should(Equal(2))
			Expect(observe.Of[observe.RenderedSnapshot](c.rec)[1].Cols).To(Equal(100))
			Expect(c.screen()).To(Equal(r.produced()))
			noTrouble(r, c)
		},
		Entry("v1.4.173", v173, SpecTimeout(specTimeout)),
		Entry("worktree", wt, SpecTimeout(specTimeout)),
	)
})

var _ = Describe("a worktree desktop and a v1.4.120 host", func() {
	It("has its Ack and ClaimViewport dropped by the host, which reports them; Resize still works", func(ctx SpecContext) {
		r := startHost(v120)
		c := newDesktop(r, wt)
		Expect(c.desktop.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(1))
		r.t.Emit([]byte("output to ack\r\n"))
		Eventually(c.screen).Should(HaveSuffix("output to ack\r\n"))
		Expect(c.desktop.Resize(ctx, "t1", 100, 30)).To(Succeed())
		Expect(c.desktop.RequestSnapshot(ctx, "t1", 200)).To(Succeed())
		Eventually(c.snapshots).Should(Equal(2))
		Expect(observe.Of[observe.RenderedSnapshot](c.rec)[1].Cols).To(Equal(100))
		Eventually(func() []int {
			var ops []int
			for _, o := range observe.Of[observe.Refused](r.rec) {
				ops = append(ops, o.Opcode)
			}
			return ops
		}).Should(ContainElements(13, 14))
		Expect(c.desktop.Pause(ctx, "t1", true)).To(HaveOccurred()) // never echoed by this host
	}, SpecTimeout(specTimeout))
})
