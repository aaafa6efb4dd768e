package contract_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

func jsonValue(s string) any {
	GinkgoHelper()
	var v any
	Expect(json.Unmarshal([]byte(s), &v)).To(Succeed())
	return v
}

var _ = Describe("Field checks", func() {
	var rpc *contract.Channel
	BeforeEach(func() { rpc = mustChannel(jsonrpcDoc, "/rpc") })

	DescribeTable("JSON frames",
		func(frame, value string, want []contract.FieldProblem) {
			f := rpc.Named(frame, "", "")
			Expect(f.CheckFields(jsonValue(value))).To(Equal(want))
		},
		Entry("all fine, unknown fields ignored", "initialize",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}},"extra":true}`, nil),
		Entry("missing required", "initialize", `{"jsonrpc":"2.0","params":{"clientInfo":{"name":"x"}}}`,
			[]contract.FieldProblem{{Pointer: "/id", Rule: "required", Want: "present"}}),
		Entry("wrong type and integer", "initialize", `{"jsonrpc":"2.0","id":1.5,"params":[]}`,
			[]contract.FieldProblem{
				{Pointer: "/id", Rule: "type", Got: 1.5, Want: "an integer"},
				{Pointer: "/params", Rule: "type", Got: []any{}, Want: "an object"}}),
		Entry("enum", "initialize", `{"jsonrpc":"1.0","id":1,"params":{"clientInfo":{"name":"x"}}}`,
			[]contract.FieldProblem{{Pointer: "/jsonrpc", Rule: "enum", Got: "1.0", Want: `one of "2.0"`}}),
		Entry("nested object", "initialize", `{"jsonrpc":"2.0","id":1,"params":{"clientInfo":{"name":3}}}`,
			[]contract.FieldProblem{{Pointer: "/params/clientInfo/name", Rule: "type", Got: 3.0, Want: "a string"}}),
		Entry("array of objects", "result", `{"id":1,"result":{"tools":[{"name":"a"},{"kind":"read"},{"name":"c","kind":"delete"}]}}`,
			[]contract.FieldProblem{
				{Pointer: "/result/tools/1/name", Rule: "required", Want: "present"},
				{Pointer: "/result/tools/2/kind", Rule: "enum", Got: "delete", Want: `one of "read", "write"`}}),
		Entry("not an object at all", "initialize", `"hello"`,
			[]contract.FieldProblem{{Pointer: "", Rule: "type", Got: "hello", Want: "an object"}}),
		Entry("a frame without fields accepts anything", "callTool", `[1,2]`, nil),
	)

	It("escapes pointers (RFC 6901)", func() {
		f := &contract.Frame{Fields: map[string]contract.Field{"a/b": {Required: true}, "m~n": {Type: "string"}}}
		Expect(f.CheckFields(map[string]any{"m~n": true})).To(Equal([]contract.FieldProblem{
			{Pointer: "/a~1b", Rule: "required", Want: "present"},
			{Pointer: "/m~0n", Rule: "type", Got: true, Want: "a string"}}))
	})

	It("checks binary payload fields by offset", func() {
		mqtt := mustChannel(mqttDoc, "/mqtt")
		d := feed(mqtt, "C>H", true, mqttPacket(1, 0, concat(u16str("MQTX"), []byte{4, 0})...))[0]
		f := mqtt.Lookup(d, "C>H", "")
		Expect(f.CheckFields(d.Value)).To(Equal([]contract.FieldProblem{
			{Pointer: "/keepAlive", Rule: "required", Want: "present"},
			{Pointer: "/protocolName", Rule: "enum", Got: "MQTX", Want: `one of "MQTT"`},
		}))

		d = feed(mqtt, "H>C", true, mqttPacket(9, 0, 0, 1, 0, 3))[0]
		f = mqtt.Lookup(d, "H>C", "")
		Expect(f.CheckFields(d.Value)).To(Equal([]contract.FieldProblem{
			{Pointer: "/codes/1", Rule: "enum", Got: 3.0, Want: "one of 0, 1, 2, 128"}}))
		Expect(contract.FieldProblem{Pointer: "/codes/1", Rule: "enum", Got: 3.0, Want: "one of 0, 1, 2, 128"}.String()).
			To(Equal("/codes/1 is a number (3), want one of 0, 1, 2, 128"))
	})

	It("checks protobuf frames on their JSON form", func() {
		pb := mustChannel(protobufDoc, "/wire")
		d := feed(pb, "H>C", true, varintFrames(wireMessage("skewtest.wire.Reply", `{"failure": {"level": "WARNING"}}`)))[0]
		Expect(pb.Lookup(d, "H>C", "").CheckFields(d.Value)).To(BeEmpty())
		d = feed(pb, "C>H", true, varintFrames(wireMessage("skewtest.wire.Command", `{"connect": {}}`)))[0]
		Expect(pb.Lookup(d, "C>H", "").CheckFields(d.Value)).To(Equal([]contract.FieldProblem{
			{Pointer: "/connect/client", Rule: "required", Want: "present"}}))
	})
})
