package contract_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// kindsDoc is a channel whose H>C frame Span is known to desktop clients only; gate is its
// gates object ("" for none), extra more channel keys.
func kindsDoc(gate, extra string) string {
	g := ""
	if gate != "" {
		g = `, "gates": ` + gate
	}
	return `{"contractVersion": 2, "protocol": {"version": 1, "minCompatible": 1},
 "channels": [{"name": "term", "paths": ["/a", "/b"], "text": {"json": {"discriminator": "type"}},` + extra + `
  "capabilities": [
   {"name": "spans", "declaredBy": ["desktop"]},
   {"name": "mobileSpans", "declaredBy": ["mobile"]},
   {"name": "inferred", "declaredBy": [], "impliedBy": ["spans"]}],
  "frames": [
   {"type": "span", "name": "Span", "direction": "H>C", "kinds": ["desktop"]` + g + `},
   {"type": "out", "name": "Out", "direction": "H>C"}
  ]}]}`
}

var _ = Describe("gate-added", func() {
	DescribeTable("asks whether the older clients that know the frame negotiate the new gate",
		func(gate string, want []string) {
			older, newer := mustParse("old.json", kindsDoc("", "")), mustParse("new.json", kindsDoc(gate, ""))
			Expect(rulePointers(contract.Diff(older, newer, contract.DiffOptions{}))).To(Equal(want))
		},
		Entry("a capability older desktop clients declare", `{"*": "spans"}`, []string{}),
		Entry("a capability the newer host infers from one they declare", `{"/a": "inferred"}`, []string{}),
		Entry("a capability only mobile clients declare", `{"/b": "mobileSpans"}`, []string{"gate-added@/channels/0/frames/0/gates/~1b"}),
	)

	It("names the kinds that do not negotiate it", func() {
		vs := contract.Diff(mustParse("old.json", kindsDoc("", "")), mustParse("new.json", kindsDoc(`{"*": "mobileSpans"}`, "")), contract.DiffOptions{})
		Expect(vs).To(HaveLen(1))
		Expect(vs[0].Message).To(ContainSubstring("shipped ungated on /a, /b and is now sent there only once mobileSpans is negotiated, which older desktop clients do not declare"))
	})

	It("reads a frame every kind knows as known to each of the channel's clientKinds", func() {
		gated := func(kinds string) string {
			return strings.Replace(kindsDoc("", kinds), `"name": "Out", "direction": "H>C"`, `"name": "Out", "direction": "H>C", "gates": {"*": "spans"}`, 1)
		}
		vs := contract.Diff(mustParse("old.json", kindsDoc("", "")), mustParse("new.json", gated("")), contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"gate-added@/channels/0/frames/1/gates/*"}), "every kind, and not every kind declares spans")
		desktop := ` "clientKinds": ["desktop"],`
		vs = contract.Diff(mustParse("old.json", kindsDoc("", desktop)), mustParse("new.json", gated(desktop)), contract.DiffOptions{})
		Expect(vs).To(BeEmpty(), "the only kind declares spans")
	})
})

