package client_test

import (
	"encoding/json"

	"github.com/creachadair/jrpc2"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
)

var _ = Describe("ReadFromHost", func() {
	It("hands replies to their calls and notifications to the client's handler, as jrpc2's client does", func() {
		msgs, batch, err := client.ReadFromHost(worktree, client.KindSync, false, []byte(
			`[{"jsonrpc":"2.0","id":2,"result":{"id":"n","rev":1,"cursor":1}},`+
				`{"jsonrpc":"2.0","id":3,"error":{"code":-32004,"message":"no note"}},`+
				`{"jsonrpc":"2.0","method":"notes.notice","params":{"seq":"not a number"}},`+
				`{"jsonrpc":"2.0","method":"notes.changed","params":{"id":"n","rev":2,"cursor":2}}]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(batch).To(BeTrue())
		Expect(msgs).To(Equal([]client.Message{
			{ID: "2", Result: json.RawMessage(`{"id":"n","rev":1,"cursor":1}`)},
			{ID: "3", Error: &jrpc2.Error{Code: -32004, Message: "no note"}},
			{Method: api.Notice, Params: api.NoticeParams{}}, // read tolerantly
			{Method: api.Changed, Params: api.ChangedParams{Note: api.Note{ID: "n", Rev: api.Ptr[int64](2)}, Cursor: 2}},
		}))
	})

	It("takes notes.keepalive, params and all, where the release knows it, and has no handler for it before", func() {
		for _, kind := range []string{client.KindCLI, client.KindSync} {
			msgs, _, err := client.ReadFromHost(worktree, kind, false, []byte(`{"jsonrpc":"2.0","method":"notes.keepalive"}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(msgs).To(Equal([]client.Message{{Method: api.Keepalive}}), kind)
			msgs, _, err = client.ReadFromHost(worktree, kind, false, []byte(`{"jsonrpc":"2.0","method":"notes.keepalive","params":{"seq":3}}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(msgs).To(Equal([]client.Message{{Method: api.Keepalive}}), kind)
			msgs, _, err = client.ReadFromHost(v030, kind, false, []byte(`{"jsonrpc":"2.0","method":"notes.keepalive"}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(msgs[0].Err).To(MatchError("no handler for notification notes.keepalive"), kind)
		}
	})

	It("reads a note without text as an empty one before slim push (the v0.3.0 bug)", func() {
		msgs, _, err := client.ReadFromHost(v020, client.KindSync, false,
			[]byte(`{"jsonrpc":"2.0","method":"notes.changed","params":{"id":"n","rev":2,"cursor":2}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs[0].Params).To(HaveField("Note.Text", HaveValue(Equal(""))))
	})

	It("refuses what it has no handler for, what jrpc2 finds invalid, and callbacks", func() {
		reason := func(f client.Message) string {
			GinkgoHelper()
			Expect(f.Err).To(HaveOccurred())
			return f.Err.Error()
		}
		msgs, _, err := client.ReadFromHost(v010, client.KindSync, false, []byte(
			`[{"jsonrpc":"2.0","method":"notes.changed","params":{"id":"n","text":"x","rev":2,"cursor":2}},`+
				`{"jsonrpc":"2.0","id":4,"result":{},"trace":1},`+
				`{"jsonrpc":"2.0","id":"cb1","method":"client.confirm"},`+
				`{"jsonrpc":"2.0","id":5}]`))
		Expect(err).NotTo(HaveOccurred())
		Expect(reason(msgs[0])).To(Equal("no handler for notification notes.changed"))
		Expect(reason(msgs[1])).To(Equal(`[-32600] extra fields in request: ["trace"]`))
		Expect(reason(msgs[2])).To(Equal("no handler for callback client.confirm: discarded"))
		Expect(reason(msgs[3])).To(Equal("unexpected end of JSON input"))

		_, _, err = client.ReadFromHost(worktree, client.KindCLI, true, []byte(`{}`))
		Expect(err).To(MatchError(HavePrefix("binary WebSocket message")))
	})
})
