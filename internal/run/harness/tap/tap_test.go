package tap_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// recording is a Recorder that also checks it is never called
// concurrently.
type recording struct {
	mu      sync.Mutex
	frames  []tap.Frame
	events  []tap.ConnEvent
	inside  atomic.Int32
	overlap atomic.Bool
}

func (r *recording) enter() func() {
	if r.inside.Add(1) > 1 {
		r.overlap.Store(true)
	}
	return func() { r.inside.Add(-1) }
}

func (r *recording) Frame(f tap.Frame) {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, f)
}

func (r *recording) Conn(e tap.ConnEvent) {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recording) Frames() []tap.Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tap.Frame(nil), r.frames...)
}

func (r *recording) Events() []tap.ConnEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tap.ConnEvent(nil), r.events...)
}

// summary renders events as "conn event detail" for easy comparison.
func (r *recording) summary() []string {
	var out []string
	for _, e := range r.Events() {
		out = append(out, fmt.Sprintf("%d %s %s", e.Conn, e.Event, e.Detail))
	}
	return out
}

func host() *testHost {
	GinkgoHelper()
	h := newTestHost()
	DeferCleanup(h.Close)
	return h
}

func startTap(ctx context.Context, upstream string, rec tap.Recorder) *tap.Proxy {
	GinkgoHelper()
	p, err := tap.Start(ctx, upstream, rec)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	return p
}

func dial(ctx context.Context, url string) *websocket.Conn {
	GinkgoHelper()
	d := websocket.Dialer{Subprotocols: []string{"v1"}}
	ws, _, err := d.DialContext(ctx, url, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ws.Close)
	return ws
}

func read(ws *websocket.Conn) (int, []byte) {
	GinkgoHelper()
	Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	mt, data, err := ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	return mt, data
}

// readErr reads until the connection fails and returns why.
func readErr(ws *websocket.Conn) error {
	GinkgoHelper()
	Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			return err
		}
	}
}

func closeErr(code int, text string) *websocket.CloseError {
	return &websocket.CloseError{Code: code, Text: text}
}

