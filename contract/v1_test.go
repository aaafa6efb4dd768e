package contract_test

import (
	"maps"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/example"
)

var _ = Describe("Contract version 1", func() {
	It("reads the contract of every remoteterm release and of its working tree", func() {
		src := filepath.Join("..", filepath.FromSlash(example.SourceDir))
		h, err := example.LoadHistory(filepath.Join(src, "history.yaml"))
		Expect(err).NotTo(HaveOccurred())
		template, err := os.ReadFile(filepath.Join(src, "contract.template.json"))
		Expect(err).NotTo(HaveOccurred())
		features := map[string]any{}
		check := func(version string) *contract.Contract {
			doc, err := example.Contract(template, version, features)
			Expect(err).NotTo(HaveOccurred())
			c, err := contract.Parse(version+"/skewtest-contract.json", doc)
			Expect(err).NotTo(HaveOccurred(), version)
			Expect(c.ContractVersion).To(Equal(1))
			return c
		}
		for _, r := range h.Releases {
			maps.Copy(features, r.Set)
			check(r.Tag)
		}
		maps.Copy(features, h.Worktree.Set)
		c := check("worktree")

		term := c.ChannelNamed("terminal")
		Expect(term.Binary.Header.Fields).To(HaveLen(5))
		Expect(term.Text.JSON.Discriminator).To(Equal("type"))
		Expect(term.Negotiation).To(Equal([]contract.Negotiation{{Observation: "subscribed", Pointer: "/capabilities"}}))
		Expect(term.Capability("outputSpan").DeclaredBy).NotTo(BeNil())
		session := c.ChannelNamed("session")
		Expect(session.Negotiation).To(Equal([]contract.Negotiation{
			{Observation: "session", Where: map[string]any{"event": "server-info"}, Pointer: "/features"}}))
		Expect(session.Named("serverInfo", "H>C", "").Fields["features"].Type).To(Equal("object"))
	})

	It("means what it meant: declaredBy absent or empty, enums, opcodes before types", func() {
		c, err := contract.Parse("v1.json", []byte(`{"contractVersion": 1, "channels": [{"name": "t", "paths": ["/t"],
		  "binary": {"headerLength": 16, "magic": [{"offset": 0, "value": 116}], "opcodeOffset": 2, "streamOffset": 4, "seqOffset": 8},
		  "capabilities": [{"name": "a"}, {"name": "b", "declaredBy": [], "impliedBy": ["a"]}],
		  "frames": [{"opcode": 3, "type": "ignored", "name": "Three", "direction": "C>H", "payload": "json",
		              "fields": {"k": {"type": "string", "enum": ["x"]}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		ch := c.Channel("/t")
		Expect(ch.Capability("a").DeclaredByKind("mobile")).To(BeTrue())
		Expect(ch.Capability("b").DeclaredByKind("desktop")).To(BeFalse())
		Expect(ch.Negotiation).To(BeEmpty(), "nothing is echoed and there are no features")
		f := ch.Opcode(3, "C>H", "")
		Expect(f.Type).To(BeEmpty())
		Expect(f.Fields["k"].Enum).To(Equal([]any{"x"}))
		Expect(ch.Text).To(BeNil())

		d, err := ch.Decode(true, rtFrame(3, 1, 2, "{}"))
		Expect(err).NotTo(HaveOccurred())
		Expect(ch.Lookup(d, "C>H", "").Name).To(Equal("Three"))
		Expect(ch.Lookup(d, "H>C", "")).To(BeNil(), "version 1 files get the direction-aware lookup too")
		Expect(d.JSON).To(Equal(map[string]any{}))
	})
})
