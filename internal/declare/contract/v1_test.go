package contract_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

var _ = Describe("Contract version 1", func() {
	It("reads the reference subject's version 1 contracts as they were written", func() {
		// Frozen copies of what the reference subject's releases carried before its contracts
		// moved to version 2 (testdata/v1).
		files, err := filepath.Glob(filepath.Join("testdata", "v1", "*.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(3))
		var c *contract.Contract
		for _, f := range files {
			c, err = contract.Load(f)
			Expect(err).NotTo(HaveOccurred(), f)
			Expect(c.ContractVersion).To(Equal(1))
		}
		c, err = contract.Load(filepath.Join("testdata", "v1", "remoteterm-worktree.json"))
		Expect(err).NotTo(HaveOccurred())
		term := c.ChannelNamed("terminal")
		Expect(term.Binary.Header.Fields).To(HaveLen(5))
		Expect(term.Text.JSON.Discriminator).To(Equal("type"))
		Expect(term.Negotiation).To(BeEmpty(), "version 1 could not say where negotiation is reported")
		Expect(term.Capability("outputSpan").DeclaredBy).NotTo(BeNil())
		session := c.ChannelNamed("session")
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