var _ = Describe("Proxy", func() {
	var rec *recording
	BeforeEach(func() { rec = &recording{} })

	It("forwards messages both ways exactly and records each once, in order", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		Expect(p.URL()).To(MatchRegexp(`^ws://127\.0\.0\.1:\d+$`))

		const path = "/echo?x=1&y=%20z"
		ws := dial(ctx, p.URL()+path)
		Expect(ws.Subprotocol()).To(Equal("v1"), "negotiated with the host")
		mt, data := read(ws)
		Expect(mt).To(Equal(websocket.TextMessage))
		Expect(string(data)).To(Equal(path), "same path and query upstream")

		big := make([]byte, 200<<10)
		for i := range big {
			big[i] = byte(rand.IntN(256))
		}
		sent := []struct {
			binary bool
			data   []byte
		}{
			{true, []byte{0, 1, 2, 255, 0}},
			{false, []byte("héllo\n")},
			{true, big},
			{true, []byte{}},
			{false, []byte("{}")},
		}
		for _, s := range sent {
			mt := websocket.TextMessage
			if s.binary {
				mt = websocket.BinaryMessage
			}
			Expect(ws.WriteMessage(mt, s.data)).To(Succeed())
			gotType, got := read(ws)
			Expect(gotType).To(Equal(mt))
			Expect(got).To(Equal(s.data))
		}

		frames := rec.Frames()
		Expect(frames).To(HaveLen(1 + 2*len(sent)))
		Expect(frames[0]).To(MatchFields(tap.HostToClient, false, []byte(path)))
		for i, s := range sent {
			Expect(frames[1+2*i]).To(MatchFields(tap.ClientToHost, s.binary, s.data))
			Expect(frames[2+2*i]).To(MatchFields(tap.HostToClient, s.binary, s.data))
		}
		for i, f := range frames {
			Expect(f.Seq).To(Equal(i + 1))
			Expect(f.Conn).To(Equal(1))
			Expect(f.Path).To(Equal(path))
			Expect(f.At).NotTo(BeZero())
		}

		Expect(ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "done"), time.Now().Add(time.Second))).To(Succeed())
		Expect(websocket.IsCloseError(readErr(ws), 1000)).To(BeTrue(), "the close handshake completes")
		Eventually(h.ends).WithContext(ctx).Should(Receive(MatchError(closeErr(1000, "done"))))
		Eventually(rec.summary).WithContext(ctx).Should(Equal([]string{"1 open v1", "1 close client closed: 1000 done"}))
		Expect(rec.overlap.Load()).To(BeFalse(), "recorder called concurrently")
	}, NodeTimeout(20*time.Second))

	It("records concurrent traffic in one order that keeps each direction's order", func(ctx SpecContext) {
		const n = 200
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, fmt.Sprintf("%s/flood?n=%d", p.URL(), n))

		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			for i := range n {
				Expect(ws.WriteMessage(websocket.BinaryMessage, fmt.Appendf(nil, "c%d", i))).To(Succeed())
			}
		}()
		for i := range n {
			_, data := read(ws)
			Expect(string(data)).To(Equal(fmt.Sprintf("h%d", i)))
		}
		Eventually(done).WithContext(ctx).Should(BeClosed())
		Eventually(func() []tap.Frame { return rec.Frames() }).WithContext(ctx).Should(HaveLen(2 * n))

		next := map[tap.Direction]int{}
		for i, f := range rec.Frames() {
			Expect(f.Seq).To(Equal(i + 1))
			prefix := map[tap.Direction]string{tap.ClientToHost: "c", tap.HostToClient: "h"}[f.Dir]
			Expect(string(f.Data)).To(Equal(fmt.Sprintf("%s%d", prefix, next[f.Dir])))
			next[f.Dir]++
		}
		Expect(rec.overlap.Load()).To(BeFalse(), "recorder called concurrently")
	}, NodeTimeout(20*time.Second))

	It("forwards a close from the host", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/close")
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("x"))).To(Succeed())
		Expect(readErr(ws)).To(MatchError(closeErr(4001, "bye")))
		Eventually(rec.summary).WithContext(ctx).Should(Equal([]string{"1 open v1", "1 close host closed: 4001 bye"}))
	}, NodeTimeout(20*time.Second))

	It("forwards pings and pongs end to end instead of answering them, and records them", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)
		pongs := make(chan string, 1)
		ws.SetPongHandler(func(data string) error { pongs <- data; return nil })
		Expect(ws.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(time.Second))).To(Succeed())
		go func() { _, _, _ = ws.ReadMessage() }() // the reader runs the pong handler
		Eventually(pongs).WithContext(ctx).Should(Receive(Equal("are you there")), "the host's own pong comes back")
		var control []string
		for _, f := range rec.Frames() {
			if f.Control != "" {
				control = append(control, fmt.Sprintf("%s %s %s", f.Dir, f.Control, f.Data))
			}
		}
		Expect(control).To(Equal([]string{"C>H ping are you there", "H>C pong are you there"}))
	}, NodeTimeout(20*time.Second))

	It("forwards a client's close with its code and reason, and the host's answer back", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)
		Expect(ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4002, "done"), time.Now().Add(time.Second))).To(Succeed())
		Eventually(h.ends).WithContext(ctx).Should(Receive(MatchError(closeErr(4002, "done"))), "the host sees the client's close")
		Expect(readErr(ws)).To(MatchError(closeErr(4002, "")), "the client gets the host's answer (gorilla echoes the code only), not the tap's")
		Eventually(rec.summary).WithContext(ctx).Should(Equal([]string{"1 open v1", "1 close client closed: 4002 done"}))
		var closes []string
		for _, f := range rec.Frames() {
			if f.Control == tap.ControlClose {
				closes = append(closes, fmt.Sprintf("%s %d", f.Dir, int(f.Data[0])<<8|int(f.Data[1])))
			}
		}
		Expect(closes).To(Equal([]string{"C>H 4002", "H>C 4002"}))
	}, NodeTimeout(20*time.Second))

	It("holds a client offline while blocked, and lets it in again after unblock", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)
		Expect(p.Block()).To(Equal(1))
		Expect(websocket.IsCloseError(readErr(ws), websocket.CloseAbnormalClosure)).To(BeTrue())
		_, resp, err := websocket.DefaultDialer.DialContext(ctx, p.URL()+"/echo", nil)
		Expect(err).To(MatchError(websocket.ErrBadHandshake))
		Expect(resp.StatusCode).To(Equal(503))
		Expect(rec.summary()).To(ContainElement("2 refused blocked by the journey (tap block)"))
		p.Unblock()
		ws3 := dial(ctx, p.URL()+"/echo")
		_, data := read(ws3)
		Expect(string(data)).To(Equal("/echo"))
	}, NodeTimeout(20*time.Second))

	It("drops every live connection on both sides, and a reconnect gets the next number", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)

		Expect(p.Drop()).To(Equal(1))
		Expect(rec.summary()).To(Equal([]string{"1 open v1", "1 drop ", "1 close dropped"}), "recorded when Drop returns")
		err := readErr(ws)
		Expect(websocket.IsCloseError(err, websocket.CloseAbnormalClosure)).To(BeTrue(), "client sees a transport close: %v", err)
		Eventually(h.ends).WithContext(ctx).Should(Receive(Satisfy(func(err error) bool {
			return websocket.IsCloseError(err, websocket.CloseAbnormalClosure)
		})), "host sees a transport close")

		ws2 := dial(ctx, p.URL()+"/echo")
		read(ws2)
		Expect(ws2.WriteMessage(websocket.TextMessage, []byte("again"))).To(Succeed())
		_, data := read(ws2)
		Expect(string(data)).To(Equal("again"))
		frames := rec.Frames()
		Expect(frames[len(frames)-1].Conn).To(Equal(2))
		Expect(frames[len(frames)-1].Seq).To(Equal(len(frames)))

		Expect(p.Drop()).To(Equal(1))
		Expect(p.Drop()).To(Equal(0))
		Expect(rec.summary()).To(Equal([]string{
			"1 open v1", "1 drop ", "1 close dropped",
			"2 open v1", "2 drop ", "2 close dropped",
		}))
	}, NodeTimeout(20*time.Second))

	It("closes every live connection with a chosen code and reason, on both sides", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)

		Expect(p.CloseWith(4000, "maintenance")).To(Equal(1))
		Expect(rec.summary()).To(Equal([]string{"1 open v1", "1 close-with 4000 maintenance", "1 close tap closed with 4000 maintenance"}),
			"recorded when CloseWith returns")
		err := readErr(ws)
		Expect(websocket.IsCloseError(err, 4000)).To(BeTrue(), "the client sees the host close with 4000: %v", err)
		Expect(err).To(MatchError(ContainSubstring("maintenance")))
		Eventually(h.ends).WithContext(ctx).Should(Receive(Satisfy(func(err error) bool {
			return websocket.IsCloseError(err, 4000) && strings.Contains(err.Error(), "maintenance")
		})), "the host sees the client close with 4000")
		Expect(p.CloseWith(1012, "restart")).To(Equal(0), "nothing left to close")
	}, NodeTimeout(20*time.Second))

	It("holds a direction as a slow reader until Release, and records held messages when they go on", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)

		p.Hold(tap.HostToClient)
		p.Hold(tap.HostToClient) // twice is once
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("one"))).To(Succeed())
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("two"))).To(Succeed())
		got := make(chan string, 2)
		go func() {
			defer GinkgoRecover()
			for range 2 {
				_, data := read(ws)
				got <- string(data)
			}
		}()
		summary := func() (out []string) {
			for _, f := range rec.Frames() {
				out = append(out, string(f.Dir)+" "+string(f.Data))
			}
			return out
		}
		// The client's messages go on; the host's echoes wait, unrecorded.
		Eventually(summary).Should(Equal([]string{"H>C /echo", "C>H one", "C>H two"}))
		Consistently(got, 300*time.Millisecond).ShouldNot(Receive())
		Expect(summary()).To(HaveLen(3))

		p.Release(tap.HostToClient)
		p.Release(tap.HostToClient) // twice is once
		Eventually(got).Should(Receive(Equal("one")))
		Eventually(got).Should(Receive(Equal("two")))
		Expect(summary()).To(Equal([]string{"H>C /echo", "C>H one", "C>H two", "H>C one", "H>C two"}))

		// A held connection still drops at once.
		p.Hold(tap.HostToClient)
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("three"))).To(Succeed())
		Eventually(summary).Should(HaveLen(6))
		Expect(p.Drop()).To(Equal(1))
	}, NodeTimeout(20*time.Second))

	It("delays a direction's messages in order, reading on meanwhile, and forwards a close only after them", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)

		const d = 300 * time.Millisecond
		p.Delay(tap.HostToClient, d, 50*time.Millisecond)
		sent := time.Now()
		for _, m := range []string{"one", "two", "three"} {
			Expect(ws.WriteMessage(websocket.TextMessage, []byte(m))).To(Succeed())
		}
		// The tap reads the host's echoes at once (latency, not a slow reader): all three
		// are on their way before the first arrives.
		for _, m := range []string{"one", "two", "three"} {
			_, data := read(ws)
			Expect(string(data)).To(Equal(m), "in order")
			Expect(time.Since(sent)).To(BeNumerically(">=", d), "no message goes on before its delay")
		}
		var dirs []string
		for _, f := range rec.Frames() {
			dirs = append(dirs, string(f.Dir)+" "+string(f.Data))
		}
		Expect(dirs).To(Equal([]string{"H>C /echo", "C>H one", "C>H two", "C>H three", "H>C one", "H>C two", "H>C three"}),
			"a delayed message is recorded when it goes on")

		// The close the host answers with comes after the echoes still delayed.
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("last"))).To(Succeed())
		Expect(ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4001, "bye"))).To(Succeed())
		_, data := read(ws)
		Expect(string(data)).To(Equal("last"))
		Expect(readErr(ws)).To(MatchError(closeErr(4001, "")), "the host's answer (gorilla echoes the code only)")

		// Delay 0 ends it: a new connection's messages go on at once.
		p.Delay(tap.HostToClient, 0, 0)
		ws = dial(ctx, p.URL()+"/echo")
		read(ws)
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("quick"))).To(Succeed())
		_, data = read(ws)
		Expect(string(data)).To(Equal("quick"))
	}, NodeTimeout(20*time.Second))

	It("fragments a direction's messages into continuation frames, which each receiver puts back together", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		p.Fragment(tap.HostToClient, 2, 1)
		p.Fragment(tap.ClientToHost, 3, 0)
		// A client that reads the frames as they come, not gorilla's messages.
		conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "ws://"))
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "GET /echo HTTP/1.1\r\nHost: tap\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v1\r\n\r\n")
		Expect(err).NotTo(HaveOccurred())
		br := bufio.NewReader(conn)
		for {
			line, err := br.ReadString('\n')
			Expect(err).NotTo(HaveOccurred())
			if line == "\r\n" {
				break
			}
		}
		type wsFrame struct {
			op      byte
			fin     bool
			payload string
		}
		next := func() wsFrame {
			var hdr [2]byte
			_, err := io.ReadFull(br, hdr[:])
			Expect(err).NotTo(HaveOccurred())
			Expect(hdr[1]&0x80).To(BeZero(), "a server's frames are not masked")
			payload := make([]byte, hdr[1]&0x7f)
			_, err = io.ReadFull(br, payload)
			Expect(err).NotTo(HaveOccurred())
			return wsFrame{op: hdr[0] & 0x0f, fin: hdr[0]&0x80 != 0, payload: string(payload)}
		}
		Expect([]wsFrame{next(), next(), next()}).To(Equal([]wsFrame{{1, false, "/e"}, {0, false, "ch"}, {0, true, "o"}}))

		// A masked text message "hello" from the client: the tap cuts it into frames of 3
		// bytes for the host, which puts it together and echoes it (cut again on its way back).
		key := []byte{1, 2, 3, 4}
		msg := []byte("hello")
		masked := []byte{0x81, 0x80 | byte(len(msg))}
		masked = append(masked, key...)
		for i, b := range msg {
			masked = append(masked, b^key[i%4])
		}
		_, err = conn.Write(masked)
		Expect(err).NotTo(HaveOccurred())
		Expect([]wsFrame{next(), next(), next()}).To(Equal([]wsFrame{{1, false, "he"}, {0, false, "ll"}, {0, true, "o"}}))
		var got []string
		for _, f := range rec.Frames() {
			got = append(got, string(f.Dir)+" "+string(f.Data))
		}
		Expect(got).To(Equal([]string{"H>C /echo", "C>H hello", "H>C hello"}), "the tap records each message whole")
	}, NodeTimeout(20*time.Second))

	It("redelivers what a path's previous connection carried last to the next one, after its first messages", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		p.Redeliver(tap.HostToClient, 2, 1)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)
		for _, m := range []string{"a", "b", "c"} {
			Expect(ws.WriteMessage(websocket.TextMessage, []byte(m))).To(Succeed())
			_, data := read(ws)
			Expect(string(data)).To(Equal(m))
		}
		Expect(p.Drop()).To(Equal(1))

		// The reconnect: its own first message, then b and c once more, then its own.
		ws = dial(ctx, p.URL()+"/echo")
		_, data := read(ws)
		Expect(string(data)).To(Equal("/echo"))
		for _, m := range []string{"b", "c"} {
			_, data := read(ws)
			Expect(string(data)).To(Equal(m), "redelivered")
		}
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("d"))).To(Succeed())
		_, data = read(ws)
		Expect(string(data)).To(Equal("d"))
		Expect(p.Drop()).To(Equal(1))

		// Once per path: the next reconnect gets nothing again.
		ws = dial(ctx, p.URL()+"/echo")
		read(ws)
		Expect(ws.WriteMessage(websocket.TextMessage, []byte("e"))).To(Succeed())
		_, data = read(ws)
		Expect(string(data)).To(Equal("e"))
		var h2c []string
		for _, f := range rec.Frames() {
			if f.Dir == tap.HostToClient && f.Conn == 2 {
				h2c = append(h2c, string(f.Data))
			}
		}
		Expect(h2c).To(Equal([]string{"/echo", "b", "c", "d"}), "the transcript shows what the client got")
	}, NodeTimeout(20*time.Second))

	It("closes the client with 1011 when the host cannot be reached", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		down := "ws://" + ln.Addr().String()
		Expect(ln.Close()).To(Succeed())
		p := startTap(ctx, down, rec)

		ws := dial(ctx, p.URL()+"/echo")
		err = readErr(ws)
		Expect(websocket.IsCloseError(err, websocket.CloseInternalServerErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("connection refused")))
		Expect(rec.Events()).To(ConsistOf(And(
			HaveField("Conn", 1), HaveField("Event", tap.EventUpstreamError),
			HaveField("Path", "/echo"), HaveField("Detail", ContainSubstring("connection refused")))))
		Expect(rec.Frames()).To(BeEmpty())
	}, NodeTimeout(20*time.Second))

	It("reports a host that refuses the handshake", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/reject")
		Expect(websocket.IsCloseError(readErr(ws), websocket.CloseInternalServerErr)).To(BeTrue())
		Expect(rec.Events()).To(ConsistOf(And(
			HaveField("Event", tap.EventUpstreamError), HaveField("Detail", ContainSubstring("404")))))
	}, NodeTimeout(20*time.Second))

	It("closes live connections with 1001 on both sides and stops accepting", func(ctx SpecContext) {
		h := host()
		p := startTap(ctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)

		Expect(p.Close()).To(Succeed())
		Expect(readErr(ws)).To(MatchError(closeErr(websocket.CloseGoingAway, "tap closed")))
		Eventually(h.ends).WithContext(ctx).Should(Receive(MatchError(closeErr(websocket.CloseGoingAway, "tap closed"))))
		Expect(rec.summary()).To(Equal([]string{"1 open v1", "1 close tap closed"}))
		_, _, err := websocket.DefaultDialer.DialContext(ctx, p.URL()+"/echo", nil)
		Expect(err).To(HaveOccurred())
		Expect(p.Close()).To(Succeed(), "idempotent")
	}, NodeTimeout(20*time.Second))

	It("closes when its context is done", func(ctx SpecContext) {
		h := host()
		tctx, cancel := context.WithCancel(ctx)
		p := startTap(tctx, h.URL, rec)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws)
		cancel()
		Expect(readErr(ws)).To(MatchError(closeErr(websocket.CloseGoingAway, "tap closed")))
		Eventually(func() error {
			c, _, err := websocket.DefaultDialer.DialContext(ctx, p.URL()+"/echo", nil)
			if err == nil {
				c.Close()
			}
			return err
		}).WithContext(ctx).Should(HaveOccurred())
	}, NodeTimeout(20*time.Second))

	It("rejects an upstream that is not a ws URL", func(ctx SpecContext) {
		_, err := tap.Start(ctx, "http://127.0.0.1:1", nil)
		Expect(err).To(MatchError(ContainSubstring("want ws://, wss://, tcp:// or tls://host:port")))
	}, NodeTimeout(5*time.Second))
})

// MatchFields matches a frame's direction, type and bytes.
func MatchFields(dir tap.Direction, binary bool, data []byte) OmegaMatcher {
	return And(HaveField("Dir", dir), HaveField("Binary", binary), HaveField("Data", Equal(data)))
}
