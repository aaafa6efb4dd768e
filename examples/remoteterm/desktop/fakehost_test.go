package desktop_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// fakeHost is a scripted host: it accepts a connection, says ready and hands the socket to
// the spec, which plays the host's part frame by frame.
type fakeHost struct {
	url   string
	conns chan *websocket.Conn
}

func newFakeHost() *fakeHost {
	GinkgoHelper()
	fh := &fakeHost{conns: make(chan *websocket.Conn, 4)}
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		_ = ws.WriteJSON(wire.Ready{Type: wire.EventReady})
		fh.conns <- ws
	}))
	DeferCleanup(srv.Close)
	fh.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return fh
}

// accept returns the next connection the client made.
func (fh *fakeHost) accept() *side {
	GinkgoHelper()
	var ws *websocket.Conn
	Eventually(fh.conns).Should(Receive(&ws))
	DeferCleanup(func() { _ = ws.Close() })
	return &side{ws: ws}
}

// side is the host's end of one connection.
type side struct {
	ws *websocket.Conn
}

func (s *side) send(op wire.Opcode, stream uint32, seq uint64, v any) {
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
	Expect(s.ws.WriteMessage(websocket.BinaryMessage, wire.Encode(wire.Header{Opcode: op, Stream: stream, Seq: seq}, p))).To(Succeed())
}

func (s *side) event(v any) {
	GinkgoHelper()
	Expect(s.ws.WriteJSON(v)).To(Succeed())
}

func (s *side) snapshot(stream uint32, seq uint64, data string) {
	GinkgoHelper()
	s.send(wire.OpSnapshotStart, stream, seq, wire.SnapshotStart{Kind: "scrollback", Cols: 120, Rows: 40, Seq: seq, Source: "headless"})
	s.send(wire.OpSnapshotChunk, stream, 0, data)
	s.send(wire.OpSnapshotEnd, stream, 0, nil)
}

var anyOpcode = wire.NewDecoder(wire.NewOpcodeSet(wire.All()...))

// read returns the client's next frame.
func (s *side) read() wire.Frame {
	GinkgoHelper()
	Expect(s.ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	_, data, err := s.ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	f, err := anyOpcode.Decode(data)
	Expect(err).NotTo(HaveOccurred())
	return f
}

// readSkippingAcks returns the client's next frame that is not an Ack, and the acked
// byte counts it skipped.
func (s *side) readSkippingAcks() (wire.Frame, []uint64) {
	GinkgoHelper()
	var acked []uint64
	for {
		f := s.read()
		if f.Opcode != wire.OpAck {
			return f, acked
		}
		var a wire.Ack
		Expect(wire.DecodeJSON(f, &a)).To(Succeed())
		Expect(a.Bytes).NotTo(BeNil())
		acked = append(acked, *a.Bytes)
	}
}
