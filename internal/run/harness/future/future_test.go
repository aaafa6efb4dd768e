package future_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// sample is a contract with a JSON channel (features, commands, a nested object and an
// array of objects) and a binary channel with a 4-byte header (capabilities, a text frame).
const sample = `{
  "contractVersion": 2, "product": "sample", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [
    {"name": "rpc", "paths": ["/rpc"], "text": {"json": {"discriminator": "type"}},
     "features": [{"name": "alpha"}, {"name": "beta"}],
     "commands": [{"id": "ping", "versions": [1, 2]}],
     "frames": [
       {"type": "info", "name": "info", "direction": "H>C", "payload": "json", "fields": {
          "features": {"type": "object"}, "commands": {"type": "object"},
          "where": {"type": "object", "fields": {"row": {"type": "integer"}, "inner": {"type": "object", "fields": {"x": {"type": "integer"}}}}},
          "items": {"type": "array", "items": {"type": "object", "fields": {"id": {"type": "integer"}}}}}},
       {"type": "hello", "name": "hello", "direction": "C>H", "payload": "json", "fields": {"commands": {"type": "object"}}}
     ]},
    {"name": "bin", "paths": ["/bin"],
     "binary": {"header": {"length": 4, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
     "capabilities": [{"name": "zoom"}, {"name": "pan"}],
     "frames": [
       {"opcode": 1, "name": "Open", "direction": "C>H", "payload": "json", "fields": {"capabilities": {"type": "object"}}},
       {"opcode": 2, "name": "Text", "direction": "H>C", "payload": "text"}
     ]}
  ]}`

func sampleContract() *contract.Contract {
	GinkgoHelper()
	c, err := contract.Parse("sample.json", []byte(sample))
	Expect(err).NotTo(HaveOccurred())
	return c
}

func rules(vs []future.Variant) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule+" "+v.Pointer)
	}
	return out
}

func decode(b []byte) map[string]any {
	GinkgoHelper()
	var v map[string]any
	Expect(json.Unmarshal(b, &v)).To(Succeed())
	return v
}

var info = `{"type":"info","features":{"alpha":true},"commands":{"ping":[1,2]},"where":{"row":1,"inner":{"x":2}},"items":[{"id":1}],"big":18446744073709551615}`

var _ = Describe("Variants", func() {
	var c *contract.Contract
	BeforeEach(func() { c = sampleContract() })

	variants := func(seed int64, path, dir string, binary bool, data []byte) []future.Variant {
		return future.Variants(future.Rand(seed, 1, dir, 1), future.Frame{Sender: c, Path: path, Dir: dir, Binary: binary, Data: data})
	}

	It("lists one variant per place a rule applies, in a stable order", func() {
		vs := variants(1, "/rpc", "H>C", false, []byte(info))
		Expect(rules(vs)).To(Equal([]string{
			"optional-field ",
			"nested-field /items/0", "nested-field /where", "nested-field /where/inner",
			"feature-key /features",
			"command-version /commands",
		}))
	})

	It("optional-field: adds a new top-level key and keeps every other value, big numbers included", func() {
		v := variants(1, "/rpc", "H>C", false, []byte(info))[0]
		Expect(string(v.Data)).To(ContainSubstring(`"big":18446744073709551615`))
		got, orig := decode(v.Data), decode([]byte(info))
		var added []string
		for k := range got {
			if _, ok := orig[k]; !ok {
				added = append(added, k)
			}
		}
		Expect(added).To(HaveLen(1))
		Expect(added[0]).To(HavePrefix(future.Marker))
		delete(got, added[0])
		Expect(got).To(Equal(orig))
		Expect(v.What).To(HavePrefix("added optional field /" + added[0]))
	})

	It("nested-field: adds inside objects the contract lists fields for, at any depth and in array elements", func() {
		vs := variants(1, "/rpc", "H>C", false, []byte(info))
		inner := decode(vs[3].Data)["where"].(map[string]any)["inner"].(map[string]any)
		Expect(inner).To(HaveLen(2))
		Expect(inner).To(HaveKeyWithValue("x", 2.0))
		item := decode(vs[1].Data)["items"].([]any)[0].(map[string]any)
		Expect(item).To(HaveLen(2))
	})

	It("feature-key: a host advertises a new feature, valued like the others", func() {
		v := variants(1, "/rpc", "H>C", false, []byte(info))[4]
		feats := decode(v.Data)["features"].(map[string]any)
		Expect(feats).To(HaveLen(2))
		for k, val := range feats {
			Expect(val).To(BeTrue(), k)
		}
	})

	It("command-version: every command gets a version above its own and a new command appears", func() {
		v := variants(1, "/rpc", "H>C", false, []byte(info))[5]
		cmds := decode(v.Data)["commands"].(map[string]any)
		Expect(cmds["ping"]).To(Equal([]any{1.0, 2.0, 3.0}))
		Expect(cmds).To(HaveKeyWithValue(future.Marker+"Command", []any{1.0}))
		Expect(v.What).To(ContainSubstring("ping v3"))
	})

	It("capability-key: only what a client declares, in a JSON payload behind a binary header kept byte for byte", func() {
		msg := append([]byte{1, 0, 0, 0}, `{"capabilities":{"zoom":1}}`...)
		vs := variants(1, "/bin", "C>H", true, msg)
		Expect(rules(vs)).To(Equal([]string{"optional-field ", "capability-key /capabilities"}))
		Expect(vs[1].Data[:4]).To(Equal([]byte{1, 0, 0, 0}))
		caps := decode(vs[1].Data[4:])["capabilities"].(map[string]any)
		Expect(caps).To(HaveLen(2))
		Expect(caps).To(HaveKeyWithValue("zoom", 1.0))
	})

	It("leaves alone what a future peer may not change: a feature map sent by a client, a text payload, bytes that do not decode", func() {
		Expect(rules(variants(1, "/rpc", "C>H", false, []byte(`{"type":"hello","features":{"alpha":true}}`)))).
			To(Equal([]string{"optional-field "}), "features are a host's to advertise")
		Expect(variants(1, "/bin", "H>C", true, append([]byte{2, 0, 0, 0}, `{"looks":"like json"}`...))).To(BeEmpty())
		Expect(variants(1, "/rpc", "H>C", false, []byte(`{"type":"info"`))).To(BeEmpty())
		Expect(variants(1, "/nowhere", "H>C", false, []byte(info))).To(BeEmpty())
		Expect(future.Variants(future.Rand(1, 1, "H>C", 1), future.Frame{Path: "/rpc", Dir: "H>C", Data: []byte(info)})).To(BeEmpty())
	})

	It("leaves alone a frame whose payload bytes the peers' flow control counts", func() {
		Expect(variants(1, "/rpc", "H>C", false, []byte(info))).NotTo(BeEmpty())
		counted := strings.Replace(sample, `{"type": "info", "name": "info", "direction": "H>C",`, `{"type": "info", "name": "info", "direction": "H>C", "counted": true,`, 1)
		Expect(counted).NotTo(Equal(sample))
		cc, err := contract.Parse("counted.json", []byte(counted))
		Expect(err).NotTo(HaveOccurred())
		Expect(future.Variants(future.Rand(1, 1, "H>C", 1), future.Frame{Sender: cc, Path: "/rpc", Dir: "H>C", Data: []byte(info)})).To(BeEmpty())
		_, ok := future.All(future.Rand(1, 1, "H>C", 1), future.Frame{Sender: cc, Path: "/rpc", Dir: "H>C", Data: []byte(info)}, nil)
		Expect(ok).To(BeFalse())
	})

	It("is deterministic: the same seed gives the same variants, another seed other names", func() {
		a := variants(7, "/rpc", "H>C", false, []byte(info))
		Expect(variants(7, "/rpc", "H>C", false, []byte(info))).To(Equal(a))
		b := variants(8, "/rpc", "H>C", false, []byte(info))
		Expect(b[0].Data).NotTo(Equal(a[0].Data))
	})
})

