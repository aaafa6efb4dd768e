package future_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// versionedSample's ack frame carried a "legacy" object until protocol 4 and a "detail"
// object since 5, each with fields of its own.
const versionedSample = `{
  "contractVersion": 2, "product": "p", "protocol": {"version": 5, "minCompatible": 4},
  "channels": [{"name": "rpc", "paths": ["/rpc"],
    "text": {"json": {"discriminator": "type"}},
    "frames": [
      {"type": "ack", "name": "ack", "direction": "H>C", "payload": "json", "fields": {
        "legacy": {"type": "object", "until": 4, "fields": {"code": {"type": "integer"}}},
        "detail": {"type": "object", "since": 5, "fields": {"reason": {"type": "string"}}}}}
    ]}]}`

var _ = Describe("A frame whose fields depend on the protocol version", func() {
	// Both objects are on the wire: a field the version does not have is then a key the
	// contract does not list, as any unknown key.
	const ack = `{"type":"ack","legacy":{"code":1},"detail":{"reason":"r"}}`
	variants := func(doc string, version int) []string {
		GinkgoHelper()
		c, err := contract.Parse("v.json", []byte(doc))
		Expect(err).NotTo(HaveOccurred())
		f := future.Frame{Sender: c, Path: "/rpc", Dir: contract.HostToClient, Version: version, Data: []byte(ack)}
		return rules(future.Variants(future.Rand(1, 1, f.Dir, 1), f))
	}

	It("is rewritten inside the objects its shape at the negotiated version lists", func() {
		Expect(variants(versionedSample, 5)).To(Equal([]string{"optional-field ", "nested-field /detail"}))
		Expect(variants(versionedSample, 4)).To(Equal([]string{"optional-field ", "nested-field /legacy"}))
	})

	It("is rewritten inside every object when the contract bounds no field (negative control)", func() {
		unbounded := strings.NewReplacer(`"until": 4, `, "", `"since": 5, `, "").Replace(versionedSample)
		Expect(variants(unbounded, 5)).To(Equal([]string{"optional-field ", "nested-field /detail", "nested-field /legacy"}))
	})

	It("rewrites a tapped frame at the version its Config gives", func() {
		c, err := contract.Parse("v.json", []byte(versionedSample))
		Expect(err).NotTo(HaveOccurred())
		for version, want := range map[int]string{5: "/detail", 4: "/legacy"} {
			rw := future.New(future.Config{Seed: 1, Version: version, Rules: []string{future.RuleNestedField},
				Senders: map[string]*contract.Contract{contract.HostToClient: c}})
			_, what, ok := rw.Rewrite(tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.HostToClient, Data: []byte(ack)})
			Expect(ok).To(BeTrue())
			Expect(what).To(ContainSubstring(want + "/" + future.Marker))
			Expect(strings.Count(what, "nested-field")).To(Equal(1), what)
		}
	})
})
