package future_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
)

// wireDoc is the contract package's protobuf sample: varint-prefixed messages of
// contract/testdata/proto/wire.proto.
const wireDoc = `{"contractVersion": 2, "product": "push", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{"name": "wire", "paths": ["/wire"],
    "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb",
      "message": {"H>C": "skewtest.wire.Reply", "C>H": "skewtest.wire.Command"}, "naming": {"empty": "keepalive"}},
      "batch": "varint"},
    "frames": [{"type": "ping", "name": "Ping", "direction": "C>H", "payload": "protobuf"}]}]}`

var _ = Describe("Variants of protobuf frames", func() {
	var c *contract.Contract
	BeforeEach(func() {
		var err error
		c, err = contract.Parse("wire.json", []byte(wireDoc), contract.WithFiles(os.DirFS("../../../declare/contract/testdata")))
		Expect(err).NotTo(HaveOccurred())
	})
	// Command{id: 3, ping: {}}, prefixed by its length.
	ping := []byte{4, 0x08, 3, 0x22, 0}

	It("adds a field the message does not define, re-prefixed, which a tolerant decoder still names", func() {
		for seed := range int64(6) {
			vs := future.Variants(future.Rand(seed, 1, "C>H", 1), future.Frame{Sender: c, Path: "/wire", Dir: "C>H", Binary: true, Data: ping})
			Expect(vs).To(HaveLen(1))
			Expect(vs[0].Rule).To(Equal(future.RuleOptionalField))
			Expect(vs[0].What).To(MatchRegexp(`^added unknown field \d+ \((varint|bytes|fixed32) `))
			n, k := protowire.ConsumeVarint(vs[0].Data)
			Expect(k).To(Equal(1))
			body := vs[0].Data[k:]
			Expect(uint64(len(body))).To(Equal(n), "the length prefix counts the new field")
			Expect(body[:4]).To(Equal(ping[1:]), "the message as sent comes first")
			num, _, tagLen := protowire.ConsumeTag(body[4:])
			Expect(tagLen).To(BeNumerically(">", 0))
			Expect(int(num)).To(BeNumerically(">", 4), "a number Command does not use")

			ps := c.Channel("/wire").NewStream("C>H").Feed(true, vs[0].Data)
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).NotTo(HaveOccurred())
			Expect(ps[0].Decoded.Type).To(Equal("ping"))
		}
	})

	It("leaves alone a message that carries several frames", func() {
		two := append(append([]byte{}, ping...), ping...)
		Expect(future.Variants(future.Rand(1, 1, "C>H", 1), future.Frame{Sender: c, Path: "/wire", Dir: "C>H", Binary: true, Data: two})).To(BeEmpty())
	})
})
