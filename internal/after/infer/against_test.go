package infer_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/declare/contract"
)

// handWritten is a contract for the traffic of Against's specs, as a team might have
// written it: hello lacks nothing, welcome lists a field and an enum value the traffic never
// shows, bye is never sent, ping's n is declared a string, and the host's event is missing.
const handWritten = `{
  "contractVersion": 2, "product": "p",
  "channels": [{"name": "ws", "paths": ["/ws"], "text": {"json": {"discriminator": "type"}},
    "frames": [
      {"type": "hello", "name": "hello", "direction": "C>H", "payload": "json", "fields": {"client": {"type": "string", "required": true}}},
      {"type": "welcome", "name": "welcome", "direction": "H>C", "payload": "json", "fields": {
        "mode": {"type": "string", "enum": ["fast", "slow"]}, "motd": {"type": "string"}}},
      {"type": "bye", "name": "bye", "direction": "both"},
      {"type": "ping", "name": "ping", "direction": "both", "payload": "json", "fields": {"n": {"type": "string"}}}
    ]}]}`

var _ = Describe("A contract against the traffic", func() {
	var recs []infer.Recording

	BeforeEach(func() {
		recs = []infer.Recording{recording("desktop",
			text("C>H", "/ws", `{"type":"hello","client":"c","extra":1}`),
			text("H>C", "/ws", `{"type":"welcome","mode":"fast"}`),
			text("C>H", "/ws", `{"type":"ping","n":1}`),
			text("H>C", "/ws", `{"type":"ping","n":"2"}`),
			text("H>C", "/ws", `{"type":"event"}`),
			text("H>C", "/ws", `{"type":"event"}`),
		)}
	})

	It("lists frames it cannot read, what it declares that the traffic never showed and values that break it", func() {
		c, err := contract.Parse("hand.json", []byte(handWritten))
		Expect(err).NotTo(HaveOccurred())
		cmp := infer.Against(c, recs)
		Expect(cmp.Disagree()).To(BeTrue())
		Expect(cmp.Messages).To(Equal(6))
		Expect(cmp.Unread).To(ConsistOf(And(
			HaveField("What", "/ws H>C event: the contract lists no such frame from host to client for a desktop client"),
			HaveField("Count", 2), HaveField("First", HaveSuffix("#4 H>C event: the contract lists no such frame from host to client for a desktop client")))))
		Expect(cmp.NeverFrames).To(Equal([]string{`ws: H>C bye (type "bye")`, `ws: C>H bye (type "bye")`}))
		Expect(cmp.NeverFields).To(Equal([]string{"ws: H>C welcome /motd"}))
		Expect(cmp.NeverValues).To(Equal([]string{`ws: H>C welcome /mode = "slow"`}))
		Expect(cmp.Broken).To(ConsistOf(And(HaveField("What", "C>H ping /n: type"), HaveField("First", ContainSubstring("/n is a number (1), want a string")))))
		Expect(cmp.Unlisted).To(ConsistOf(HaveField("What", "C>H hello /extra")), "the discriminator is no unlisted field")

		var out bytes.Buffer
		Expect(cmp.Write(&out)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("traffic the contract cannot read (1):\n  /ws H>C event: the contract lists no such frame from host to client for a desktop client: 2 frames; first "))
		Expect(out.String()).To(HaveSuffix("the contract and the traffic disagree: 1 unread, 4 never shown, 1 broken (6 messages in 1 recording)\n"))
	})

	It("agrees with the draft made from the same traffic", func() {
		cmp := infer.Against(draft(recs...).Contract, recs)
		Expect(cmp.Disagree()).To(BeFalse(), "%+v", cmp)
		var out bytes.Buffer
		Expect(cmp.Write(&out)).To(Succeed())
		Expect(out.String()).To(Equal("the contract and the traffic agree (6 messages in 1 recording)\n"))
	})
})
