package infer_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("Drafting a contract", func() {
	Describe("JSON named by a discriminator", func() {
		var r *infer.Result

		BeforeEach(func() {
			var fs []transcript.Frame
			for i := range 3 {
				fs = append(fs,
					text("C>H", "/ws", `{"type":"hello","client":"desktop","version":3}`),
					text("H>C", "/ws", `{"type":"welcome","server":"s1","features":["a","b"]}`),
					text("C>H", "/ws", `{"type":"ping","n":1}`),
					text("H>C", "/ws", `{"type":"pong","n":1.5}`),
					text("H>C", "/ws", `{"type":"event","level":"info","msg":"all is well"}`),
					text("H>C", "/ws", `{"type":"event","level":"warn","msg":"disk is full"}`))
				if i == 0 {
					fs = append(fs, text("H>C", "/ws", `{"type":"event","level":"warn","msg":"again","extra":true}`))
				}
			}
			r = draft(recording("desktop", fs...))
		})

		It("names frames by the key every object carries, one frame per type and direction", func() {
			ch := r.Contract.Channel("/ws")
			Expect(ch.Name).To(Equal("ws"))
			Expect(ch.Text.JSON).To(Equal(&contract.Naming{Discriminator: "type"}))
			Expect(ch.Binary).To(BeNil())
			var labels []string
			for _, f := range ch.Frames {
				labels = append(labels, f.Label())
			}
			Expect(labels).To(Equal([]string{"H>C event", "C>H hello", "C>H ping", "H>C pong", "H>C welcome"}))
		})

		It("lists each frame's fields: JSON type, required when every frame carried it, enums of repeated words", func() {
			hello := frame(r.Contract, "/ws", "C>H", "hello")
			Expect(hello.Payload).To(Equal(contract.PayloadJSON))
			Expect(hello.Fields).To(Equal(map[string]contract.Field{
				"client":  {Type: "string", Required: true}, // one value, one frame type: no evidence of an enum
				"version": {Type: "integer", Required: true},
			}), "the discriminator is not a field")
			event := frame(r.Contract, "/ws", "H>C", "event")
			Expect(event.Fields).To(Equal(map[string]contract.Field{
				"level": {Type: "string", Required: true, Enum: []any{"warn", "info"}},
				"msg":   {Type: "string", Required: true}, // text, not a word
				"extra": {Type: "boolean"},
			}))
			Expect(frame(r.Contract, "/ws", "H>C", "pong").Fields["n"].Type).To(Equal("number"))
			Expect(frame(r.Contract, "/ws", "H>C", "welcome").Fields["features"]).To(Equal(contract.Field{
				Type: "array", Required: true, Items: &contract.Field{Type: "string", Enum: []any{"a", "b"}}}))
		})

		It("is marked a draft, in what a contract may say about itself", func() {
			Expect(r.Contract.Product).To(HavePrefix("DRAFT"))
			Expect(r.Contract.Version).To(Equal("draft of v1.0.0"))
			Expect(r.Contract.Protocol).To(Equal(contract.Protocol{}), "no protocol window is guessed")
		})

		It("does not read what it never saw (negative controls)", func() {
			Expect(unread(r.Contract, text("C>H", "/ws", `{"type":"bye"}`))).To(ConsistOf(
				`#0 C>H bye: the contract lists no such frame from client to host`))
			Expect(unread(r.Contract, text("C>H", "/ws", `{"type":"pong","n":1}`))).To(ConsistOf(
				`#0 C>H pong: the contract lists no such frame from client to host`), "pong was only seen from the host")
			Expect(unread(r.Contract, text("C>H", "/other", `{"type":"hello"}`))).To(ConsistOf(
				ContainSubstring("no channel serves /other")))
			Expect(unread(r.Contract, text("C>H", "/ws", `hello`))).To(ConsistOf(ContainSubstring("frame is not JSON")))
			Expect(unread(r.Contract, bin("C>H", "/ws", []byte{1, 2}))).To(ConsistOf(ContainSubstring("C>H Malformed")))
		})
	})

	It("names JSON-RPC 2.0 requests by /method and replies by result or error, batched in arrays", func() {
		r := draft(recording("cli",
			text("C>H", "/rpc", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"client":"x"}}`),
			text("H>C", "/rpc", `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`),
			text("C>H", "/rpc", `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","method":"notifications/cancel"}]`),
			text("H>C", "/rpc", `[{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}]`),
			text("H>C", "/rpc", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"p":0.5}}`),
			text("C>H", "/rpc", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"client":"y"}}`),
			text("H>C", "/rpc", `{"jsonrpc":"2.0","id":3,"result":{"ok":false}}`),
			text("C>H", "/rpc", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"client":"z"}}`),
			text("H>C", "/rpc", `{"jsonrpc":"2.0","id":4,"result":{"ok":true}}`),
		))
		ch := r.Contract.Channel("/rpc")
		Expect(ch.Text.JSON).To(Equal(&contract.Naming{Pointer: "/method", Keys: []string{"result", "error"}}))
		Expect(ch.Text.Batch).To(Equal(contract.BatchJSONArray))
		var labels []string
		for _, f := range ch.Frames {
			labels = append(labels, f.Label())
		}
		Expect(labels).To(Equal([]string{"H>C error", "C>H initialize", "C>H notifications/cancel", "H>C notifications/progress", "H>C result", "C>H tools/call"}))
		Expect(frame(r.Contract, "/rpc", "H>C", "result").Fields).To(Equal(map[string]contract.Field{
			"jsonrpc": {Type: "string", Required: true, Enum: []any{"2.0"}}, // the channel's constant: every frame type carries it
			"id":      {Type: "integer", Required: true},
			"result":  {Type: "object", Required: true, Fields: map[string]contract.Field{"ok": {Type: "boolean", Required: true}}},
		}), "the key that names a reply is its field; /method, which names requests, is not")
		Expect(frame(r.Contract, "/rpc", "C>H", "initialize").Fields).NotTo(HaveKey("method"))

		Expect(unread(r.Contract, text("C>H", "/rpc", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))).To(ConsistOf(
			`#0 C>H tools/list: the contract lists no such frame from client to host`))
		Expect(unread(r.Contract, text("C>H", "/rpc", `{"jsonrpc":"2.0","id":9,"result":{}}`))).To(ConsistOf(
			`#0 C>H result: the contract lists no such frame from client to host`))
		Expect(unread(r.Contract, text("C>H", "/rpc", `[]`))).To(ConsistOf(ContainSubstring("the array is empty")))
	})

	It("names frames by the keys they carry when no key names them all, and {} as empty", func() {
		r := draft(recording("web",
			text("C>H", "/connection", `{"id":1,"connect":{"token":"t"}}`),
			text("C>H", "/connection", `{"id":2,"subscribe":{"channel":"news"}}`),
			text("C>H", "/connection", `{"id":3,"publish":{"channel":"news","data":{}}}`),
			text("H>C", "/connection", `{"id":1,"connect":{"client":"c1"}}`),
			text("H>C", "/connection", `{"push":{"channel":"news","pub":{}}}`),
			text("H>C", "/connection", `{}`),
		))
		ch := r.Contract.Channel("/connection")
		Expect(ch.Text.JSON).To(Equal(&contract.Naming{Keys: []string{"connect", "publish", "push", "subscribe"}, Empty: "empty"}),
			"keys that hold a command's body, not the id most of them carry")
		Expect(frame(r.Contract, "/connection", "C>H", "connect")).NotTo(BeIdenticalTo(frame(r.Contract, "/connection", "H>C", "connect")))
		Expect(frame(r.Contract, "/connection", "H>C", "empty").Payload).To(Equal(contract.PayloadEmpty))
		Expect(unread(r.Contract, text("C>H", "/connection", `{}`))).To(ConsistOf(`#0 C>H empty: the contract lists no such frame from client to host`))
		Expect(unread(r.Contract, text("H>C", "/connection", `{"id":4}`))).To(ConsistOf(ContainSubstring("none of the keys")))
	})

	It("reads text that is not JSON through a header of its first byte, with text payloads", func() {
		r := draft(recording("cli",
			text("C>H", "/chat", "JOIN alice"),
			text("C>H", "/chat", "MSG hello"),
			text("H>C", "/chat", "OK"),
			text("H>C", "/chat", "MSG hello"),
			text("C>H", "/chat", "MSG bye"),
			text("C>H", "/chat", "PART alice"),
		))
		ch := r.Contract.Channel("/chat")
		Expect(ch.Text.JSON).To(BeNil())
		Expect(ch.Text.Header.Length).To(Equal(1))
		Expect(ch.Text.Header.Fields).To(HaveLen(1))
		Expect(ch.Text.Header.Fields[0].Name).To(Equal("type"))
		Expect(frame(r.Contract, "/chat", "C>H", "Opcode77").Payload).To(Equal(contract.PayloadText)) // 'M'
		Expect(frame(r.Contract, "/chat", "H>C", "Opcode77").Payload).To(Equal(contract.PayloadText))
		Expect(unread(r.Contract, text("C>H", "/chat", "QUIT"))).To(ConsistOf(`#0 C>H Opcode81: the contract lists no such frame from client to host`))
	})

	It("makes one channel of paths that carry the same framing, and one of each other path", func() {
		r := draft(recording("desktop",
			text("H>C", "/terminal.multiplex", `{"type":"ready"}`),
			text("H>C", "/terminal.subscribe", `{"type":"ready"}`),
			text("C>H", "/terminal.subscribe", `{"type":"subscribe"}`),
			text("C>H", "/session", `{"op":"hello"}`),
			text("H>C", "/session", `{"op":"welcome"}`),
		))
		Expect(r.Contract.Channels).To(HaveLen(2))
		Expect(r.Contract.Channel("/terminal.multiplex").Name).To(Equal("terminal"))
		Expect(r.Contract.Channel("/terminal.multiplex").Paths).To(Equal([]string{"/terminal.multiplex", "/terminal.subscribe"}))
		Expect(r.Contract.Channel("/session").Text.JSON.Discriminator).To(Equal("op"))
	})

	Describe("enums", func() {
		DescribeTable("are left out where the traffic is no evidence of one", func(values []string, key string, labels ...string) {
			var recs []infer.Recording
			for i, v := range values {
				label := "a"
				if len(labels) > 0 {
					label = labels[i%len(labels)]
				}
				recs = append(recs, pairing(label, label, "k",
					text("C>H", "/ws", `{"type":"hello","`+key+`":"`+v+`"}`),
					text("H>C", "/ws", `{"type":"welcome"}`)))
			}
			r := draft(recs...)
			Expect(frame(r.Contract, "/ws", "C>H", "hello").Fields[key].Enum).To(BeNil())
		},
			Entry("values seen once", []string{"a", "b", "c", "d"}, "mode"),
			Entry("more than 8 values", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "a", "b", "c", "d", "e", "f", "g", "h", "i"}, "mode"),
			Entry("an identifier's", []string{"n1", "n2", "n1", "n2"}, "noteId"),
			Entry("text", []string{"a b", "c d", "a b", "c d"}, "mode"),
			Entry("paths", []string{"/home", "/tmp", "/home", "/tmp"}, "cwd"),
			Entry("the recorded builds' labels", []string{"v1.0.0", "v2.0.0", "v1.0.0", "v2.0.0"}, "version", "v1.0.0", "v2.0.0"),
			Entry("one value in one frame type", []string{"x", "x", "x", "x"}, "mode"),
		)

		It("list repeated words", func() {
			var recs []infer.Recording
			for _, v := range []string{"fast", "slow", "fast", "slow", "fast"} {
				recs = append(recs, recording("k", text("C>H", "/ws", `{"type":"hello","mode":"`+v+`"}`), text("H>C", "/ws", `{"type":"welcome"}`)))
			}
			Expect(frame(draft(recs...).Contract, "/ws", "C>H", "hello").Fields["mode"].Enum).To(Equal([]any{"fast", "slow"}))
		})
	})

	It("lists a map's keys (they vary, their values are alike) and requires none", func() {
		r := draft(recording("k",
			text("C>H", "/ws", `{"type":"hello","caps":{"a":1,"b":1},"size":{"w":1,"h":2}}`),
			text("C>H", "/ws", `{"type":"hello","caps":{"a":1},"size":{"w":3,"h":4}}`),
			text("H>C", "/ws", `{"type":"welcome"}`)))
		fields := frame(r.Contract, "/ws", "C>H", "hello").Fields
		Expect(fields["caps"].Fields).To(Equal(map[string]contract.Field{"a": {Type: "integer"}, "b": {Type: "integer"}}))
		Expect(fields["size"].Fields).To(Equal(map[string]contract.Field{"w": {Type: "integer", Required: true}, "h": {Type: "integer", Required: true}}))
	})

	It("drafts from what senders sent: a frame the future-peer pass rewrote is read as written", func() {
		rewritten := text("C>H", "/ws", `{"type":"hello","skewtestFuture1":[1]}`)
		rewritten.Original, rewritten.Rewrite = []byte(`{"type":"hello"}`), "optional-field"
		r := draft(recording("k", rewritten, text("H>C", "/ws", `{"type":"welcome"}`)))
		Expect(frame(r.Contract, "/ws", "C>H", "hello").Fields).To(BeEmpty())
	})

	It("gives the same draft whatever the order of its recordings", func() {
		recs := []infer.Recording{
			recording("a", text("C>H", "/ws", `{"type":"hello","a":1,"mode":"x"}`), termFrame("H>C", 1, 1, 1, "hi")),
			recording("b", text("C>H", "/ws", `{"type":"bye","b":"x","mode":"y"}`), termFrame("H>C", 2, 2, 9, `{"k":1}`)),
			recording("c", text("H>C", "/ws", `{"type":"hello","c":[1],"mode":"x"}`), termFrame("C>H", 3, 1, 4, "")),
		}
		first, err := infer.Draft(recs)
		Expect(err).NotTo(HaveOccurred())
		for range 5 {
			slices.Reverse(recs)
			again, err := infer.Draft(recs)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(again.Document)).To(Equal(string(first.Document)))
		}
	})

	It("refuses recordings that hold no message", func() {
		_, err := infer.Draft([]infer.Recording{recording("k")})
		var ue *usage.Error
		Expect(err).To(BeAssignableToTypeOf(ue))
	})
})
