package contract_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

const doc = `{"contractVersion": 1, "version": "v1", "protocol": {"version": 2, "minCompatible": 1},
 "channels": [{"name": "terminal", "paths": ["/terminal.multiplex", "/terminal.subscribe"],
  "binary": {"headerLength": 16, "magic": [{"offset": 0, "value": 116}, {"offset": 1, "value": 1}],
             "opcodeOffset": 2, "streamOffset": 4, "seqOffset": 8},
  "json": {"discriminator": "type"},
  "frames": [
   {"opcode": 1, "name": "Output", "direction": "H>C"},
   {"opcode": 15, "name": "OutputSpan", "direction": "H>C", "kinds": ["desktop"],
    "gates": {"/terminal.subscribe": "outputSpan"}},
   {"type": "ready", "name": "ready", "direction": "H>C"}
  ]}]}`

var _ = Describe("Contract", func() {
	var c *contract.Contract
	BeforeEach(func() {
		var err error
		c, err = contract.Parse("c.json", []byte(doc))
		Expect(err).NotTo(HaveOccurred())
	})

	It("finds channels by path, ignoring the query", func() {
		Expect(c.Channel("/terminal.subscribe?x=1").Name).To(Equal("terminal"))
		Expect(c.Channel("/session")).To(BeNil())
		Expect(c.ChannelNamed("terminal")).NotTo(BeNil())
	})

	It("knows frames per client kind", func() {
		ch := c.Channel("/terminal.multiplex")
		Expect(ch.Opcode(15, "H>C", "desktop").Name).To(Equal("OutputSpan"))
		Expect(ch.Opcode(15, "H>C", "mobile")).To(BeNil())
		Expect(ch.Opcode(15, "H>C", "")).NotTo(BeNil(), "a host knows its whole contract")
		Expect(ch.Type("ready", "H>C", "mobile").Name).To(Equal("ready"))
	})

	It("reads gates per path", func() {
		f := c.Channel("/terminal.multiplex").Named("OutputSpan", "H>C", "")
		Expect(f.Gate("/terminal.subscribe")).To(Equal("outputSpan"))
		Expect(f.Gate("/terminal.multiplex")).To(BeEmpty())
	})

	It("decodes the binary header and JSON payloads", func() {
		ch := c.Channel("/terminal.multiplex")
		frame := []byte{0x74, 1, 15, 0, 7, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}
		frame = append(frame, `{"data":"x"}`...)
		d, err := ch.Decode(true, frame)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Opcode).To(Equal(15))
		Expect(d.Stream).To(Equal(uint32(7)))
		Expect(d.Seq).To(Equal(uint64(1)<<32 | 2))
		Expect(d.JSON).To(HaveKeyWithValue("data", "x"))

		t, err := ch.Decode(false, []byte(`{"type":"ready"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Type).To(Equal("ready"))
	})

	DescribeTable("refuses frames without the framing",
		func(binary bool, data []byte, want string) {
			_, err := c.Channel("/terminal.multiplex").Decode(binary, data)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("short", true, []byte{0x74, 1}, "2-byte frame: shorter than the 16-byte header"),
		Entry("bad kind", true, make([]byte, 16), "byte 0 is 0x0, want 0x74"),
		Entry("not JSON", false, []byte("hello"), "frame is not JSON: invalid character"),
		Entry("no discriminator", false, []byte(`{"kind":1}`), `no "type" discriminator`),
	)

	DescribeTable("refuses bad contracts with a line",
		func(text, want string) {
			_, err := contract.Parse("bad.json", []byte(text))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("syntax", "{\n\"contractVersion\": 1,\n]", "bad.json: line 3"),
		Entry("type", "{\"contractVersion\": \"one\"}", "bad.json: line 1"),
		Entry("version", `{"contractVersion": 9}`, "unsupported contract version"),
		Entry("direction", `{"contractVersion":1,"channels":[{"name":"t","paths":["/t"],"frames":[{"opcode":1,"name":"A","direction":"up"}]}]}`, `direction "up"`),
		Entry("unknown key", "{\"contractVersion\":1,\n\"chanels\":[]}", `bad.json: line 2: /chanels: unknown key "chanels"`),
		Entry("no path", `{"contractVersion":1,"channels":[{"name":"t","frames":[]}]}`, "at least one path"),
		Entry("quiet", "{\"contractVersion\":2,\"protocol\":{\"version\":1},\n\"channels\":[{\"name\":\"t\",\"paths\":[\"/t\"],\"text\":{\"json\":{\"discriminator\":\"type\"}},\"frames\":[],\n\"quiet\":\"soon\"}]}",
			`bad.json: line 3: /channels/0/quiet: quiet "soon" is not a positive duration such as "30s"`),
	)

	It("reads a channel's quiet period", func() {
		c, err := contract.Parse("q.json", []byte(`{"contractVersion":2,"protocol":{"version":1},"channels":[{"name":"t","paths":["/t"],"text":{"json":{"discriminator":"type"}},"frames":[],"quiet":"3s"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Channels[0].QuietFor()).To(Equal(3 * time.Second))
	})

	It("has a sentinel for unsupported versions", func() {
		_, err := contract.Parse("x", []byte(`{"contractVersion": 3}`))
		Expect(errors.Is(err, contract.ErrUnsupported)).To(BeTrue())
	})
})
