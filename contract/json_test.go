package contract_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/contract"
)

var _ = Describe("JSON codecs", func() {
	Describe("JSON-RPC 2.0: a pointer, keys, the empty object and json-array batches", func() {
		var ch *contract.Channel
		BeforeEach(func() { ch = mustChannel(jsonrpcDoc, "/rpc") })

		It("names a request by /method and a reply by the key it carries", func() {
			req := feed(ch, "C>H", false, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"x"}}}`))
			Expect(req[0].Type).To(Equal("initialize"))
			Expect(ch.Lookup(req[0], "C>H", "").Name).To(Equal("initialize"))

			rep := feed(ch, "H>C", false, []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`),
				[]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`))
			Expect(names(ch, "H>C", rep)).To(Equal([]string{"result", "error"}))
		})

		It("names the empty object", func() {
			d := feed(ch, "H>C", false, []byte(` {} `))[0]
			Expect(d.Type).To(Equal("keepalive"))
			Expect(d.Value).To(Equal(map[string]any{}))
		})

		It("cuts a batch into its frames, in order", func() {
			ds := feed(ch, "H>C", false, []byte(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{}},
			  {"jsonrpc":"2.0","id":3,"result":{}}, {}]`))
			Expect(names(ch, "H>C", ds)).To(Equal([]string{"progress", "result", "keepalive"}))
		})

		It("says why a value names no frame", func() {
			ps := ch.NewStream("H>C").Feed(false, []byte(`{"jsonrpc":"2.0","id":4,"method":7.5e400}`))
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).To(MatchError(ContainSubstring("frame is not JSON")))

			ps = ch.NewStream("H>C").Feed(false, []byte(`{"jsonrpc":"2.0","id":4,"method":{"x":1}}`))
			var ne *contract.NameError
			Expect(ps[0].Err).To(BeAssignableToTypeOf(ne))
			Expect(ps[0].Err).To(MatchError(`frame names no frame type: /method is an object, not a string or number; ` +
				`none of the keys "result", "error" is present; not the empty object {}`))
		})

		It("refuses an empty batch and a batch that is not an array", func() {
			ps := ch.NewStream("H>C").Feed(false, []byte(`[]`))
			Expect(ps[0].Err).To(MatchError("json-array batch: the array is empty"))
			ps = ch.NewStream("H>C").Feed(false, []byte(`[{"id":1,"result":{}},`))
			Expect(ps[0].Err).To(MatchError(ContainSubstring("json-array batch: not a JSON array")))
		})

		It("has no codec for binary messages", func() {
			ps := ch.NewStream("H>C").Feed(true, []byte{1, 2})
			Expect(ps[0].Err).To(MatchError(contract.ErrNoCodec))
			Expect(ps[0].Err).To(MatchError("channel rpc has no codec for binary messages: no codec for this message type"))
		})
	})

	Describe("by key presence with {}, in JSON lines (Centrifugo)", func() {
		var ch *contract.Channel
		BeforeEach(func() { ch = mustChannel(keysDoc, "/connection/websocket") })

		It("names each line by the first key present, and {} as a ping", func() {
			ds := feed(ch, "C>H", false, []byte("{\"id\":1,\"connect\":{\"token\":\"t\"}}\n\n{\"id\":2,\"subscribe\":{\"channel\":\"news\"}}\r\n{}\n"))
			Expect(names(ch, "C>H", ds)).To(Equal([]string{"connect", "subscribe", "ping"}))
			Expect(ds[1].JSON).To(HaveKeyWithValue("subscribe", map[string]any{"channel": "news"}))
		})

		It("refuses a message with no line", func() {
			ps := ch.NewStream("C>H").Feed(false, []byte("\n \n"))
			Expect(ps[0].Err).To(MatchError("newline batch: the message holds no line"))
		})

		It("exposes the scope and the negotiation frame", func() {
			Expect(ch.Scope.Pointer).To(Equal("/subscribe/channel"))
			Expect(ch.Negotiation).To(Equal([]contract.Negotiation{{Frame: "connect", Dir: "H>C", Pointer: "/connect/features"}}))
		})
	})

	It("names a frame by a number at a pointer, by its decimal text (Discord's gateway)", func() {
		ch := mustChannel(keysDoc, "/gateway")
		ds := feed(ch, "H>C", false, []byte(`{"op":10,"d":{"heartbeat_interval":41250}}`), []byte(`{"op":0,"t":"READY","d":{}}`))
		Expect(names(ch, "H>C", ds)).To(Equal([]string{"Hello", "Dispatch"}))
		Expect(ch.Lookup(feed(ch, "C>H", false, []byte(`{"op":2,"d":{}}`))[0], "C>H", "").Name).To(Equal("Identify"))
	})
})