var _ = Describe("All", func() {
	It("applies every variant at once and says each", func() {
		c := sampleContract()
		v, ok := future.All(future.Rand(1, 1, "H>C", 1), future.Frame{Sender: c, Path: "/rpc", Dir: "H>C", Data: []byte(info)}, nil)
		Expect(ok).To(BeTrue())
		got := decode(v.Data)
		Expect(got).To(HaveLen(len(decode([]byte(info))) + 1))
		Expect(got["features"]).To(HaveLen(2))
		Expect(got["commands"]).To(HaveKey(future.Marker + "Command"))
		Expect(got["where"].(map[string]any)["inner"]).To(HaveLen(2))
		Expect(strings.Split(v.What, "; ")).To(HaveLen(6))

		_, ok = future.All(future.Rand(1, 1, "H>C", 1), future.Frame{Sender: c, Path: "/rpc", Dir: "H>C", Data: []byte(info)}, []string{"no-such-rule"})
		Expect(ok).To(BeFalse())
	})
})

var _ = Describe("Rewriter", func() {
	It("rewrites only the directions it is given, each message with one variant, the same for the same seed", func() {
		c := sampleContract()
		run := func(seed int64) []string {
			rw := future.New(future.Config{Seed: seed, Senders: map[string]*contract.Contract{"H>C": c}})
			var out []string
			for range 3 {
				data, what, ok := rw.Rewrite(tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.HostToClient, Data: []byte(info)})
				Expect(ok).To(BeTrue())
				Expect(what).To(MatchRegexp(`^(optional-field|nested-field|feature-key|command-version): added`))
				out = append(out, string(data))
			}
			_, _, ok := rw.Rewrite(tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.ClientToHost, Data: []byte(`{"type":"hello"}`)})
			Expect(ok).To(BeFalse(), "C>H is not bound for the build under test")
			return out
		}
		a := run(3)
		Expect(run(3)).To(Equal(a))
		Expect(strings.Join(run(4), "")).NotTo(Equal(strings.Join(a, "")))
	})

	It("with One, gives each message one variant", func() {
		rw := future.New(future.Config{Seed: 1, Senders: map[string]*contract.Contract{"H>C": sampleContract()}, One: true})
		for range 5 {
			_, what, ok := rw.Rewrite(tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.HostToClient, Data: []byte(info)})
			Expect(ok).To(BeTrue())
			Expect(what).NotTo(ContainSubstring("; "))
		}
	})

	It("uses only the rules it is given", func() {
		rw := future.New(future.Config{Seed: 1, Senders: map[string]*contract.Contract{"H>C": sampleContract()}, Rules: []string{future.RuleFeatureKey}})
		for range 5 {
			_, what, ok := rw.Rewrite(tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.HostToClient, Data: []byte(info)})
			Expect(ok).To(BeTrue())
			Expect(what).To(HavePrefix("feature-key: "))
		}
	})
})