var _ = Describe("command versions", func() {
	gapped := apply(baseDoc, []edit{e(`"versions": [1, 2], "migration": {"2": "send mode"}`, `"versions": [1, 2, 4], "migration": {"2": "send mode", "4": "send a path"}`)})

	It("reports a gap of the newer contract even against itself, and across a protocol cut", func() {
		c := mustParse("gap.json", gapped)
		vs := contract.Diff(c, c, contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"command-versions-gap@/channels/0/commands/0/versions"}))
		Expect(vs[0].Line).To(Equal(lineWith(gapped, `"open"`)))

		cut := strings.Replace(gapped, `{"version": 2, "minCompatible": 1}`, `{"version": 3, "minCompatible": 3}`, 1)
		vs = contract.Diff(mustParse("old.json", baseDoc), mustParse("new.json", cut), contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"protocol-cut@/protocol/minCompatible", "command-versions-gap@/channels/0/commands/0/versions"}))

		Expect(contract.Diff(mustParse("gap.json", gapped), mustParse("base.json", baseDoc), contract.DiffOptions{})).To(
			HaveEach(HaveField("Rule", contract.RuleCommandVersionDropped)), "the older contract's gap is not the newer one's")
	})

	It("reads migration texts by version, and lists the gaps", func() {
		cmd := mustParse("gap.json", gapped).Channels[0].Command("open")
		Expect(cmd).NotTo(BeNil())
		Expect(cmd.MigrationOf(4)).To(Equal("send a path"))
		Expect(cmd.MigrationOf(1)).To(BeEmpty())
		Expect(cmd.Gaps()).To(Equal([]int{3}))
		Expect((&contract.Command{Versions: []int{3, 1, 2}}).Gaps()).To(BeEmpty(), "order does not matter")
		Expect((&contract.Command{Versions: []int{2, 6, 3}}).Gaps()).To(Equal([]int{4, 5}))
	})

	It("counts every version above 1 of a channel the older contract lacks as new", func() {
		added := strings.Replace(baseDoc, `"channels": [{`, `"channels": [{"name": "rpc", "paths": ["/rpc"], "text": {"json": {"discriminator": "type"}}, "frames": [],
    "commands": [{"id": "call", "versions": [1, 2]}]}, {`, 1)
		vs := contract.Diff(mustParse("old.json", baseDoc), mustParse("new.json", added), contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"command-version-undocumented@/channels/0/commands/0/versions/1"}))
		Expect(vs[0].Message).To(HavePrefix("rpc: command call version 2 is new and has no migration text"))
	})
})

var _ = Describe("a peer that omits its protocol version", func() {
	DescribeTable("speaks the other side's declared default (Overlaps)",
		func(p, q contract.Protocol, want bool) {
			Expect(p.Overlaps(q)).To(Equal(want))
			Expect(q.Overlaps(p)).To(Equal(want), "the rule is symmetric")
		},
		Entry("no default: version 0 is below any minimum", contract.Protocol{}, contract.Protocol{Version: 2, MinCompatible: 1}, false),
		Entry("default 1, accepted", contract.Protocol{}, contract.Protocol{Version: 2, MinCompatible: 1, Omitted: 1}, true),
		Entry("default 1, below the minimum", contract.Protocol{}, contract.Protocol{Version: 2, MinCompatible: 2, Omitted: 1}, false),
		Entry("a declared version wins over the default", contract.Protocol{Version: 1, MinCompatible: 1}, contract.Protocol{Version: 3, MinCompatible: 2, Omitted: 2}, false),
		Entry("both declare: as before", contract.Protocol{Version: 2, MinCompatible: 1}, contract.Protocol{Version: 3, MinCompatible: 2}, true),
	)

	It("says the default in the window's text", func() {
		Expect(contract.Protocol{Version: 2, MinCompatible: 1, Omitted: 1}.String()).To(Equal("protocol 2 (minCompatible 1; a peer that omits its version speaks 1)"))
		Expect(contract.Protocol{}.String()).To(Equal("no protocol version (minCompatible 0)"))
		Expect(contract.Protocol{Version: 2, MinCompatible: 2}.String()).To(Equal("protocol 2 (minCompatible 2)"))
	})

	It("cuts a peer that declares no version when the newer minimum is above the default", func() {
		older := strings.Replace(baseDoc, `"protocol": {"version": 2, "minCompatible": 1},`, ``, 1)
		newer := func(protocol string) *contract.Contract {
			return mustParse("new.json", strings.Replace(baseDoc, `{"version": 2, "minCompatible": 1}`, protocol, 1))
		}
		Expect(contract.Diff(mustParse("old.json", older), newer(`{"version": 3, "minCompatible": 2}`), contract.DiffOptions{})).To(BeEmpty(),
			"without a default, the older window is unknown")
		vs := contract.Diff(mustParse("old.json", older), newer(`{"version": 3, "minCompatible": 2, "omitted": 1}`), contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"protocol-cut@/protocol/minCompatible"}))
		Expect(vs[0].Message).To(HavePrefix("minCompatible 2 is above the older build's protocol version 1 (it declares none; the newer build takes such a peer to speak 1)"))
		Expect(contract.Diff(mustParse("old.json", older), newer(`{"version": 3, "minCompatible": 1, "omitted": 1}`), contract.DiffOptions{})).To(BeEmpty())
	})
})

