package mobile_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/mobile"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// connect subscribes t1 through a scripted host and returns the host's side of the socket.
func connect(ctx SpecContext) (*mobile.Client, *websocket.Conn, *observe.Recorder) {
	GinkgoHelper()
	conns := make(chan *websocket.Conn, 1)
	paths := make(chan string, 1)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		paths <- r.URL.Path
		_ = ws.WriteJSON(wire.Ready{Type: wire.EventReady})
		conns <- ws
	}))
	DeferCleanup(srv.Close)
	rec := &observe.Recorder{}
	c := mobile.New(mobile.Options{BaseURL: "ws" + strings.TrimPrefix(srv.URL, "http"), Sink: rec})
	DeferCleanup(c.Close)
	Expect(c.Subscribe(ctx, "", "t1", 120, 40)).To(Succeed())
	Expect(<-paths).To(Equal(wire.PathSubscribe))
	ws := <-conns
	DeferCleanup(func() { _ = ws.Close() })

	Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	_, data, err := ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	f, err := wire.NewDecoder(wire.NewOpcodeSet(wire.All()...)).Decode(data)
	Expect(err).NotTo(HaveOccurred())
	Expect(f.Opcode).To(Equal(wire.OpSubscribe))
	Expect(string(f.Payload)).To(MatchJSON(`{"streamId":1,"terminal":"t1","client":{"id":"remoteterm-mobile","type":"mobile"},"viewport":{"cols":120,"rows":40}}`))
	Expect(ws.WriteJSON(wire.Subscribed{Type: wire.EventSubscribed, StreamID: 1, Terminal: "t1", Cols: 120, Rows: 40})).To(Succeed())
	send(ws, wire.OpSnapshotStart, 0, wire.SnapshotStart{Kind: "scrollback", Cols: 120, Rows: 40, Source: "headless"})
	send(ws, wire.OpSnapshotChunk, 0, "initial scrollback\r\n")
	send(ws, wire.OpSnapshotEnd, 0, nil)
	Eventually(func() []observe.RenderedSnapshot { return observe.Of[observe.RenderedSnapshot](rec) }).Should(HaveLen(1))
	return c, ws, rec
}

func send(ws *websocket.Conn, op wire.Opcode, seq uint64, v any) {
	GinkgoHelper()
	var p []byte
	switch v := v.(type) {
	case nil:
	case string:
		p = []byte(v)
	default:
		b, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		p = b
	}
	Expect(ws.WriteMessage(websocket.BinaryMessage, wire.Encode(wire.Header{Opcode: op, Stream: 1, Seq: seq}, p))).To(Succeed())
}

func screen(rec *observe.Recorder) string {
	if len(observe.Of[observe.RenderedOutput](rec)) == 0 {
		return ""
	}
	return string(observe.Screen(rec.All()))
}

var _ = Describe("the mobile client", func() {
	It("ignores Output seq: a downgraded transformed run paints without a resync", func(ctx SpecContext) {
		_, ws, rec := connect(ctx)
		send(ws, wire.OpOutput, 27, "cross-version live output\r\n")
		send(ws, wire.OpOutput, 0, "HEAD")     // delayed final seq: no seq
		send(ws, wire.OpOutput, 99999, "TAIL") // a "gap" a seq-tracking client would resync on
		Eventually(func() string { return screen(rec) }).Should(Equal("initial scrollback\r\ncross-version live output\r\nHEADTAIL"))
	}, SpecTimeout(10*time.Second))

	It("silently drops opcodes its vendored table does not know, and stays connected", func(ctx SpecContext) {
		_, ws, rec := connect(ctx)
		send(ws, wire.OpOutputSpan, 75, wire.OutputSpan{Data: "transformed run\r\n", RawLength: 48, Transformed: true})
		send(ws, wire.OpWriteUnavailable, 0, nil)
		send(ws, wire.OpOutput, 80, "after\r\n")
		Eventually(func() string { return screen(rec) }).Should(Equal("initial scrollback\r\nafter\r\n"))
		refused := observe.Of[observe.Refused](rec)
		Expect(refused).To(HaveLen(2))
		Expect(refused[0].Opcode).To(Equal(15))
		Expect(refused[0].Silent).To(BeTrue())
		Expect(refused[0].Direction).To(Equal("H>C"))
		Expect(refused[0].Reason).To(Equal("unknown opcode"))
		Expect(refused[1]).To(Equal(observe.Refused{Direction: "H>C", Opcode: 17, Length: 16, Reason: "unknown opcode", Silent: true}))
		Expect(observe.Of[observe.TransportClosed](rec)).To(BeEmpty())
	}, SpecTimeout(10*time.Second))

	It("sends input, resize and snapshot requests with its own table", func(ctx SpecContext) {
		c, ws, _ := connect(ctx)
		Expect(c.Input(ctx, "t1", []byte("echo hi\r"))).To(Succeed())
		Expect(c.Resize(ctx, "t1", 100, 30)).To(Succeed())
		Expect(c.RequestSnapshot(ctx, "t1", 200)).To(Succeed())
		Expect(c.Unsubscribe(ctx, "t1")).To(Succeed())
		dec := wire.NewDecoder(wire.NewOpcodeSet(wire.All()...))
		var got []string
		for range 4 {
			_, data, err := ws.ReadMessage()
			Expect(err).NotTo(HaveOccurred())
			f, err := dec.Decode(data)
			Expect(err).NotTo(HaveOccurred())
			got = append(got, f.Opcode.String()+" "+string(f.Payload))
		}
		Expect(got).To(Equal([]string{
			"Input echo hi\r",
			`Resize {"cols":100,"rows":30}`,
			`SnapshotRequest {"requestId":1,"scrollbackRows":200}`,
			"Unsubscribe ",
		}))
	}, SpecTimeout(10*time.Second))
})

var _ = Describe("what the host refuses, on mobile", func() {
	It("reads the write-unavailable Error frame as WriteUnavailable, and a refused subscribe as subscribe-failed", func(ctx SpecContext) {
		c, ws, rec := connect(ctx)
		send(ws, wire.OpError, 0, wire.ErrorWriteUnavailable)
		Eventually(func() []observe.WriteUnavailable { return observe.Of[observe.WriteUnavailable](rec) }).Should(
			ConsistOf(observe.WriteUnavailable{Terminal: "t1"}))

		Expect(c.Subscribe(ctx, "", "nope", 120, 40)).To(Succeed())
		Expect(ws.WriteJSON(wire.ErrorEvent{Type: wire.EventError, StreamID: 2, Code: "terminal_not_found", Message: `no terminal "nope"`})).To(Succeed())
		Eventually(func() []observe.SubscribeFailed { return observe.Of[observe.SubscribeFailed](rec) }).Should(
			ConsistOf(observe.SubscribeFailed{Terminal: "nope", Code: "terminal_not_found", Message: `no terminal "nope"`}))
		Expect(observe.Of[observe.Error](rec)).To(BeEmpty())
	}, SpecTimeout(10*time.Second))
})
