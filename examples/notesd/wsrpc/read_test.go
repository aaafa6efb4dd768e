package wsrpc_test

import (
	"github.com/creachadair/jrpc2"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

var _ = Describe("Read", func() {
	It("parses a batch as jrpc2 does, one message per element, and leaves the message as it was", func() {
		text := `[{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}},` +
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"no"}},` +
			`{"jsonrpc":"2.0","id":2,"result":null},{"jsonrpc":"1.0","method":"b"}]`
		b := []byte(text)
		msgs, batch, err := wsrpc.Read(false, b)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(text))
		Expect(batch).To(BeTrue())
		Expect(msgs).To(HaveLen(4))
		Expect(msgs[0].IsRequest()).To(BeTrue())
		Expect(msgs[0].Parsed).To(HaveField("Method", "a"))
		Expect(msgs[1].IsRequest()).To(BeFalse())
		Expect(msgs[1].ReplyError()).To(Equal(&jrpc2.Error{Code: -32004, Message: "no"}))
		Expect(msgs[2].IsRequest()).To(BeFalse())
		Expect(msgs[2].Keys).To(HaveKey("result"))
		Expect(msgs[3].IsRequest()).To(BeTrue(), "jrpc2 still names an invalid request")
		Expect(wsrpc.Reason(msgs[3].Parsed.Error)).To(Equal("[-32600] invalid version marker"))
	})

	It("reads one object as one message, and refuses what is not text or JSON", func() {
		msgs, batch, err := wsrpc.Read(false, []byte(`{"jsonrpc":"2.0","method":"n"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(batch).To(BeFalse())
		Expect(msgs).To(HaveLen(1))
		_, _, err = wsrpc.Read(true, []byte(`{}`))
		Expect(err).To(MatchError(wsrpc.ErrBinary))
		_, _, err = wsrpc.Read(false, []byte(`{`))
		Expect(wsrpc.Reason(err)).To(Equal("[-32700] invalid request value"))
	})
})
