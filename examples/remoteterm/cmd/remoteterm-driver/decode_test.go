package main_test

import (
	"encoding/base64"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// frame is one frame of a decode action, from frame bytes the product's encoders made.
func frame(id int, dir, path string, binary bool, data []byte) line {
	return line{"id": id, "dir": dir, "path": path, "binary": binary, "data": base64.StdEncoding.EncodeToString(data)}
}

// decode sends the decode action and returns its answers, in the order of frames.
func (p *proc) decode(frames ...line) []line {
	GinkgoHelper()
	data := p.ok(p.send("decode", line{"frames": frames}))
	answers, _ := data["frames"].([]any)
	Expect(answers).To(HaveLen(len(frames)))
	out := make([]line, len(answers))
	for i, a := range answers {
		out[i] = a.(line)
		Expect(out[i]).To(HaveKeyWithValue("id", float64(i+1)), "answers in the order of frames")
	}
	return out
}

func encodeJSON(h wire.Header, v any) []byte {
	GinkgoHelper()
	b, err := wire.EncodeJSON(h, v)
	Expect(err).NotTo(HaveOccurred())
	return b
}

func encodeSession(f session.Frame) []byte {
	GinkgoHelper()
	b, err := session.Encode(f)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// serverInfoPlus is a serverInfo from a newer daemon: one key more.
type serverInfoPlus struct {
	session.ServerInfo
	Region string `json:"region"`
}

func (serverInfoPlus) FrameType() session.Type { return session.TypeServerInfo }

var _ = Describe("remoteterm-driver decode", func() {
	var (
		output = wire.Encode(wire.Header{Opcode: wire.OpOutput, Stream: 1, Seq: 5}, []byte("hello"))
		span   = encodeJSON(wire.Header{Opcode: wire.OpOutputSpan, Stream: 1, Seq: 9}, wire.OutputSpan{Data: "→", RawLength: 4, Transformed: true})
		input  = wire.Encode(wire.Header{Opcode: wire.OpInput, Stream: 1}, []byte("ls\r"))
		info   = session.ServerInfo{AppVersion: "v9", ProtocolVersion: 2, MinCompatibleProtocolVersion: 2,
			Features: session.Features{"serverRequests": true}, Commands: map[string][]int{"ping": {1}}}
	)

	It("refuses OutputSpan in a desktop client that predates it, and names Output", func(_ SpecContext) {
		c := start([]string{`REMOTETERM_FEATURES={"outputSpan":false}`}, "client", "desktop")
		Eventually(func() []line { return c.all() }).ShouldNot(BeEmpty())
		Expect(c.all()[0]["actions"]).To(ContainElement("decode"))
		got := c.decode(
			frame(1, "H>C", wire.PathMultiplex, true, span),
			frame(2, "H>C", wire.PathMultiplex, true, output))
		Expect(got[0]).To(And(HaveKeyWithValue("refused", true), HaveKeyWithValue("opcode", 15.0),
			HaveKeyWithValue("reason", ContainSubstring("unknown opcode"))))
		Expect(got[1]).To(Equal(line{"id": 2.0, "type": "Output", "opcode": 1.0, "fields": line{"text": "hello"}}))
	}, SpecTimeout(30*time.Second))

	It("decodes OutputSpan in a desktop client with outputSpan, and refuses what it does not receive", func(_ SpecContext) {
		c := start(nil, "client", "desktop")
		got := c.decode(
			frame(1, "H>C", wire.PathMultiplex, true, span),
			frame(2, "C>H", wire.PathMultiplex, true, input),
			frame(3, "H>C", "/session", false, encodeSession(info)),
			frame(4, "H>C", wire.PathSubscribe, false, []byte(`{"type":"end","streamId":1,"reason":"unsubscribed","extra":true}`)),
			frame(5, "H>C", wire.PathMultiplex, true, wire.Encode(wire.Header{Opcode: wire.OpInput, Stream: 1}, []byte("x"))))
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "OutputSpan", "opcode": 15.0,
			"fields": line{"data": "→", "rawLength": 4.0, "transformed": true}}))
		Expect(got[1]).To(Equal(line{"id": 2.0, "refused": true, "reason": "desktop client does not receive C>H frames"}))
		Expect(got[2]).To(Equal(line{"id": 3.0, "refused": true, "reason": "no decoder for path /session"}))
		// The desktop reads End as its own type: the key it does not know is not read.
		Expect(got[3]).To(Equal(line{"id": 4.0, "type": "end", "opcode": 0.0, "fields": line{"streamId": 1.0, "reason": "unsubscribed"}}))
		Expect(got[4]).To(Equal(line{"id": 5.0, "type": "Input", "opcode": 7.0, "refused": true, "reason": "ignoring C>H Input from the host"}))
	}, SpecTimeout(30*time.Second))

	It("refuses in the mobile client what its vendored decoder does not know, silently", func(_ SpecContext) {
		m := start(nil, "client", "mobile")
		got := m.decode(
			frame(1, "H>C", wire.PathSubscribe, true, span),
			frame(2, "H>C", wire.PathSubscribe, true, output))
		Expect(got[0]).To(Equal(line{"id": 1.0, "opcode": 15.0, "refused": true, "reason": "unknown opcode: dropped silently"}))
		Expect(got[1]).To(Equal(line{"id": 2.0, "type": "Output", "opcode": 1.0, "fields": line{"text": "hello"}}))
	}, SpecTimeout(30*time.Second))

	It("refuses an added key in a session client with strictSessionDecoder, and ignores it without", func(_ SpecContext) {
		plus := encodeSession(serverInfoPlus{ServerInfo: info, Region: "eu"})

		strict := start([]string{`REMOTETERM_FEATURES={"strictSessionDecoder":true}`}, "client", "session")
		got := strict.decode(frame(1, "H>C", "/session", false, plus))
		Expect(got[0]).To(And(HaveKeyWithValue("refused", true), HaveKeyWithValue("type", "serverInfo"),
			HaveKeyWithValue("reason", And(ContainSubstring("region"), ContainSubstring("unknown key")))))

		tolerant := start(nil, "client", "session")
		got = tolerant.decode(
			frame(1, "H>C", "/session", false, plus),
			frame(2, "H>C", "/session", false, encodeSession(session.Hello{ClientID: "c", ClientType: "session", ProtocolVersion: 2, MinCompatibleProtocolVersion: 2})),
			frame(3, "H>C", wire.PathMultiplex, true, output))
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "serverInfo", "opcode": 0.0, "fields": line{
			"appVersion": "v9", "protocolVersion": 2.0, "minCompatibleProtocolVersion": 2.0,
			"features": line{"serverRequests": true}, "commands": line{"ping": []any{1.0}},
		}}))
		Expect(got[1]).To(Equal(line{"id": 2.0, "type": "hello", "refused": true,
			"reason": `frame type "hello" is sent by a client, not accepted from the host`}))
		Expect(got[2]).To(Equal(line{"id": 3.0, "refused": true, "reason": "no decoder for path /terminal.multiplex"}))
	}, SpecTimeout(30*time.Second))

	It("decodes C>H frames in the host, on the terminal paths and on /session, and refuses H>C frames", func(_ SpecContext) {
		h := start(nil, "host")
		readyURL(h)
		got := h.decode(
			frame(1, "C>H", wire.PathMultiplex, true, input),
			frame(2, "H>C", wire.PathMultiplex, true, output),
			frame(3, "C>H", wire.PathMultiplex, true, output),
			frame(4, "C>H", wire.PathSubscribe, true, encodeJSON(wire.Header{Opcode: wire.OpResize, Stream: 1}, map[string]any{"cols": "100", "rows": 30})),
			frame(5, "C>H", "/session", false, encodeSession(session.Hello{ClientID: "c", ClientType: "session", ProtocolVersion: 2, MinCompatibleProtocolVersion: 2})),
			frame(6, "C>H", wire.PathMultiplex, false, []byte(`{"type":"ready"}`)))
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "Input", "opcode": 7.0, "fields": line{"text": "ls\r"}}))
		Expect(got[1]).To(Equal(line{"id": 2.0, "refused": true, "reason": "host does not receive H>C frames"}))
		Expect(got[2]).To(Equal(line{"id": 3.0, "type": "Output", "opcode": 1.0, "refused": true,
			"reason": "opcode 1 (Output) travels host to client; a host does not accept it"}))
		Expect(got[3]).To(And(HaveKeyWithValue("type", "Resize"), HaveKeyWithValue("refused", true),
			HaveKeyWithValue("reason", ContainSubstring("decode Resize payload"))))
		Expect(got[4]).To(Equal(line{"id": 5.0, "type": "hello", "opcode": 0.0, "fields": line{
			"clientId": "c", "clientType": "session", "protocolVersion": 2.0, "minCompatibleProtocolVersion": 2.0}}))
		Expect(got[5]).To(Equal(line{"id": 6.0, "refused": true, "reason": "ignoring a text message from the client"}))
	}, SpecTimeout(30*time.Second))

	It("applies REMOTETERM_DECODER_WITHOUT to the host's decoder", func(_ SpecContext) {
		h := start([]string{"REMOTETERM_DECODER_WITHOUT=7"}, "host")
		readyURL(h)
		got := h.decode(frame(1, "C>H", wire.PathMultiplex, true, input))
		Expect(got[0]).To(Equal(line{"id": 1.0, "opcode": 7.0, "refused": true, "reason": "unknown opcode"}))
	}, SpecTimeout(30*time.Second))
})
