package desktop_test

import (
	"context"
	"path/filepath"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/desktop"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

const specTimeout = 10 * time.Second

var (
	v120 = release.Features{Version: "v1.4.120"}
	v156 = release.Features{Version: "v1.4.156", Ack: true, ClaimViewport: true, OutputSpan: true, ClientAckOutput: true}
	v173 = release.Features{Version: "v1.4.173", Ack: true, ClaimViewport: true, OutputSpan: true, ClientAckOutput: true,
		ClientAckSourceRanges: true, HostLedger: true, SubscribeSpanGate: true, OutputPause: true}
)

func rendered(rec *observe.Recorder) func() []string {
	return func() []string {
		var out []string
		for _, o := range observe.Of[observe.RenderedOutput](rec) {
			out = append(out, string(o.Bytes))
		}
		return out
	}
}

// connect subscribes t1 through a fake host and plays subscribed and the first snapshot.
func connect(ctx context.Context, f release.Features) (*desktop.Client, *side, *observe.Recorder) {
	GinkgoHelper()
	fh := newFakeHost()
	rec := &observe.Recorder{}
	c := desktop.New(desktop.Options{Features: f, BaseURL: fh.url, Sink: rec})
	DeferCleanup(c.Close)
	Expect(c.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
	h := fh.accept()
	sub := h.read()
	Expect(sub.Opcode).To(Equal(wire.OpSubscribe))
	Expect(sub.Stream).To(BeZero())
	var s wire.Subscribe
	Expect(wire.DecodeJSON(sub, &s)).To(Succeed())
	if want := desktop.Capabilities(f); len(want) > 0 {
		Expect(s.Capabilities).To(Equal(want))
	} else {
		Expect(s.Capabilities).To(BeEmpty())
	}
	h.event(wire.Subscribed{Type: wire.EventSubscribed, StreamID: s.StreamID, Terminal: "t1", Cols: 120, Rows: 40})
	h.snapshot(s.StreamID, 0, "snap\r\n")
	Eventually(func() []observe.RenderedSnapshot { return observe.Of[observe.RenderedSnapshot](rec) }).Should(HaveLen(1))
	return c, h, rec
}

var _ = Describe("gap detection", func() {
	It("asks for an untagged resync on a gap, and drops output the recovery snapshot covers", func(ctx SpecContext) {
		_, h, rec := connect(ctx, v156)
		h.send(wire.OpOutput, 1, 3, "abc")
		Eventually(rendered(rec)).Should(Equal([]string{"abc"}))

		h.send(wire.OpOutput, 1, 10, "def") // 10 − 3 > 3: a gap
		req, acked := h.readSkippingAcks()
		Expect(req.Opcode).To(Equal(wire.OpSnapshotRequest))
		Expect(string(req.Payload)).To(Equal("{}"))
		Expect(observe.Of[observe.Resync](rec)).To(Equal([]observe.Resync{{Terminal: "t1", Reason: "gap", ExpectedSeq: 3, Seq: 10}}))

		h.send(wire.OpOutput, 1, 13, "ghi") // dropped while the recovery is pending
		h.snapshot(1, 20, "snap\r\nabc.......defghi.......")
		h.send(wire.OpOutput, 1, 15, "old") // covered by the recovery snapshot
		h.send(wire.OpOutput, 1, 23, "new")
		Eventually(rendered(rec)).Should(Equal([]string{"abc", "new"}))
		Expect(observe.Of[observe.RenderedSnapshot](rec)[1].Screen).To(Equal([]byte("snap\r\nabc.......defghi.......")))
		Expect(observe.Screen(rec.All())).To(Equal([]byte("snap\r\nabc.......defghi.......new")))
		// Each render reports only what its previous report did not cover.
		Expect(observe.Of[observe.RenderedOutput](rec)[1]).To(And(
			HaveField("Screen", []byte("new")), HaveField("ScreenFrom", len("snap\r\nabc.......defghi......."))))
		Expect(observe.Of[observe.Resync](rec)).To(HaveLen(1))

		// Every delivered payload byte is acked, rendered or dropped.
		var total uint64
		for _, n := range acked {
			total += n
		}
		for total < 15 {
			f := h.read()
			Expect(f.Opcode).To(Equal(wire.OpAck))
			var a wire.Ack
			Expect(wire.DecodeJSON(f, &a)).To(Succeed())
			total += *a.Bytes
		}
		Expect(total).To(Equal(uint64(15)))
	}, SpecTimeout(specTimeout))

	It("measures an OutputSpan's gap by its raw length", func(ctx SpecContext) {
		_, h, rec := connect(ctx, v156)
		h.send(wire.OpOutput, 1, 27, "cross-version live output\r\n")
		h.send(wire.OpOutputSpan, 1, 75, wire.OutputSpan{Data: "transformed run\r\n", RawLength: 48, Transformed: true})
		h.send(wire.OpOutput, 1, 80, "after")
		Eventually(rendered(rec)).Should(Equal([]string{"cross-version live output\r\n", "transformed run\r\n", "after"}))
		Expect(observe.Of[observe.Resync](rec)).To(BeEmpty())
		span := observe.Of[observe.RenderedOutput](rec)[1]
		Expect([]any{span.RawLength, span.Transformed, span.Seq}).To(Equal([]any{uint64(48), true, uint64(75)}))
	}, SpecTimeout(specTimeout))

	It("reads a downgraded transformed run as a gap (why multiplex must not downgrade)", func(ctx SpecContext) {
		_, h, rec := connect(ctx, v156)
		h.send(wire.OpOutput, 1, 27, "cross-version live output\r\n")
		h.send(wire.OpOutput, 1, 75, "transformed run\r\n")
		Eventually(func() []observe.Resync { return observe.Of[observe.Resync](rec) }).Should(Equal(
			[]observe.Resync{{Terminal: "t1", Reason: "gap", ExpectedSeq: 27, Seq: 75}}))
	}, SpecTimeout(specTimeout))
})

var _ = Describe("the decoder", func() {
	It("fails the connection, loudly, on a frame its release does not know", func(ctx SpecContext) {
		_, h, rec := connect(ctx, v120)
		span := wire.OutputSpan{Data: "transformed run\r\n", RawLength: 48, Transformed: true}
		h.send(wire.OpOutputSpan, 1, 48, span)
		Eventually(func() []observe.TransportClosed { return observe.Of[observe.TransportClosed](rec) }).Should(HaveLen(1))
		refused := observe.Of[observe.Refused](rec)
		Expect(refused).To(HaveLen(1))
		Expect(refused[0]).To(Equal(observe.Refused{Direction: "H>C", Opcode: 15, Length: refused[0].Length, Reason: "unknown opcode", Silent: false}))
		Expect(refused[0].Length).To(BeNumerically(">", 16))
		Expect(observe.Of[observe.TransportClosed](rec)[0].Code).To(Equal(websocket.CloseProtocolError))
		_, _, err := h.ws.ReadMessage()
		Expect(websocket.IsCloseError(err, websocket.CloseProtocolError)).To(BeTrue(), "got %v", err)
	}, SpecTimeout(specTimeout))
})

var _ = Describe("actions", func() {
	It("sends SetOutputPaused only after the outputPause echo", func(ctx SpecContext) {
		c, h, _ := connect(ctx, v173)
		Expect(c.Pause(ctx, "t1", true)).To(MatchError(desktop.ErrNotNegotiated))
		h.event(wire.Subscribed{Type: wire.EventSubscribed, StreamID: 1, Terminal: "t1", Cols: 120, Rows: 40,
			Capabilities: wire.Capabilities{wire.CapOutputPause: 1}})
		Eventually(func() error { return c.Pause(ctx, "t1", true) }).Should(Succeed())
		f := h.read()
		Expect(f.Opcode).To(Equal(wire.OpSetOutputPaused))
		Expect(string(f.Payload)).To(MatchJSON(`{"paused":true}`))
	}, SpecTimeout(specTimeout))

	DescribeTable("resize claims the viewport first where the release has ClaimViewport",
		func(ctx SpecContext, f release.Features, want []wire.Opcode) {
			c, h, _ := connect(ctx, f)
			Expect(c.Resize(ctx, "t1", 100, 30)).To(Succeed())
			var got []wire.Opcode
			for range want {
				got = append(got, h.read().Opcode)
			}
			Expect(got).To(Equal(want))
		},
		Entry("v1.4.120", v120, []wire.Opcode{wire.OpResize}, SpecTimeout(specTimeout)),
		Entry("v1.4.156", v156, []wire.Opcode{wire.OpClaimViewport, wire.OpResize}, SpecTimeout(specTimeout)),
	)

	DescribeTable("resize, as the negative-control switches break it",
		func(ctx SpecContext, set func(*release.Features), op wire.Opcode, payload string) {
			f := v120
			set(&f)
			c, h, _ := connect(ctx, f)
			Expect(c.Resize(ctx, "t1", 100, 30)).To(Succeed())
			got := h.read()
			Expect(got.Opcode).To(Equal(op))
			Expect(string(got.Payload)).To(MatchJSON(payload))
		},
		Entry("no switch", func(*release.Features) {}, wire.OpResize, `{"cols":100,"rows":30}`, SpecTimeout(specTimeout)),
		Entry("resizeColsAsString", func(f *release.Features) { f.ResizeColsAsString = true }, wire.OpResize, `{"cols":"100","rows":30}`, SpecTimeout(specTimeout)),
		Entry("resizeZeroRows", func(f *release.Features) { f.ResizeZeroRows = true }, wire.OpResize, `{"cols":100,"rows":0}`, SpecTimeout(specTimeout)),
		Entry("resizeSentAsResized", func(f *release.Features) { f.ResizeSentAsResized = true }, wire.OpResized, `{"cols":100,"rows":30}`, SpecTimeout(specTimeout)),
	)

	It("reports how much scrollback a snapshot it asked for holds", func(ctx SpecContext) {
		c, h, rec := connect(ctx, v120)
		Expect(c.RequestSnapshot(ctx, "t1", 2)).To(Succeed())
		Expect(h.read().Opcode).To(Equal(wire.OpSnapshotRequest))
		h.send(wire.OpSnapshotStart, 1, 0, wire.SnapshotStart{Kind: "scrollback", Cols: 120, Rows: 3, RequestID: 1, Source: "headless"})
		h.send(wire.OpSnapshotChunk, 1, 0, "a\r\nb\r\nc\r\nd\r\ne")
		h.send(wire.OpSnapshotEnd, 1, 0, nil)
		Eventually(func() []observe.RenderedSnapshot { return observe.Of[observe.RenderedSnapshot](rec) }).Should(HaveLen(2))
		first, second := observe.Of[observe.RenderedSnapshot](rec)[0], observe.Of[observe.RenderedSnapshot](rec)[1]
		Expect([]any{first.Requested, first.ScrollbackRows}).To(Equal([]any{false, 0}))
		Expect([]any{second.Requested, second.ScrollbackRows}).To(Equal([]any{true, 2}))
	}, SpecTimeout(specTimeout))

	It("reports a transport drop and resubscribes on a new connection", func(ctx SpecContext) {
		fh := newFakeHost()
		rec := &observe.Recorder{}
		c := desktop.New(desktop.Options{Features: v120, BaseURL: fh.url, Sink: rec})
		DeferCleanup(c.Close)
		Expect(c.Subscribe(ctx, wire.PathMultiplex, "t1", 120, 40)).To(Succeed())
		h := fh.accept()
		h.read()
		Expect(h.ws.Close()).To(Succeed())
		Eventually(func() []observe.TransportClosed { return observe.Of[observe.TransportClosed](rec) }).Should(HaveLen(1))
		Expect(c.Input(ctx, "t1", []byte("x"))).To(MatchError(desktop.ErrNotConnected))
		Expect(c.Resubscribe(ctx, "t1")).To(Succeed())
		h2 := fh.accept()
		f := h2.read()
		Expect(f.Opcode).To(Equal(wire.OpSubscribe))
		Expect(observe.Of[observe.Connected](rec)).To(HaveLen(2))
	}, SpecTimeout(specTimeout))
})

var _ = Describe("what the host refuses", func() {
	It("reads WriteUnavailable and its Error frame alike, and reports a refused subscribe without an error", func(ctx SpecContext) {
		wt := v173
		wt.WriteUnavailable = true
		c, h, rec := connect(ctx, wt)
		h.send(wire.OpWriteUnavailable, 1, 0, nil)
		h.send(wire.OpError, 1, 0, wire.ErrorWriteUnavailable)
		Eventually(func() []observe.WriteUnavailable { return observe.Of[observe.WriteUnavailable](rec) }).Should(HaveLen(2))

		Expect(c.Subscribe(ctx, "", "nope", 120, 40)).To(Succeed())
		sub := h.read()
		Expect(sub.Opcode).To(Equal(wire.OpSubscribe))
		var s wire.Subscribe
		Expect(wire.DecodeJSON(sub, &s)).To(Succeed())
		h.event(wire.ErrorEvent{Type: wire.EventError, StreamID: s.StreamID, Code: "terminal_not_found", Message: `no terminal "nope"`})
		Eventually(func() []observe.SubscribeFailed { return observe.Of[observe.SubscribeFailed](rec) }).Should(
			ConsistOf(observe.SubscribeFailed{Terminal: "nope", Code: "terminal_not_found", Message: `no terminal "nope"`}))

		h.send(wire.OpError, 1, 0, "stream detached")
		Eventually(func() []observe.Error { return observe.Of[observe.Error](rec) }).Should(HaveLen(1), "any other Error frame is still an error")
	}, SpecTimeout(specTimeout))
})

var _ = Describe("the loseOutputOnce switch", func() {
	It("keeps the bytes of one Output frame off the screen, once for every client that shares its file, and no resync brings them back", func(ctx SpecContext) {
		f := v156
		f.LoseOutputOnce = filepath.Join(GinkgoT().TempDir(), "lost")
		_, h, rec := connect(ctx, f)
		h.send(wire.OpOutput, 1, 3, "abc")
		h.send(wire.OpOutput, 1, 6, "def")
		Eventually(rendered(rec)).Should(Equal([]string{"", "def"}))
		Expect(observe.Screen(rec.All())).To(Equal([]byte("snap\r\ndef")))
		Expect(observe.Of[observe.Resync](rec)).To(BeEmpty())
		Expect(f.LoseOutputOnce).To(BeAnExistingFile())

		_, h, rec = connect(ctx, f) // another client of the same build: the file says it happened
		h.send(wire.OpOutput, 1, 3, "abc")
		Eventually(rendered(rec)).Should(Equal([]string{"abc"}))
	}, SpecTimeout(specTimeout))
})
