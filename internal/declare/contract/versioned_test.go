package contract_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

var _ = Describe("versioned shapes", func() {
	// mqtt is an MQTT-style contract of a build speaking protocol version (MQTT's level)
	// down to minCompatible, with DISCONNECT as given.
	mqtt := func(version, minCompatible int, disconnect string) *contract.Contract {
		GinkgoHelper()
		c, err := contract.Parse(fmt.Sprintf("v%d.json", version), []byte(fmt.Sprintf(`{"contractVersion":2,
		  "protocol":{"version":%d,"minCompatible":%d},
		  "channels":[{"name":"mqtt","paths":["/mqtt"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},
		      {"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[
		      {"opcode":2,"name":"CONNACK","direction":"H>C","payload":"binary","fields":{
		        "returnCode":{"offset":1,"encoding":"u8","required":true},
		        "properties":{"offset":2,"encoding":"rest","since":5}}},
		      %s]}]}`, version, minCompatible, disconnect)))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	// MQTT 3.1.1's DISCONNECT is empty; MQTT 5's carries a reason code.
	v4 := mqtt(4, 4, `{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty"}`)
	versioned := `{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty",
	  "variants":[{"since":5,"payload":"binary","fields":{"reasonCode":{"offset":0,"encoding":"u8","required":true}}}]}`
	v5 := mqtt(5, 4, versioned)

	It("gives a frame's shape at a negotiated version: variants and bounded fields", func() {
		d := v5.Channels[0].Frames[1]
		Expect(d.Shape(4).Payload).To(Equal("empty"))
		Expect(d.Shape(4).Fields).To(BeEmpty())
		s := d.Shape(5)
		Expect(s.Payload).To(Equal("binary"))
		Expect(s.PayloadAt).To(Equal("/variants/0/payload"))
		Expect(s.FieldsAt).To(Equal("/variants/0/fields"))
		Expect(s.Fields).To(HaveKey("reasonCode"))
		Expect(d.Shape(0).Payload).To(Equal("empty"), "an unknown version reads the frame as written")

		ack := v5.Channels[0].Frames[0]
		Expect(ack.Shape(4).Fields).To(HaveLen(1))
		Expect(ack.Shape(5).Fields).To(HaveLen(2))
		Expect(ack.Shape(0).Fields).To(HaveLen(2))
		Expect(ack.At(4).Fields).NotTo(HaveKey("properties"))
		Expect(v5.Channels[0].Frames[0].Fields).To(HaveKey("properties"), "At leaves the contract alone")
	})

	It("lets the static tier compare what the older build's peers see", func() {
		// Protocol 5 speaks 4 to a 3.1.1 peer: its DISCONNECT is still empty there, and
		// CONNACK's properties do not exist for it.
		Expect(contract.Diff(v4, v5, contract.DiffOptions{})).To(BeEmpty())

		// The negative control: the same change without the variant breaks every 3.1.1 peer.
		unversioned := mqtt(5, 4, `{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"binary",
		  "fields":{"reasonCode":{"offset":0,"encoding":"u8","required":true}}}`)
		vs := contract.Diff(v4, unversioned, contract.DiffOptions{})
		Expect(vs).To(ContainElement(HaveField("Rule", contract.RulePayloadChanged)))

		// Between two protocol 5 builds the variant is compared like any shape: dropping the
		// reason code is a removed field, at the variant's pointer.
		older := mqtt(5, 4, versioned)
		newer := mqtt(5, 4, `{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty",
		  "variants":[{"since":5,"payload":"binary","fields":{}}]}`)
		vs = contract.Diff(older, newer, contract.DiffOptions{})
		Expect(vs).To(ConsistOf(SatisfyAll(HaveField("Rule", contract.RuleFieldRemoved),
			HaveField("Pointer", "/channels/0/frames/1/variants/0/fields/reasonCode"))))
	})

	It("checks a frame's fields at the negotiated version", func() {
		d := &v5.Channels[0].Frames[1]
		Expect(d.At(5).CheckFields(map[string]any{})).To(ConsistOf(HaveField("Rule", "required")))
		Expect(d.At(4).CheckFields(map[string]any{})).To(BeEmpty())
		Expect(contract.Negotiated(v4.Protocol, v5.Protocol)).To(Equal(4))
		Expect(contract.Negotiated(contract.Protocol{}, v5.Protocol)).To(Equal(5))
	})

	DescribeTable("refuses ranges that are not",
		func(frame, want string) {
			_, err := contract.Parse("bad.json", []byte(`{"contractVersion":2,"channels":[{"name":"c","paths":["/c"],
			  "text":{"json":{"discriminator":"type"}},"frames":[`+frame+`]}]}`))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("until before since", `{"type":"a","name":"a","direction":"H>C","payload":"json","fields":{"x":{"since":5,"until":4}}}`,
			"/channels/0/frames/0/fields/x/until: until 4 is before since 5: the range holds no version"),
		Entry("a negative since", `{"type":"a","name":"a","direction":"H>C","payload":"json","fields":{"x":{"since":-1}}}`,
			"/channels/0/frames/0/fields/x/since: since -1 is not a protocol version: give 1 or more"),
		Entry("a range on items", `{"type":"a","name":"a","direction":"H>C","payload":"json","fields":{"x":{"type":"array","items":{"since":2}}}}`,
			"/channels/0/frames/0/fields/x/items: since and until belong to a field, not to an array's items"),
		Entry("a variant without a range", `{"type":"a","name":"a","direction":"H>C","payload":"json","variants":[{"payload":"empty"}]}`,
			"/channels/0/frames/0/variants/0: a variant needs since or until"),
		Entry("a variant with a bad payload", `{"type":"a","name":"a","direction":"H>C","variants":[{"since":2,"payload":"xml"}]}`,
			`/channels/0/frames/0/variants/0/payload: payload "xml" is not text, json, empty, binary or protobuf`),
		Entry("an unknown key in a variant", `{"type":"a","name":"a","direction":"H>C","variants":[{"since":2,"fields":{},"feilds":{}}]}`,
			`unknown key "feilds"`),
	)
})

var _ = Describe("a stream read at a protocol version", func() {
	c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"channels":[{"name":"mqtt","paths":["/mqtt"],
	  "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
	  "frames":[{"opcode":2,"name":"CONNACK","direction":"H>C","payload":"binary","fields":{
	      "returnCode":{"offset":1,"encoding":"u8","until":4},"properties":{"offset":2,"encoding":"rest","since":5}}},
	    {"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty",
	      "variants":[{"since":5,"payload":"binary","fields":{"reasonCode":{"offset":0,"encoding":"u8"}}}]}]}]}`))
	Expect(err).NotTo(HaveOccurred())
	value := func(version int, frame []byte) any {
		GinkgoHelper()
		ps := c.Channels[0].NewStream(contract.HostToClient).At(version).Feed(true, frame)
		Expect(ps).To(HaveLen(1))
		Expect(ps[0].Err).NotTo(HaveOccurred())
		return ps[0].Decoded.Value
	}

	It("reads the fields and variants of that version only", func() {
		connack := []byte{0x20, 0x03, 0x00, 0x00, 0x07}
		Expect(value(5, connack)).To(Equal(map[string]any{"properties": []any{float64(7)}}))
		Expect(value(4, connack)).To(Equal(map[string]any{"returnCode": float64(0)}))
		disconnect := []byte{0xe0, 0x01, 0x8e}
		Expect(value(5, disconnect)).To(Equal(map[string]any{"reasonCode": float64(0x8e)}))
		Expect(value(4, disconnect)).To(BeNil(), "3.1.1's DISCONNECT is empty")
	})

	It("reads every field of the frame as written without a version (the negative control)", func() {
		Expect(value(0, []byte{0x20, 0x03, 0x00, 0x00, 0x07})).To(Equal(map[string]any{"returnCode": float64(0), "properties": []any{float64(7)}}))
		Expect(value(0, []byte{0xe0, 0x01, 0x8e})).To(BeNil(), "as written, DISCONNECT is empty")
	})
})
