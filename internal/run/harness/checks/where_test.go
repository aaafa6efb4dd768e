package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("where: what a frame carries", func() {
	// MQTT over WebSocket: the first byte is the packet type (high nibble) and its flags,
	// DUP, QoS and RETAIN; then the remaining length as a varint.
	mqtt, err := contract.Parse("mqtt", []byte(`{"contractVersion":2,"channels":[{"name":"mqtt","paths":["/mqtt"],
	  "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},
	    {"name":"dup","offset":0,"encoding":"u8","mask":8,"shift":3},{"name":"qos","offset":0,"encoding":"u8","mask":6,"shift":1},
	    {"name":"retain","offset":0,"encoding":"u8","mask":1},{"name":"length","encoding":"varint"}]},"stream":true},
	  "text":{"json":{"discriminator":"type"}},
	  "frames":[{"opcode":3,"name":"PUBLISH","direction":"both","payload":"binary","fields":{"topic":{"offset":0,"encoding":"string-u16be"}}},
	    {"type":"note","name":"note","direction":"both","payload":"json"}]}]}`))
	Expect(err).NotTo(HaveOccurred())
	j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep a\nclient x\n"))
	Expect(err).NotTo(HaveOccurred())

	// publish is a PUBLISH of topic a/b with the first byte's flags.
	publish := func(first byte) []byte {
		return []byte{first, 0x0c, 0x00, 0x03, 'a', '/', 'b', 0x00, 0x07, 'h', 'e', 'l', 'l', 'o'}
	}
	named := func(frames ...[]byte) (*checks.Input, []checks.Named) {
		t := &transcript.Transcript{Kind: "cli", Conns: []transcript.ConnEvent{{Conn: 1, Path: "/mqtt", Event: "open"}}}
		for i, f := range frames {
			binary := f[0] != '{'
			t.Frames = append(t.Frames, transcript.Frame{Index: i + 1, Conn: 1, Path: "/mqtt", Dir: "C>H", Binary: binary, Data: f, Step: "a"})
		}
		in := &checks.Input{Transcript: t, Journey: j, Host: mqtt, Client: mqtt}
		return in, checks.NameFrames(in)
	}

	It("reads header bit fields, binary payload fields and JSON pointers, as text", func() {
		_, ns := named(publish(0x3b), []byte(`{"type":"note","params":{"seq":2,"ok":true,"tags":["x"]}}`))
		Expect(ns).To(HaveLen(2))
		p := ns[0]
		for key, want := range map[string]string{"type": "3", "dup": "1", "qos": "1", "retain": "1", "topic": "a/b"} {
			v, ok := p.Value(key)
			Expect(ok).To(BeTrue(), key)
			Expect(v).To(Equal(want), key)
		}
		_, ok := p.Value("length") // consumed by the framing, not exposed
		Expect(ok).To(BeFalse())
		Expect(p.Carries([]checks.Where{{Key: "qos", Value: "1"}, {Key: "dup", Value: "1"}})).To(BeTrue())
		Expect(p.Carries([]checks.Where{{Key: "dup", Value: "0"}})).To(BeFalse(), "the wrong header bit")

		n := ns[1]
		for key, want := range map[string]string{"/params/seq": "2", "/params/ok": "true", "/params/tags": `["x"]`, "/type": "note"} {
			v, ok := n.Value(key)
			Expect(ok).To(BeTrue(), key)
			Expect(v).To(Equal(want), key)
		}
		Expect(n.Carries([]checks.Where{{Key: "/params/seq", Value: "3"}})).To(BeFalse(), "the wrong payload value")
		Expect(n.Carries([]checks.Where{{Key: "/params/missing", Value: ""}})).To(BeFalse())
		Expect(n.Carries([]checks.Where{{Key: "qos", Value: "1"}})).To(BeFalse(), "a JSON frame has no header")
	})

	It("holds [frame:NAME where K=V] only once such a frame was tapped", func() {
		in, _ := named(publish(0x32)) // QoS 1, no DUP
		conds := checks.Conditions(in)
		has := func(name string) bool { return conds(0, name) }
		Expect(has("frame:PUBLISH")).To(BeTrue())
		Expect(has("frame:PUBLISH where qos=1 dup=0")).To(BeTrue())
		Expect(has("frame:PUBLISH where dup=1")).To(BeFalse())
		Expect(has("frame:PUBLISH where topic=c/d")).To(BeFalse())
	})

	It("knows the bare keys a contract gives a frame", func() {
		Expect(checks.WhereKeys(mqtt, "PUBLISH")).To(Equal([]string{"dup", "qos", "retain", "topic", "type"}))
		Expect(checks.WhereKeys(mqtt, "note")).To(BeEmpty())
	})
})
