package host_test

import (
	"encoding/json"

	"github.com/creachadair/jrpc2"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// refusal is a message a host refuses, and how the running host says so.
type refusal struct {
	text   string
	reason string
	// observed: the host reports it (refused); otherwise its error reply says it.
	observed bool
}

var _ = Describe("ReadFromClient", func() {
	DescribeTable("refuses what a connection's server refuses, in the same words",
		func(r refusal) {
			reqs, _, err := host.ReadFromClient(v020, false, []byte(r.text))
			if err == nil {
				Expect(reqs).To(HaveLen(1))
				err = reqs[0].Err
			}
			var re *host.RefusalError
			Expect(err).To(BeAssignableToTypeOf(re))
			Expect(err.Error()).To(Equal(r.reason))

			d := startHost(v020)
			p := d.dial()
			p.open(`[]`)
			p.send(r.text)
			if r.observed {
				Eventually(func() []msg { return d.obs.Named(host.ObsRefused) }).Should(ConsistOf(HaveKeyWithValue("reason", r.reason)))
				return
			}
			b, err := json.Marshal(p.read().(msg)["error"])
			Expect(err).NotTo(HaveOccurred())
			var jerr *jrpc2.Error
			Expect(json.Unmarshal(b, &jerr)).To(Succeed())
			Expect(wsrpc.Reason(jerr)).To(Equal(r.reason))
		},
		Entry("a method this release does not serve", refusal{
			`{"jsonrpc":"2.0","id":2,"method":"notes.search","params":{"query":"x"}}`, "method not found", true}),
		Entry("a notification it does not serve", refusal{
			`{"jsonrpc":"2.0","method":"notes.typing"}`, "method not found (a notification: dropped without a reply)", true}),
		Entry("params that do not decode into the handler's type", refusal{
			`{"jsonrpc":"2.0","id":3,"method":"notes.put","params":{"id":"n","text":7}}`,
			"[-32602] invalid parameters: json: cannot unmarshal number into Go struct field PutParams.text of type string", false}),
		Entry("params for a method that takes none", refusal{
			`{"jsonrpc":"2.0","id":4,"method":"notes.list","params":{"all":true}}`, "[-32602] no parameters accepted", false}),
		Entry("a key JSON-RPC does not have", refusal{
			`{"jsonrpc":"2.0","id":5,"method":"notes.get","params":{"id":"n"},"trace":1}`, `[-32600] extra fields in request: ["trace"]`, false}),
		Entry("a reply (the host calls nothing back)", refusal{
			`{"jsonrpc":"2.0","id":6,"result":{}}`, "[-32600] empty method name", false}),
		Entry("an empty batch", refusal{`[]`, "[-32600] empty request batch", false}),
		Entry("a message that is not JSON", refusal{`notes please`, "[-32700] invalid request value", false}),
	)

	It("reads params as the method's handler takes them, as this release reads them", func() {
		put := []byte(`[{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"n","text":"x","tags":["a"]}},` +
			`{"jsonrpc":"2.0","method":"notes.ack","params":{"of":"notes.notice","seq":3}}]`)
		reqs, batch, err := host.ReadFromClient(v020, false, put)
		Expect(err).NotTo(HaveOccurred())
		Expect(batch).To(BeTrue())
		Expect(reqs).To(Equal([]host.Request{
			{Method: api.Put, ID: "2", Params: api.PutParams{ID: "n", Text: "x"}}, // v0.2.0 has no tags
			{Method: api.Ack, Params: api.AckParams{Of: api.Notice, Seq: 3}},
		}))
		v030 := v020
		v030.Tags = true
		reqs, _, err = host.ReadFromClient(v030, false, put)
		Expect(err).NotTo(HaveOccurred())
		Expect(reqs[0].Params).To(Equal(api.PutParams{ID: "n", Text: "x", Tags: []string{"a"}}))
	})

	It("refuses a binary message, which ends the connection", func() {
		_, _, err := host.ReadFromClient(v020, true, []byte(`{}`))
		Expect(err).To(MatchError("binary WebSocket message on a JSON-RPC channel (2 bytes)"))
	})
})
