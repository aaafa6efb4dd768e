package contract_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
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

		It("names a push by the key inside its push object, and falls back to keys when none is there", func() {
			ds := feed(ch, "H>C", false, []byte(`{"push":{"channel":"news","pub":{"data":{"x":1}}}}`+"\n"+
				`{"push":{"channel":"news","join":{"user":"u1"}}}`+"\n"+
				`{"push":{"channel":"news","leave":{"user":"u1"}}}`+"\n"+
				`{"push":{"channel":"news","unsubscribe":{}}}`))
			Expect(names(ch, "H>C", ds)).To(Equal([]string{"push.pub", "push.join", "push.leave", "push"}))
			Expect(ds[1].Type).To(Equal("push.join"))
		})

		It("takes the first of the nested keys in the contract's order, not the object's", func() {
			ds := feed(ch, "H>C", false, []byte(`{"push":{"leave":{},"join":{}}}`))
			Expect(ds[0].Type).To(Equal("push.join"))
		})

		It("checks the fields of each nested-named frame against that frame only", func() {
			ds := feed(ch, "H>C", false, []byte(`{"push":{"channel":"news","join":{}}}`+"\n"+`{"push":{"channel":"news","pub":{}}}`))
			Expect(ds[0].Type).To(Equal("push.join"))
			problems := ch.Lookup(ds[0], "H>C", "").CheckFields(ds[0].Value)
			Expect(problems).To(HaveLen(1))
			Expect(problems[0].Pointer).To(Equal("/push/join/user"))
			Expect(ch.Lookup(ds[1], "H>C", "").CheckFields(ds[1].Value)).To(BeEmpty())
		})

		It("says why the nested rule named nothing, with the other rules' reasons", func() {
			ps := ch.NewStream("H>C").Feed(false, []byte(`{"id":1,"pull":{"join":{}}}`))
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).To(MatchError(`frame names no frame type: nothing at /push; ` +
				`none of the keys "connect", "subscribe", "publish", "push" is present; not the empty object {}`))
		})

		It("exposes the scope and the negotiation frame", func() {
			Expect(ch.Scope.Pointer).To(Equal("/subscribe/channel"))
			Expect(ch.Negotiation).To(Equal([]contract.Negotiation{{Frame: "connect", Dir: "H>C", Pointer: "/connect/features"}}))
		})
	})

	Describe("by the key present at a nested pointer, alone", func() {
		// Two entries and no fallback: every reason the error gives is the nested rule's.
		const doc = `{"contractVersion": 2, "channels": [{"name": "c", "paths": ["/c"],
		  "text": {"json": {"nested": [{"pointer": "/push", "keys": ["pub", "join"]}, {"pointer": "/reply/a~1b", "keys": ["ok"]}]}},
		  "frames": [{"type": "push.pub", "name": "pub", "direction": "H>C"}, {"type": "push.join", "name": "join", "direction": "H>C"},
		             {"type": "a/b.ok", "name": "ok", "direction": "H>C"}]}]}`
		var ch *contract.Channel
		BeforeEach(func() { ch = mustChannel(doc, "/c") })

		It("tries each entry in turn; the name is the pointer's last token, unescaped, a dot and the key", func() {
			ds := feed(ch, "H>C", false, []byte(`{"push":{"join":{}}}`), []byte(`{"reply":{"a/b":{"ok":true}}}`),
				[]byte(`{"push":{"pub":1},"reply":{"a/b":{"ok":true}}}`))
			Expect(names(ch, "H>C", ds)).To(Equal([]string{"join", "ok", "pub"}))
			Expect(ds[1].Type).To(Equal("a/b.ok"))
		})

		DescribeTable("says why each entry named nothing",
			func(msg, want string) {
				_, err := ch.Decode(false, []byte(msg))
				var ne *contract.NameError
				Expect(err).To(BeAssignableToTypeOf(ne))
				Expect(err).To(MatchError("frame names no frame type: " + want))
			},
			Entry("nothing at either pointer", `{}`, `nothing at /push; nothing at /reply/a~1b`),
			Entry("none of the keys", `{"push":{"leave":{}},"reply":{"a/b":{}}}`,
				`none of the keys "pub", "join" is present at /push; none of the keys "ok" is present at /reply/a~1b`),
			Entry("not an object", `{"push":"pub","reply":{"a/b":[{"ok":true}]}}`,
				`/push is the string "pub", not an object; /reply/a~1b is an array, not an object`),
			Entry("not an object at the top", `["push"]`, `nothing at /push; nothing at /reply/a~1b`),
		)
	})

	It("names a frame by a number at a pointer, by its decimal text (Discord's gateway)", func() {
		ch := mustChannel(keysDoc, "/gateway")
		ds := feed(ch, "H>C", false, []byte(`{"op":10,"d":{"heartbeat_interval":41250}}`), []byte(`{"op":0,"t":"READY","d":{}}`))
		Expect(names(ch, "H>C", ds)).To(Equal([]string{"Hello", "Dispatch"}))
		Expect(ch.Lookup(feed(ch, "C>H", false, []byte(`{"op":2,"d":{}}`))[0], "C>H", "").Name).To(Equal("Identify"))
	})
})
