package host_test

import (
	"errors"
	"net"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/host"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

var desktopCaps = func(f release.Features) wire.Capabilities {
	c := wire.Capabilities{}
	if f.OutputPause {
		c[wire.CapOutputPause] = 1
	}
	if f.ClientAckOutput {
		c[wire.CapAckOutput] = 1
	}
	if f.ClientAckSourceRanges {
		c[wire.CapAckOutputSourceRanges] = 1
	}
	if f.DesktopDeclaresOutputSpan {
		c[wire.CapOutputSpan] = 1
	}
	if f.WriteUnavailable {
		c[wire.CapWriteUnavailable] = 1
	}
	return c
}

var _ = Describe("a subscription", func() {
	It("gets ready, subscribed and the initial snapshot", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		sub, start, data := p.subscribe(desktopCaps(wt))
		Expect(sub.StreamID).To(Equal(uint32(1)))
		Expect(sub.Terminal).To(Equal("t1"))
		Expect(sub.Cols).To(Equal(120))
		Expect(sub.Rows).To(Equal(40))
		Expect(sub.Capabilities).To(Equal(wire.Capabilities{"outputPause": 1, "ackOutputSourceRanges": 1, "writeUnavailable": 1, "outputSpan": 1}))
		Expect(sub.StreamGeneration).To(MatchRegexp(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`))
		Expect(start).To(Equal(map[string]any{"kind": "scrollback", "cols": 120.0, "rows": 40.0, "seq": 0.0,
			"cwd": "/home/remoteterm", "source": "headless", "truncated": false, "alternateScreen": false, "terminalOwner": "shell"}))
		Expect(data).To(Equal("initial scrollback\r\n"))
		Expect(observe.Of[observe.PTYOutput](s.rec)).To(ConsistOf(observe.PTYOutput{Terminal: "t1", Bytes: []byte("initial scrollback\r\n")}))
		Eventually(func() []observe.SnapshotSent { return observe.Of[observe.SnapshotSent](s.rec) }).Should(ConsistOf(
			observe.SnapshotSent{Terminal: "t1", Reason: "subscribe", Bytes: []byte("initial scrollback\r\n")}))
	})

	DescribeTable("SnapshotStart publishes the fields of its release",
		func(f release.Features, keys []string) {
			p := dial(startHost(f), wire.PathMultiplex)
			_, start, _ := p.subscribe(nil)
			var got []string
			for k := range start {
				got = append(got, k)
			}
			Expect(got).To(ConsistOf(keys))
		},
		Entry("v1.4.120", v120, []string{"kind", "cols", "rows", "seq", "cwd", "source", "truncated"}),
		Entry("v1.4.171 stopped publishing cwd", v171, []string{"kind", "cols", "rows", "seq", "source", "truncated"}),
		Entry("worktree adds alternateScreen and terminalOwner", wt, []string{"kind", "cols", "rows", "seq", "cwd", "source", "truncated", "alternateScreen", "terminalOwner"}),
	)

	It("answers an unknown terminal with an error event", func() {
		p := dial(startHost(wt), wire.PathMultiplex)
		p.send(wire.OpSubscribe, 0, wire.Subscribe{StreamID: 1, Terminal: "nope"})
		var e wire.ErrorEvent
		Expect(p.event().Decode(&e)).To(Succeed())
		Expect(e).To(Equal(wire.ErrorEvent{Type: "error", StreamID: 1, Code: "terminal_not_found", Message: `no terminal "nope"`}))
	})

	It("ends a stream on Unsubscribe", func() {
		p := dial(startHost(wt), wire.PathMultiplex)
		p.subscribe(nil)
		p.send(wire.OpUnsubscribe, 1, nil)
		var e wire.End
		Expect(p.event().Decode(&e)).To(Succeed())
		Expect(e).To(Equal(wire.End{Type: "end", StreamID: 1, Reason: "unsubscribed"}))
	})

	It("splits a snapshot over 48 KiB into chunks", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		big := strings.Repeat("y", 65536) + "\r\n"
		s.emit(big)
		Expect(p.frame(wire.OpOutput).Payload).To(HaveLen(49152))
		Expect(p.frame(wire.OpOutput).Payload).To(HaveLen(65538 - 49152))
		p.send(wire.OpSnapshotRequest, 1, wire.SnapshotRequest{RequestID: 4})
		start, data := p.snapshot()
		Expect(start["requestId"]).To(Equal(4.0))
		Expect(data).To(Equal("initial scrollback\r\n" + big))
	})
})

var _ = Describe("output", func() {
	It("carries the raw high-water mark as seq; a transformed run is one OutputSpan", func() {
		s := startHost(v190)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(desktopCaps(v157))
		s.emit("cross-version live output\r\n")
		f := p.frame(wire.OpOutput)
		Expect(string(f.Payload)).To(Equal("cross-version live output\r\n"))
		Expect(f.Seq).To(Equal(uint64(27)))
		s.emitTransformed("transformed run\r\n", 48)
		f = p.frame(wire.OpOutputSpan)
		Expect(f.Seq).To(Equal(uint64(75)))
		Expect(string(f.Payload)).To(MatchJSON(`{"data":"transformed run\r\n","rawLength":48,"transformed":true}`))
	})

	It("is plain text on a release before OutputSpan", func() {
		s := startHost(v120)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		s.emitTransformed("transformed run\r\n", 48)
		f := p.frame(wire.OpOutput)
		Expect(string(f.Payload)).To(Equal("transformed run\r\n"))
		Expect(f.Seq).To(Equal(uint64(48)))
	})

	It("is downgraded to text on terminal.subscribe for a client that did not declare outputSpan", func() {
		s := startHost(v173)
		p := dial(s, wire.PathSubscribe)
		sub, _, _ := p.subscribe(nil)
		Expect(sub.Capabilities).To(BeEmpty())
		s.emitTransformed("HEAD"+strings.Repeat("x", 65536)+"TAIL\r\n", 65643)
		first, last := p.frame(wire.OpOutput), p.frame(wire.OpOutput)
		Expect(first.Seq).To(BeZero()) // delayed final seq
		Expect(last.Seq).To(Equal(uint64(65643)))
		Expect(string(first.Payload) + string(last.Payload)).To(Equal("HEAD" + strings.Repeat("x", 65536) + "TAIL\r\n"))
	})

	It("is an OutputSpan on terminal.subscribe for a client that declared outputSpan, with the echo", func() {
		s := startHost(v173)
		p := dial(s, wire.PathSubscribe)
		sub, _, _ := p.subscribe(wire.Capabilities{wire.CapOutputSpan: 1})
		Expect(sub.Capabilities).To(Equal(wire.Capabilities{wire.CapOutputSpan: 1}))
		s.emitTransformed("t\r\n", 9)
		Expect(p.frame(wire.OpOutputSpan).Seq).To(Equal(uint64(9)))
	})

	It("rebases every seq onto display bytes for a legacy desktop client (worktree)", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		s.emit("cross-version live output\r\n")
		Expect(p.frame(wire.OpOutput).Seq).To(Equal(uint64(27)))
		s.emitTransformed("transformed run\r\n", 48)
		f := p.frame(wire.OpOutput)
		Expect(string(f.Payload)).To(Equal("transformed run\r\n"))
		Expect(f.Seq).To(Equal(uint64(44)))
		s.emitTransformed("", 12) // nothing to show, nothing sent
		s.emit("after\r\n")
		Expect(p.frame(wire.OpOutput).Seq).To(Equal(uint64(51)))
		p.send(wire.OpSnapshotRequest, 1, wire.SnapshotRequest{})
		start, _ := p.snapshot()
		Expect(start["seq"]).To(Equal(51.0))
	})
})

var _ = Describe("the host's decoder", func() {
	It("drops a C>H frame it does not know and reports it", func() {
		s := startHost(v120)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		p.send(wire.OpAck, 1, map[string]int{"bytes": 3})
		p.send(wire.OpInput, 1, []byte("echo hi\r"))
		t, _ := s.h.Terminal("t1")
		Eventually(t.Input).Should(Equal([]byte("echo hi\r")))
		Expect(observe.Of[observe.Refused](s.rec)).To(Equal([]observe.Refused{
			{Direction: "C>H", Opcode: 13, Length: 16 + len(`{"bytes":3}`), Reason: "unknown opcode", Silent: true}}))
	})

	It("acts on SetOutputPaused only after the outputPause echo", func() {
		s := startHost(v173)
		p := dial(s, wire.PathMultiplex)
		sub, _, _ := p.subscribe(nil)
		Expect(sub.Capabilities).NotTo(HaveKey(wire.CapOutputPause))
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: true})
		p.send(wire.OpInput, 1, []byte("x")) // the host has read the pause once input arrives
		t, _ := s.h.Terminal("t1")
		Eventually(t.Input).Should(Equal([]byte("x")))
		s.emit("still flowing\r\n")
		Expect(string(p.frame(wire.OpOutput).Payload)).To(Equal("still flowing\r\n"))
	})

	It("holds output while paused after the echo, and sends it on resume", func() {
		s := startHost(v173)
		p := dial(s, wire.PathMultiplex)
		sub, _, _ := p.subscribe(wire.Capabilities{wire.CapOutputPause: 1})
		Expect(sub.Capabilities).To(HaveKey(wire.CapOutputPause))
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: true})
		p.send(wire.OpInput, 1, []byte("x"))
		t, _ := s.h.Terminal("t1")
		Eventually(t.Input).Should(Equal([]byte("x")))
		s.emit("held\r\n")
		p.send(wire.OpResize, 1, wire.Viewport{Cols: 100, Rows: 30})
		// Resized is not held: it arrives first although the output was emitted before it.
		var r wire.Resized
		Expect(wire.DecodeJSON(p.frame(wire.OpResized), &r)).To(Succeed())
		Expect(r).To(Equal(wire.Resized{Cols: 100, Rows: 30, Reason: "resize", Seq: 6}))
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: false})
		Expect(string(p.frame(wire.OpOutput).Payload)).To(Equal("held\r\n"))
	})
})

var _ = Describe("what the host reports of a client's frames", func() {
	It("reports a frame it rejects for its shape, with the field's pointer", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		p.send(wire.OpResize, 1, map[string]any{"cols": "100", "rows": 30})
		p.send(wire.OpResize, 1, wire.Viewport{Cols: 100, Rows: 0})
		p.send(wire.OpInput, 1, []byte("x")) // the host has read both once input arrives
		t, _ := s.h.Terminal("t1")
		Eventually(t.Input).Should(Equal([]byte("x")))
		Expect(observe.Of[observe.Rejected](s.rec)).To(Equal([]observe.Rejected{
			{Direction: "C>H", Opcode: 8, Pointer: "/cols",
				Reason: "decode Resize payload: json: cannot unmarshal string into Go struct field Viewport.cols of type int"},
			{Direction: "C>H", Opcode: 8, Pointer: "/rows", Reason: "Resize to 100×0: cols and rows must be positive"}}))
	})

	It("resizeMaxExclusive: the largest viewport the clients offer is refused", func() {
		for _, exclusive := range []bool{false, true} {
			s := startHost(with(wt, wt.Version, func(f *release.Features) { f.ResizeMaxExclusive = exclusive }))
			p := dial(s, wire.PathMultiplex)
			p.subscribe(nil)
			p.send(wire.OpResize, 1, wire.Viewport{Cols: wire.MaxCols, Rows: 30})
			p.send(wire.OpResize, 1, wire.Viewport{Cols: wire.MaxCols - 1, Rows: wire.MaxRows - 1})
			p.send(wire.OpInput, 1, []byte("x")) // the host has read both once input arrives
			t, _ := s.h.Terminal("t1")
			Eventually(t.Input).Should(Equal([]byte("x")))
			if !exclusive {
				Expect(observe.Of[observe.Rejected](s.rec)).To(BeEmpty())
				continue
			}
			Expect(observe.Of[observe.Rejected](s.rec)).To(Equal([]observe.Rejected{
				{Direction: "C>H", Opcode: 8, Pointer: "/cols", Reason: "Resize to 200×30: at most 199×59"}}))
		}
	})

	It("idleCloseEarly: a connection quiet for a second is closed", func() {
		for _, early := range []bool{false, true} {
			s := startHost(with(wt, wt.Version, func(f *release.Features) { f.IdleCloseEarly = early }))
			p := dial(s, wire.PathMultiplex)
			p.subscribe(nil)
			// Nothing happens for longer than host.IdleCloseAfter.
			Expect(p.ws.SetReadDeadline(time.Now().Add(host.IdleCloseAfter + 500*time.Millisecond))).To(Succeed())
			_, _, err := p.ws.ReadMessage()
			if !early {
				var ne net.Error
				Expect(errors.As(err, &ne) && ne.Timeout()).To(BeTrue(), "still open: %v", err)
				continue
			}
			var ce *websocket.CloseError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(ce.Code).To(Equal(websocket.CloseGoingAway))
			Expect(ce.Text).To(Equal("idle"))
		}
	})

	It("drops, and reports, a frame whose opcode travels host to client", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		p.send(wire.OpResized, 1, wire.Viewport{Cols: 100, Rows: 30})
		p.send(wire.OpInput, 1, []byte("x"))
		t, _ := s.h.Terminal("t1")
		Eventually(t.Input).Should(Equal([]byte("x")))
		Expect(observe.Of[observe.Refused](s.rec)).To(Equal([]observe.Refused{{Direction: "C>H", Opcode: 5,
			Length: 16 + len(`{"cols":100,"rows":30}`), Reason: "opcode 5 (Resized) travels host to client; a host does not accept it", Silent: true}}))
	})

	It("reports each pause it acts on", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(wire.Capabilities{wire.CapOutputPause: 1})
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: true})
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: false})
		Eventually(func() []observe.OutputPaused { return observe.Of[observe.OutputPaused](s.rec) }).Should(Equal([]observe.OutputPaused{
			{Terminal: "t1", Paused: true}, {Terminal: "t1", Paused: false}}))
	})
})

var _ = Describe("the switches no release turns on", func() {
	with := func(set func(*release.Features)) release.Features {
		f := wt
		set(&f)
		return f
	}

	It("pauseIgnored: a pause that does not hold output", func() {
		s := startHost(with(func(f *release.Features) { f.PauseIgnored = true }))
		p := dial(s, wire.PathMultiplex)
		p.subscribe(wire.Capabilities{wire.CapOutputPause: 1})
		p.send(wire.OpSetOutputPaused, 1, wire.SetOutputPaused{Paused: true})
		Eventually(func() []observe.OutputPaused { return observe.Of[observe.OutputPaused](s.rec) }).Should(HaveLen(1))
		s.emit("not held\r\n")
		Expect(string(p.frame(wire.OpOutput).Payload)).To(Equal("not held\r\n"))
	})

	It("scrollbackRowsIgnored: a requested snapshot holds the whole buffer", func() {
		for _, ignored := range []bool{false, true} {
			s := startHost(with(func(f *release.Features) { f.ScrollbackRowsIgnored = ignored }))
			p := dial(s, wire.PathMultiplex)
			p.subscribe(nil)
			s.emit(strings.Repeat("line\r\n", 50))
			p.frame(wire.OpOutput)
			rows := 2
			p.send(wire.OpSnapshotRequest, 1, wire.SnapshotRequest{RequestID: 1, ScrollbackRows: &rows})
			_, data := p.snapshot()
			want := 42 // the 40 rows of the screen and 2 above
			if ignored {
				want = 51 // initial scrollback and 50 lines
			}
			Expect(strings.Count(data, "\n")).To(Equal(want), "ignored=%v", ignored)
		}
	})

	It("snapshotRowsCapped: a reveal keeps 50 rows of scrollback however many it asks for", func() {
		for _, capped := range []bool{false, true} {
			s := startHost(with(func(f *release.Features) { f.SnapshotRowsCapped = capped }))
			p := dial(s, wire.PathMultiplex)
			p.subscribe(nil)
			s.emit(strings.Repeat("line\r\n", 200))
			p.frame(wire.OpOutput)
			for _, rows := range []int{50, 100} {
				p.send(wire.OpSnapshotRequest, 1, wire.SnapshotRequest{RequestID: int64(rows), ScrollbackRows: &rows})
				_, data := p.snapshot()
				want := rows + 40 // the 40 rows of the screen and those above
				if capped {
					want = 50 + 40
				}
				Expect(strings.Count(data, "\n")).To(Equal(want), "capped=%v rows=%d", capped, rows)
			}
		}
	})

	It("resubscribeSeqAhead: a returning client's snapshot claims output not yet written", func() {
		for _, ahead := range []bool{false, true} {
			s := startHost(with(func(f *release.Features) { f.ResubscribeSeqAhead = ahead }))
			first := dial(s, wire.PathMultiplex)
			first.subscribe(nil)
			s.emit("0123456789")
			first.frame(wire.OpOutput)
			// The same client id, on a new connection: a resubscribe.
			_, start, _ := dial(s, wire.PathMultiplex).subscribe(nil)
			want := 10.0
			if ahead {
				want = 20
			}
			Expect(start["seq"]).To(Equal(want), "ahead=%v", ahead)
		}
	})

	It("snapshotResumeOffByOne: a snapshot taken mid-stream names a resume point one byte ahead", func() {
		for _, off := range []bool{false, true} {
			s := startHost(with(func(f *release.Features) { f.SnapshotResumeOffByOne = off }))
			first := dial(s, wire.PathMultiplex)
			_, start, _ := first.subscribe(nil)
			Expect(start["seq"]).To(Equal(0.0), "before any output: off=%v", off)
			s.emit("0123456789")
			first.frame(wire.OpOutput)
			_, start, _ = dial(s, wire.PathMultiplex).subscribe(nil)
			want := 10.0
			if off {
				want = 11
			}
			Expect(start["seq"]).To(Equal(want), "off=%v", off)
		}
	})

	It("inputTruncated: one Input frame keeps at most 4 KiB", func() {
		for _, truncated := range []bool{false, true} {
			s := startHost(with(func(f *release.Features) { f.InputTruncated = truncated }))
			p := dial(s, wire.PathMultiplex)
			p.subscribe(nil)
			in := []byte(strings.Repeat("x", host.InputBufferBytes) + "past the buffer")
			p.send(wire.OpInput, 1, in)
			want := in
			if truncated {
				want = in[:host.InputBufferBytes]
			}
			t, _ := s.h.Terminal("t1")
			p.send(wire.OpInput, 1, []byte("!"))
			Eventually(t.Input).Should(Equal(append(append([]byte(nil), want...), '!')), "truncated=%v", truncated)
		}
	})

	It("idleDropsSilentClients: a connection quiet for 4 s, pings included, is closed; one that pings is not", func() {
		s := startHost(with(func(f *release.Features) { f.IdleDropsSilentClients = true }))
		silent, pinging := dial(s, wire.PathMultiplex), dial(s, wire.PathMultiplex)
		silent.subscribe(nil)
		pinging.subscribe(nil)
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					_ = pinging.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
				}
			}
		}()
		DeferCleanup(func() { close(stop); <-done })
		// The silent client's connection is closed as idle (the host's timer), with no
		// deadline of the spec's to race it but a generous bound on a hung host.
		Expect(silent.ws.SetReadDeadline(time.Now().Add(time.Minute))).To(Succeed())
		_, _, err := silent.ws.ReadMessage()
		var ce *websocket.CloseError
		Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
		Expect(ce.Code).To(Equal(websocket.CloseGoingAway))
		Expect(ce.Text).To(Equal("idle"))
		// The pinging client, subscribed after it, is still served: the host writes to it.
		s.emit("still here")
		Expect(string(pinging.frame(wire.OpOutput).Payload)).To(Equal("still here"))
	})

	It("resizedWrongGeometry and metadataOnResize: what follows a resize", func() {
		s := startHost(with(func(f *release.Features) { f.ResizedWrongGeometry, f.MetadataOnResize = true, true }))
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		p.send(wire.OpResize, 1, wire.Viewport{Cols: 100, Rows: 30})
		var m wire.Metadata
		Expect(wire.DecodeJSON(p.frame(wire.OpMetadata), &m)).To(Succeed())
		Expect(m.Cwd).To(Equal("/home/remoteterm"))
		var r wire.Resized
		Expect(wire.DecodeJSON(p.frame(wire.OpResized), &r)).To(Succeed())
		Expect([]int{r.Cols, r.Rows}).To(Equal([]int{120, 40}))
	})

	It("titleFrame: Title only after the title echo; snapshotCursor: SnapshotStart's cursor", func() {
		s := startHost(with(func(f *release.Features) { f.TitleFrame, f.SnapshotCursor = true, true }))
		p := dial(s, wire.PathMultiplex)
		p.send(wire.OpSubscribe, 0, wire.Subscribe{StreamID: 1, Terminal: "t1", Capabilities: wire.Capabilities{wire.CapTitle: 1}})
		var sub wire.Subscribed
		Expect(p.event().Decode(&sub)).To(Succeed())
		Expect(sub.Capabilities).To(HaveKey(wire.CapTitle))
		var t wire.Title
		Expect(wire.DecodeJSON(p.frame(wire.OpTitle), &t)).To(Succeed())
		Expect(t.Title).To(Equal("t1: /home/remoteterm"))
		start, _ := p.snapshot()
		Expect(start["cursor"]).To(Equal(map[string]any{"row": 1.0, "col": 0.0}))

		q := dial(s, wire.PathMultiplex)
		sub, _, _ = q.subscribe(nil) // a client that does not declare title gets none
		Expect(sub.Capabilities).NotTo(HaveKey(wire.CapTitle))
	})
})

var _ = Describe("write unavailable", func() {
	It("is a WriteUnavailable frame where negotiated and an Error frame otherwise", func() {
		s := startHost(wt)
		t, _ := s.h.Terminal("t1")
		t.SetWritable(false)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(wire.Capabilities{wire.CapWriteUnavailable: 1})
		p.send(wire.OpInput, 1, []byte("x"))
		Expect(p.frame(wire.OpWriteUnavailable).Stream).To(Equal(uint32(1)))

		q := dial(s, wire.PathMultiplex)
		q.subscribe(nil)
		q.send(wire.OpInput, 1, []byte("x"))
		Expect(string(q.frame(wire.OpError).Payload)).To(Equal("terminal_write_unavailable"))
		Expect(t.Input()).To(BeEmpty())
		// The refused input reached the host, never the process: the host says so.
		Expect(observe.Of[observe.InputRefused](s.rec)).To(HaveLen(2))
		Expect(observe.Of[observe.Input](s.rec)).To(BeEmpty())
	})
})

var _ = Describe("a working directory change", func() {
	It("is a Metadata frame with the new cwd on every stream of the terminal", func() {
		s := startHost(wt)
		p := dial(s, wire.PathMultiplex)
		p.subscribe(nil)
		q := dial(s, wire.PathSubscribe)
		q.subscribe(nil)
		t, _ := s.h.Terminal("t1")
		t.SetCwd("/srv")
		for _, c := range []*peer{p, q} {
			var m wire.Metadata
			Expect(wire.DecodeJSON(c.frame(wire.OpMetadata), &m)).To(Succeed())
			Expect(m.Cwd).To(Equal("/srv"))
		}
	})
})

var _ = DescribeTable("Negotiate",
	func(f release.Features, path string, declared wire.Capabilities, echo wire.Capabilities, spans host.SpanPolicy, acks host.AckMode) {
		t := host.Negotiate(f, path, declared)
		Expect(t.Echo).To(Equal(echo))
		Expect(t.Spans).To(Equal(spans), "spans %v", t.Spans)
		Expect(t.Acks).To(Equal(acks))
	},
	Entry("v1.4.120 host: no spans at all", v120, wire.PathMultiplex, desktopCaps(wt),
		wire.Capabilities{}, host.SpanNone, host.AckNone),
	Entry("v1.4.147 host, mobile: spans ungated (the bug)", v147, wire.PathSubscribe, nil,
		wire.Capabilities{}, host.SpanAlways, host.AckNone),
	Entry("v1.4.157 host, v1.4.157 desktop: ledger acks", v157, wire.PathMultiplex, desktopCaps(v157),
		wire.Capabilities{"ackOutputSourceRanges": 1}, host.SpanAlways, host.AckLedger),
	Entry("v1.4.173 host, mobile: downgrade", v173, wire.PathSubscribe, nil,
		wire.Capabilities{}, host.SpanDowngrade, host.AckNone),
	Entry("v1.4.180 host, v1.4.173 desktop: multiplex downgrade (the bug)", v180, wire.PathMultiplex, desktopCaps(v173),
		wire.Capabilities{"outputPause": 1, "ackOutputSourceRanges": 1}, host.SpanDowngrade, host.AckLedger),
	Entry("v1.4.180 host, v1.4.180 desktop: spans, outputSpan echoed", v180, wire.PathMultiplex, desktopCaps(v180),
		wire.Capabilities{"outputPause": 1, "ackOutputSourceRanges": 1, "outputSpan": 1}, host.SpanAlways, host.AckLedger),
	Entry("v1.4.190 host, v1.4.173 desktop: spans", v190, wire.PathMultiplex, desktopCaps(v173),
		wire.Capabilities{"outputPause": 1, "ackOutputSourceRanges": 1}, host.SpanAlways, host.AckLedger),
	Entry("v1.4.190 host, v1.4.120 desktop: spans it cannot decode (the skew)", v190, wire.PathMultiplex, desktopCaps(v120),
		wire.Capabilities{}, host.SpanAlways, host.AckNone),
	Entry("worktree host, v1.4.120 desktop: rebased text", wt, wire.PathMultiplex, desktopCaps(v120),
		wire.Capabilities{}, host.SpanRebase, host.AckNone),
	Entry("worktree host, v1.4.147 desktop: rebased text", wt, wire.PathMultiplex, desktopCaps(v147),
		wire.Capabilities{}, host.SpanRebase, host.AckNone),
	Entry("worktree host, worktree desktop: spans, and says so", wt, wire.PathMultiplex, desktopCaps(wt),
		wire.Capabilities{"outputPause": 1, "ackOutputSourceRanges": 1, "writeUnavailable": 1, "outputSpan": 1}, host.SpanAlways, host.AckLedger),
)

var _ = It("frames with the chunker's options of its release", func() {
	Expect(host.Negotiate(v180, wire.PathMultiplex, nil).Chunking).To(Equal(chunker.Options{TransformedRuns: chunker.DowngradeToText, KeepEmptyTransformed: true}))
	Expect(host.Negotiate(v190, wire.PathSubscribe, nil).Chunking).To(Equal(chunker.Options{TransformedRuns: chunker.DowngradeToText}))
	Expect(host.Negotiate(v190, wire.PathMultiplex, nil).Chunking).To(Equal(chunker.Options{TransformedRuns: chunker.Span}))
})
