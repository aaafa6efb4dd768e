package host_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/host"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// started is a host serving on loopback, with what it observed.
type started struct {
	h   *host.Host
	url string
	rec *observe.Recorder
}

func startHost(f release.Features) started {
	GinkgoHelper()
	rec := &observe.Recorder{}
	h := host.New(host.Options{Features: f, Sink: rec})
	mux := http.NewServeMux()
	h.Register(mux)
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	DeferCleanup(h.Close)
	return started{h: h, url: "ws" + strings.TrimPrefix(srv.URL, "http"), rec: rec}
}

func (s started) emit(text string) {
	t, ok := s.h.Terminal("t1")
	Expect(ok).To(BeTrue())
	t.Emit([]byte(text))
}

func (s started) emitTransformed(text string, raw uint64) {
	t, ok := s.h.Terminal("t1")
	Expect(ok).To(BeTrue())
	t.EmitTransformed([]byte(text), raw)
}

// peer is a bare WebSocket client that reads the host's messages one by one.
type peer struct {
	ws *websocket.Conn
}

type message struct {
	event *wire.Event
	frame *wire.Frame
}

func (m message) String() string {
	if m.event != nil {
		return "event " + m.event.Type
	}
	return "frame " + m.frame.Opcode.String()
}

func dial(s started, path string) *peer {
	GinkgoHelper()
	ws, _, err := websocket.DefaultDialer.Dial(s.url+path, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = ws.Close() })
	p := &peer{ws: ws}
	Expect(p.event().Type).To(Equal(wire.EventReady))
	return p
}

var everyOpcode = wire.NewDecoder(wire.NewOpcodeSet(wire.All()...))

func (p *peer) next() message {
	GinkgoHelper()
	Expect(p.ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	typ, data, err := p.ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	if typ == websocket.TextMessage {
		ev, err := wire.DecodeEvent(data)
		Expect(err).NotTo(HaveOccurred())
		return message{event: &ev}
	}
	f, err := everyOpcode.Decode(data)
	Expect(err).NotTo(HaveOccurred())
	return message{frame: &f}
}

func (p *peer) event() wire.Event {
	GinkgoHelper()
	m := p.next()
	Expect(m.event).NotTo(BeNil(), "got %v", m)
	return *m.event
}

func (p *peer) frame(op wire.Opcode) wire.Frame {
	GinkgoHelper()
	m := p.next()
	Expect(m.frame).NotTo(BeNil(), "got %v", m)
	Expect(m.frame.Opcode).To(Equal(op))
	return *m.frame
}

func (p *peer) send(op wire.Opcode, stream uint32, v any) {
	GinkgoHelper()
	var payload []byte
	switch v := v.(type) {
	case nil:
	case []byte:
		payload = v
	default:
		b, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		payload = b
	}
	Expect(p.ws.WriteMessage(websocket.BinaryMessage, wire.Encode(wire.Header{Opcode: op, Stream: stream}, payload))).To(Succeed())
}

// subscribe subscribes t1 on stream 1 and returns the subscribed event and the initial
// snapshot's start and data.
func (p *peer) subscribe(caps wire.Capabilities) (wire.Subscribed, map[string]any, string) {
	GinkgoHelper()
	p.send(wire.OpSubscribe, 0, wire.Subscribe{StreamID: 1, Terminal: "t1",
		Client: &wire.Client{ID: "spec", Type: "desktop"}, Viewport: &wire.Viewport{Cols: 120, Rows: 40}, Capabilities: caps})
	ev := p.event()
	Expect(ev.Type).To(Equal(wire.EventSubscribed))
	var sub wire.Subscribed
	Expect(ev.Decode(&sub)).To(Succeed())
	start, data := p.snapshot()
	return sub, start, data
}

// snapshot reads SnapshotStart, its chunks and SnapshotEnd.
func (p *peer) snapshot() (map[string]any, string) {
	GinkgoHelper()
	f := p.frame(wire.OpSnapshotStart)
	var start map[string]any
	Expect(json.Unmarshal(f.Payload, &start)).To(Succeed())
	var data []byte
	for {
		m := p.next()
		Expect(m.frame).NotTo(BeNil(), "got %v", m)
		if m.frame.Opcode == wire.OpSnapshotEnd {
			return start, string(data)
		}
		Expect(m.frame.Opcode).To(Equal(wire.OpSnapshotChunk))
		Expect(len(m.frame.Payload)).To(BeNumerically("<=", 49152))
		data = append(data, m.frame.Payload...)
	}
}
