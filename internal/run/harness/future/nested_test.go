package future_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
)

// nestedSample is a Centrifugo-style channel whose pushes are named by the key inside their
// push object (push.pub, push.join), and by keys when none is there.
const nestedSample = `{
  "contractVersion": 2, "product": "push", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{"name": "client", "paths": ["/ws"],
    "text": {"json": {"nested": [{"pointer": "/push", "keys": ["pub", "join"]}], "keys": ["push"]}},
    "frames": [
      {"type": "push", "name": "push", "direction": "H>C", "payload": "json"},
      {"type": "push.pub", "name": "push.pub", "direction": "H>C", "payload": "json"},
      {"type": "push.join", "name": "push.join", "direction": "H>C", "payload": "json", "fields": {
        "push": {"type": "object", "fields": {"channel": {"type": "string"},
          "join": {"type": "object", "fields": {"user": {"type": "string"}}}}}}}
    ]}]}`

var _ = Describe("A frame named at a nested pointer", func() {
	It("is rewritten like any JSON frame, inside the objects its own fields list, and keeps its name", func() {
		c, err := contract.Parse("nested.json", []byte(nestedSample))
		Expect(err).NotTo(HaveOccurred())
		ch := c.Channel("/ws")
		f := future.Frame{Sender: c, Path: "/ws", Dir: contract.HostToClient, Data: []byte(`{"push":{"channel":"news","join":{"user":"u1"}}}`)}

		vs := future.Variants(future.Rand(1, 1, f.Dir, 1), f)
		Expect(rules(vs)).To(Equal([]string{"optional-field ", "nested-field /push", "nested-field /push/join"}),
			"the fields push.join lists, not push's or push.pub's")
		all, ok := future.All(future.Rand(1, 1, f.Dir, 1), f, nil)
		Expect(ok).To(BeTrue())
		for _, v := range append(vs, all) {
			d, err := ch.Decode(false, v.Data)
			Expect(err).NotTo(HaveOccurred(), v.What)
			Expect(d.Type).To(Equal("push.join"), "an added key is never one of the nested keys: %s", v.What)
		}
		push := decode(all.Data)["push"].(map[string]any)
		Expect(push).To(HaveLen(3), "channel, join and an added field")
		Expect(push["join"]).To(HaveLen(2), "user and an added field")
	})
})