var _ = Describe("Warnings", func() {
	// decided is a channel of two client kinds whose H>C frames each decide both, and a C>H
	// frame that needs no decision.
	const decided = `{"contractVersion": 2,
 "channels": [{"name": "term", "paths": ["/a"], "clientKinds": ["desktop", "mobile"],
  "binary": {"header": {"length": 1, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
  "capabilities": [{"name": "spans", "declaredBy": ["desktop"]}],
  "frames": [
   {"opcode": 1, "name": "Output", "direction": "H>C"},
   {"opcode": 2, "name": "Meta", "direction": "both", "kinds": ["desktop", "mobile"]},
   {"opcode": 15, "name": "OutputSpan", "direction": "H>C", "kinds": ["desktop"], "gates": {"*": "spans"}},
   {"opcode": 17, "name": "Busy", "direction": "H>C", "kinds": ["desktop"], "never": ["mobile"]},
   {"opcode": 7, "name": "Input", "direction": "C>H", "kinds": ["desktop"]}
  ]}]}`

	It("finds nothing when every frame the host sends decides every kind", func() {
		Expect(contract.Warnings(mustParse("decided.json", decided))).To(BeEmpty())
	})

	It("warns of a frame the host sends that a kind does not know, ungated and not never sent to it", func() {
		doc := strings.Replace(decided, `"kinds": ["desktop"], "gates": {"*": "spans"}`, `"kinds": ["desktop"]`, 1)
		ws := contract.Warnings(mustParse("undecided.json", doc))
		Expect(ws).To(HaveLen(1))
		w := ws[0]
		Expect(w.Rule).To(Equal(contract.WarnFrameKindUndecided))
		Expect(w.Pointer).To(Equal("/channels/0/frames/2"))
		Expect(w.String()).To(Equal(fmt.Sprintf(`undecided.json:%d: warning: frame-kind-undecided: term: H>C OutputSpan (opcode 15) says nothing about mobile clients: the host may send it to a decoder that drops it. Say which: list the kind in "kinds" (it decodes the frame), gate the frame, or add it to "never" (the host never sends it there)`,
			lineWith(doc, `"OutputSpan"`))))
	})

	It("names every undecided kind, and needs clientKinds to decide anything", func() {
		doc := strings.Replace(decided, `"clientKinds": ["desktop", "mobile"]`, `"clientKinds": ["desktop", "mobile", "watch"]`, 1)
		ws := contract.Warnings(mustParse("watch.json", doc))
		Expect(ws).To(HaveLen(2))
		Expect(ws[0].Pointer).To(Equal("/channels/0/frames/1"))
		Expect(ws[0].Message).To(HavePrefix("term: H>C Meta (opcode 2) says nothing about watch clients:"))
		Expect(ws[1].Pointer).To(Equal("/channels/0/frames/3"))
		Expect(ws[1].Message).To(HavePrefix("term: H>C Busy (opcode 17) says nothing about watch clients:"))
		doc = strings.Replace(doc, `"kinds": ["desktop"], "never": ["mobile"]`, `"kinds": ["desktop"], "never": ["mobile", "watch"]`, 1)
		Expect(contract.Warnings(mustParse("watch.json", doc))).To(HaveLen(1), "never decides for watch")

		Expect(contract.WarningsSince(mustParse("decided.json", decided), mustParse("watch.json", doc))).To(HaveLen(1), "the one watch brought")
		Expect(contract.WarningsSince(mustParse("watch.json", doc), mustParse("watch.json", doc))).To(BeEmpty())

		undeclared := strings.Replace(strings.Replace(decided, `"clientKinds": ["desktop", "mobile"],`, ``, 1), `, "never": ["mobile"]`, ``, 1)
		Expect(contract.Warnings(mustParse("none.json", undeclared))).To(BeEmpty())
	})
})
