package contract_test

import (
	"fmt"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// baseDoc is the older contract of every rule case: one frame, field or capability a line,
// so that a case is a few text edits and a violation's line is easy to name.
const baseDoc = `{
  "contractVersion": 2, "product": "p", "version": "v1",
  "protocol": {"version": 2, "minCompatible": 1},
  "channels": [{
    "name": "term", "paths": ["/a", "/b"], "quiet": "3s",
    "binary": {"header": {"length": 4, "fields": [
      {"name": "magic", "offset": 0, "encoding": "u8", "value": 116},
      {"name": "type", "offset": 1, "encoding": "u8"},
      {"name": "stream", "offset": 2, "encoding": "u16le"}]}},
    "text": {"json": {"discriminator": "type", "nested": [{"pointer": "/push", "keys": ["pub", "join"]}]}},
    "capabilities": [
      {"name": "span", "declaredBy": ["desktop"], "echoed": true},
      {"name": "extra"}],
    "features": [{"name": "pause", "frames": ["Pause"]}, {"name": "quiet"}],
    "commands": [{"id": "open", "versions": [1, 2], "migration": {"2": "send mode"}}],
    "frames": [
      {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},
      {"opcode": 2, "name": "Start", "direction": "H>C", "payload": "json", "fields": {
        "kind": {"type": "string", "required": true, "enum": ["a", "b"]},
        "cols": {"type": "integer", "required": true},
        "cwd": {"type": "string"},
        "size": {"type": "object", "fields": {"w": {"type": "integer"}}},
        "tags": {"type": "array", "items": {"type": "string"}}}},
      {"opcode": 7, "name": "Input", "direction": "C>H", "payload": "text"},
      {"opcode": 15, "name": "Span", "direction": "H>C", "payload": "json", "kinds": ["desktop"], "gates": {"*": "span"}},
      {"opcode": 16, "name": "Pause", "direction": "C>H", "payload": "empty"},
      {"opcode": 20, "name": "Ack", "direction": "C>H", "payload": "binary", "fields": {"seq": {"offset": 0, "encoding": "u32le"}}},
      {"type": "hello", "name": "hello", "direction": "both", "payload": "json"},
      {"type": "ready", "name": "ready", "direction": "H>C"},
      {"type": "push.pub", "name": "push.pub", "direction": "H>C", "payload": "json", "fields": {"push": {"type": "object", "fields": {"channel": {"type": "string"}, "pub": {"type": "object"}}}}},
      {"type": "push.join", "name": "push.join", "direction": "H>C", "payload": "json", "fields": {"push": {"type": "object", "fields": {"channel": {"type": "string"}, "join": {"type": "object"}}}}}
    ]
  }]
}
`

// edit replaces from (which must occur exactly once) with to.
type edit struct{ from, to string }

func apply(doc string, edits []edit) string {
	GinkgoHelper()
	for _, e := range edits {
		Expect(strings.Count(doc, e.from)).To(Equal(1), "edit %q must match once", e.from)
		doc = strings.Replace(doc, e.from, e.to, 1)
	}
	return doc
}

// ruleCase is a minimal pair: the base contract and the base with edits. want lists the
// violations as rule@pointer, in order; at, when set, is text on the line the first
// violation must be placed at, in the file its pointer is in.
type ruleCase struct {
	name  string
	edits []edit
	want  []string
	at    string
}

func e(from, to string) edit { return edit{from, to} }

var ruleCases = []ruleCase{
	{"a frame removed", []edit{e(`      {"opcode": 7, "name": "Input", "direction": "C>H", "payload": "text"},`+"\n", "")},
		[]string{"frame-removed@/channels/0/frames/2"}, `"name": "Input"`},
	{"an opcode renumbered", []edit{e(`"opcode": 7, "name": "Input"`, `"opcode": 8, "name": "Input"`)},
		[]string{"opcode-renumbered@/channels/0/frames/2/opcode"}, `"opcode": 8`},
	{"a type renamed", []edit{e(`{"type": "ready", "name": "ready"`, `{"type": "isready", "name": "ready"`)},
		[]string{"opcode-renumbered@/channels/0/frames/7/type"}, `"isready"`},
	{"a frame renamed", []edit{e(`"name": "Input"`, `"name": "Keys"`)},
		[]string{"frame-renamed@/channels/0/frames/2/name"}, `"Keys"`},
	{"an opcode reused for another frame", []edit{e(`{"opcode": 7, "name": "Input", "direction": "C>H", "payload": "text"},`,
		`{"opcode": 7, "name": "Keys", "direction": "C>H", "payload": "text"}, {"opcode": 8, "name": "Input", "direction": "C>H", "payload": "text"},`)},
		[]string{"opcode-renumbered@/channels/0/frames/3/opcode", "frame-renamed@/channels/0/frames/2/name"}, ""},
	{"both ways narrowed to one", []edit{e(`"name": "hello", "direction": "both"`, `"name": "hello", "direction": "H>C"`)},
		[]string{"direction-changed@/channels/0/frames/6/direction"}, `"name": "hello"`},
	{"a direction turned round", []edit{e(`"name": "Input", "direction": "C>H"`, `"name": "Input", "direction": "H>C"`)},
		[]string{"direction-changed@/channels/0/frames/2/direction"}, ""},
	{"a payload kind changed", []edit{e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "json"`)},
		[]string{"payload-changed@/channels/0/frames/0/payload"}, `"name": "Output"`},
	{"a client kind lost a frame", []edit{e(`"kinds": ["desktop"]`, `"kinds": ["tablet"]`)},
		[]string{"frame-kind-removed@/channels/0/frames/3/kinds"}, `"tablet"`},
	{"a frame every kind knew limited to one", []edit{e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "kinds": ["desktop"]`)},
		[]string{"frame-kind-removed@/channels/0/frames/0/kinds"}, ""},
	{"a gate removed", []edit{e(`, "gates": {"*": "span"}`, "")},
		[]string{"gate-removed@/channels/0/frames/3/gates/*"}, `"gates": {"*": "span"}`},
	{"a gate removed on one path", []edit{e(`"gates": {"*": "span"}`, `"gates": {"/a": "span"}`)},
		[]string{"gate-removed@/channels/0/frames/3/gates/*"}, ""},
	{"a gate added where the frame shipped ungated", []edit{e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"/a": "span"}`)},
		[]string{"gate-added@/channels/0/frames/0/gates/~1a"}, `"gates": {"/a": "span"}`},
	{"a gate added to the paths a frame shipped ungated on", []edit{e(`"gates": {"*": "span"}`, `"gates": {"/a": "span"}`),
		e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"*": "span"}`)},
		[]string{"gate-added@/channels/0/frames/0/gates/*", "gate-removed@/channels/0/frames/3/gates/*"}, `"name": "Output"`},
	{"a gate added to a frame the client sends, by a capability older hosts do not echo", []edit{e(`"name": "Input", "direction": "C>H", "payload": "text"`, `"name": "Input", "direction": "C>H", "payload": "text", "gates": {"*": "extra"}`)},
		[]string{"gate-added@/channels/0/frames/2/gates/*"}, `"name": "Input"`},
	{"a frame the client sends gated by a feature older hosts do not know", []edit{e(`{"name": "quiet"}`, `{"name": "quiet"}, {"name": "loud", "frames": ["Input"]}`)},
		[]string{"gate-added@/channels/0/features/2/frames/0"}, `"loud"`},
	{"a gate changed", []edit{e(`"gates": {"*": "span"}`, `"gates": {"*": "extra"}`)},
		[]string{"gate-changed@/channels/0/frames/3/gates/*"}, `"*": "extra"`},
	{"a feature that gated a frame removed", []edit{e(`{"name": "pause", "frames": ["Pause"]}, `, "")},
		[]string{"gate-removed@/channels/0/features/0/frames/0", "feature-removed@/channels/0/features/0"}, `"name": "pause"`},
	{"a field removed", []edit{e(`        "cwd": {"type": "string"},`+"\n", "")},
		[]string{"field-removed@/channels/0/frames/1/fields/cwd"}, `"cwd"`},
	{"a nested field removed", []edit{e(`"fields": {"w": {"type": "integer"}}`, `"fields": {}`)},
		[]string{"field-removed@/channels/0/frames/1/fields/size/fields/w"}, `"size"`},
	{"a required field added", []edit{e(`        "cwd": {"type": "string"},`, `        "cwd": {"type": "string"}, "rows": {"type": "integer", "required": true},`)},
		[]string{"field-required-added@/channels/0/frames/1/fields/rows"}, `"rows"`},
	{"a required nested field added", []edit{e(`{"w": {"type": "integer"}}`, `{"w": {"type": "integer"}, "h": {"type": "integer", "required": true}}`)},
		[]string{"field-required-added@/channels/0/frames/1/fields/size/fields/h"}, ""},
	{"an optional field made required", []edit{e(`"cwd": {"type": "string"}`, `"cwd": {"type": "string", "required": true}`)},
		[]string{"field-made-required@/channels/0/frames/1/fields/cwd/required"}, `"cwd"`},
	{"a required field made optional", []edit{e(`"cols": {"type": "integer", "required": true}`, `"cols": {"type": "integer"}`)},
		[]string{"field-made-optional@/channels/0/frames/1/fields/cols"}, `"cols"`},
	{"a type changed", []edit{e(`"cols": {"type": "integer"`, `"cols": {"type": "number"`)},
		[]string{"type-changed@/channels/0/frames/1/fields/cols/type"}, `"cols"`},
	{"a nested type changed", []edit{e(`{"w": {"type": "integer"}}`, `{"w": {"type": "string"}}`)},
		[]string{"type-changed@/channels/0/frames/1/fields/size/fields/w/type"}, ""},
	{"an item type changed", []edit{e(`"items": {"type": "string"}`, `"items": {"type": "integer"}`)},
		[]string{"type-changed@/channels/0/frames/1/fields/tags/items/type"}, `"tags"`},
	{"a type dropped", []edit{e(`"cwd": {"type": "string"}`, `"cwd": {}`)},
		[]string{"type-changed@/channels/0/frames/1/fields/cwd/type"}, ""},
	{"an enum narrowed", []edit{e(`"enum": ["a", "b"]`, `"enum": ["a"]`)},
		[]string{"enum-narrowed@/channels/0/frames/1/fields/kind/enum"}, `"kind"`},
	{"an enum put on a field that had none", []edit{e(`"cwd": {"type": "string"}`, `"cwd": {"type": "string", "enum": ["/"]}`)},
		[]string{"enum-narrowed@/channels/0/frames/1/fields/cwd/enum"}, ""},
	{"a binary field moved", []edit{e(`"seq": {"offset": 0, "encoding": "u32le"}`, `"seq": {"offset": 4, "encoding": "u32le"}`)},
		[]string{"field-layout-changed@/channels/0/frames/5/fields/seq"}, `"Ack"`},
	{"a capability removed", []edit{e(`,`+"\n"+`      {"name": "extra"}]`, `]`)},
		[]string{"capability-removed@/channels/0/capabilities/1"}, `{"name": "extra"}`},
	{"a feature removed", []edit{e(`, {"name": "quiet"}`, "")},
		[]string{"feature-removed@/channels/0/features/1"}, ""},
	{"a command version dropped", []edit{e(`"versions": [1, 2]`, `"versions": [2]`)},
		[]string{"command-version-dropped@/channels/0/commands/0/versions/0"}, `"open"`},
	{"a command removed", []edit{e(`[{"id": "open", "versions": [1, 2], "migration": {"2": "send mode"}}]`, `[]`)},
		[]string{"command-version-dropped@/channels/0/commands/0/versions/0", "command-version-dropped@/channels/0/commands/0/versions/1"}, ""},
	{"a new command version without migration text", []edit{e(`"versions": [1, 2]`, `"versions": [1, 2, 3]`)},
		[]string{"command-version-undocumented@/channels/0/commands/0/versions/2"}, `"open"`},
	{"a new command with two versions, the second undocumented", []edit{e(`"migration": {"2": "send mode"}}]`, `"migration": {"2": "send mode"}}, {"id": "close", "versions": [1, 2]}]`)},
		[]string{"command-version-undocumented@/channels/0/commands/1/versions/1"}, `"close"`},
	{"command versions with a gap", []edit{e(`"versions": [1, 2], "migration": {"2": "send mode"}`, `"versions": [1, 2, 4], "migration": {"2": "send mode", "4": "send a path"}`)},
		[]string{"command-versions-gap@/channels/0/commands/0/versions"}, `"open"`},
	{"a quiet period shortened", []edit{e(`"quiet": "3s"`, `"quiet": "1s"`)},
		[]string{"quiet-shortened@/channels/0/quiet"}, `"quiet": "1s"`},
	{"a quiet period no longer declared", []edit{e(`, "quiet": "3s"`, "")},
		[]string{"quiet-shortened@/channels/0"}, ""},
	{"the protocol cut", []edit{e(`{"version": 2, "minCompatible": 1}`, `{"version": 3, "minCompatible": 3}`), e(`"name": "Input"`, `"name": "Keys"`)},
		[]string{"protocol-cut@/protocol/minCompatible"}, `"protocol"`},
	{"the protocol version lowered", []edit{e(`{"version": 2, "minCompatible": 1}`, `{"version": 1, "minCompatible": 1}`)},
		[]string{"protocol-version-lowered@/protocol/version"}, ""},
	{"a channel removed", []edit{e(`"name": "term", "paths": ["/a", "/b"]`, `"name": "other", "paths": ["/c", "/d"]`)},
		[]string{"channel-removed@/channels/0"}, ""},
	{"a path removed", []edit{e(`"paths": ["/a", "/b"]`, `"paths": ["/a"]`)},
		[]string{"path-removed@/channels/0/paths/1"}, `"paths"`},
	{"a header constant changed", []edit{e(`"value": 116`, `"value": 117`)},
		[]string{"framing-changed@/channels/0/binary/header/fields", "framing-changed@/channels/0/binary/header/fields/0"}, ""},
	{"the opcode moved in the header", []edit{e(`{"name": "type", "offset": 1, "encoding": "u8"}`, `{"name": "type", "offset": 3, "encoding": "u8"}`)},
		[]string{"framing-changed@/channels/0/binary/header/fields/1"}, `"offset": 3`},
	{"another discriminator", []edit{e(`"discriminator": "type"`, `"discriminator": "kind"`)},
		[]string{"framing-changed@/channels/0/text/json/discriminator"}, `"discriminator"`},
	{"a key dropped from a nested entry", []edit{e(`"keys": ["pub", "join"]`, `"keys": ["pub"]`)},
		[]string{"framing-changed@/channels/0/text/json/nested/0/keys"}, `"nested"`},
	{"a nested entry removed", []edit{e(`, "nested": [{"pointer": "/push", "keys": ["pub", "join"]}]`, "")},
		[]string{"framing-changed@/channels/0/text/json/nested"}, `"discriminator"`},
	{"a field removed from one nested-named frame", []edit{e(`"channel": {"type": "string"}, "pub"`, `"pub"`)},
		[]string{"field-removed@/channels/0/frames/8/fields/push/fields/channel"}, `"push.pub"`},
}

// compatible are changes of each kind a newer build may make: no violation.
var compatible = []struct {
	name  string
	edits []edit
}{
	{"nothing", nil},
	{"a quiet period lengthened", []edit{e(`"quiet": "3s"`, `"quiet": "5s"`)}},
	{"a new optional field", []edit{e(`        "cwd": {"type": "string"},`, `        "cwd": {"type": "string"}, "rows": {"type": "integer"},`)}},
	{"a new optional nested field", []edit{e(`{"w": {"type": "integer"}}`, `{"w": {"type": "integer"}, "h": {"type": "integer"}}`)}},
	{"a new gated frame", []edit{e(`      {"type": "ready"`, `      {"opcode": 17, "name": "Busy", "direction": "H>C", "payload": "empty", "gates": {"*": "extra"}},`+"\n"+`      {"type": "ready"`)}},
	{"a new ungated frame", []edit{e(`      {"type": "ready"`, `      {"opcode": 18, "name": "Bell", "direction": "H>C"},`+"\n"+`      {"type": "ready"`)}},
	{"a new command", []edit{e(`"migration": {"2": "send mode"}}]`, `"migration": {"2": "send mode"}}, {"id": "close", "versions": [1]}]`)}},
	{"a new command version with migration text", []edit{e(`"versions": [1, 2], "migration": {"2": "send mode"}`, `"versions": [1, 2, 3], "migration": {"2": "send mode", "3": "send a path, not a name"}`)}},
	{"a new command with two versions, each documented", []edit{e(`"migration": {"2": "send mode"}}]`, `"migration": {"2": "send mode"}}, {"id": "close", "versions": [1, 2], "migration": {"2": "say why"}}]`)}},
	{"migration text added to a version that shipped without it", []edit{e(`"migration": {"2": "send mode"}`, `"migration": {}`)}},
	{"a new feature", []edit{e(`, {"name": "quiet"}`, `, {"name": "quiet"}, {"name": "more"}`)}},
	{"a new capability", []edit{e(`{"name": "extra"}]`, `{"name": "extra"}, {"name": "more", "echoed": true}]`)}},
	{"a wider enum", []edit{e(`"enum": ["a", "b"]`, `"enum": ["a", "b", "c"]`)}},
	{"a gate added that every older client negotiates (it declares the capability)", []edit{e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"/a": "extra"}`)}},
	{"a gate added by a capability the newer host infers from one every older client declares", []edit{
		e(`{"name": "extra"}]`, `{"name": "extra"}, {"name": "out", "declaredBy": [], "impliedBy": ["extra"]}]`),
		e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"*": "out"}`)}},
	{"a gate added on a path that is new", []edit{e(`"paths": ["/a", "/b"]`, `"paths": ["/a", "/b", "/c"]`),
		e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"/c": "span"}`)}},
	{"a frame the client sends gated by a feature the older host knows", []edit{e(`{"name": "quiet"}`, `{"name": "quiet", "frames": ["Input"]}`)}},
	{"a frame the host sends gated by a new feature of its own", []edit{e(`{"name": "quiet"}`, `{"name": "quiet"}, {"name": "bell"}`),
		e(`"name": "Output", "direction": "H>C", "payload": "text"`, `"name": "Output", "direction": "H>C", "payload": "text", "gates": {"*": "bell"}`)}},
	{"a direction widened to both", []edit{e(`"name": "Input", "direction": "C>H"`, `"name": "Input", "direction": "both"`)}},
	{"a client kind added", []edit{e(`"kinds": ["desktop"]`, `"kinds": ["desktop", "mobile"]`)}},
	{"minCompatible raised inside the window", []edit{e(`{"version": 2, "minCompatible": 1}`, `{"version": 3, "minCompatible": 2}`)}},
	{"a payload said where it was left out", []edit{e(`{"type": "ready", "name": "ready", "direction": "H>C"}`, `{"type": "ready", "name": "ready", "direction": "H>C", "payload": "json"}`)}},
	{"a header field renamed", []edit{e(`{"name": "magic", "offset": 0`, `{"name": "magic0", "offset": 0`)}},
	{"frames reordered", []edit{e(`      {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},`+"\n", ""),
		e(`      {"type": "ready"`, `      {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},`+"\n"+`      {"type": "ready"`)}},
	{"a new path", []edit{e(`"paths": ["/a", "/b"]`, `"paths": ["/a", "/b", "/c"]`)}},
	{"a key added to a nested entry", []edit{e(`"keys": ["pub", "join"]`, `"keys": ["pub", "join", "leave"]`)}},
	{"a nested entry added", []edit{e(`{"pointer": "/push", "keys": ["pub", "join"]}]`, `{"pointer": "/push", "keys": ["pub", "join"]}, {"pointer": "/reply", "keys": ["ok"]}]`)}},
}

func mustParse(name, doc string) *contract.Contract {
	GinkgoHelper()
	c, err := contract.Parse(name, []byte(doc))
	Expect(err).NotTo(HaveOccurred(), "%s:\n%s", name, doc)
	return c
}

// lineWith is the 1-based line of doc holding text.
func lineWith(doc, text string) int {
	GinkgoHelper()
	i := strings.Index(doc, text)
	Expect(i).To(BeNumerically(">=", 0), "no %q in the document", text)
	return 1 + strings.Count(doc[:i], "\n")
}

func rulePointers(vs []contract.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Rule + "@" + v.Pointer
	}
	return out
}

var _ = Describe("Diff", func() {
	entries := []TableEntry{}
	for _, rc := range ruleCases {
		entries = append(entries, Entry(rc.name, rc))
	}
	DescribeTable("each rule fires on a minimal pair, placed in the file its pointer is in",
		func(rc ruleCase) {
			newDoc := apply(baseDoc, rc.edits)
			older, newer := mustParse("old.json", baseDoc), mustParse("new.json", newDoc)
			vs := contract.Diff(older, newer, contract.DiffOptions{})
			Expect(rulePointers(vs)).To(Equal(rc.want), "%v", vs)
			for _, v := range vs {
				r := contract.RuleByID(v.Rule)
				Expect(r).NotTo(BeNil())
				Expect(v.In).To(Equal(r.In), v.Rule)
				Expect(v.Message).NotTo(BeEmpty())
				file, doc := "new.json", newDoc
				if v.In == contract.SideOld {
					file, doc = "old.json", baseDoc
				}
				Expect(v.File).To(Equal(file))
				Expect(v.Line).To(BeNumerically(">", 0))
				Expect(v.String()).To(HavePrefix(fmt.Sprintf("%s:%d: %s: ", file, v.Line, v.Rule)))
				if rc.at != "" && v == vs[0] {
					Expect(v.Line).To(Equal(lineWith(doc, rc.at)), "%s", v)
				}
			}
		},
		entries,
	)

	It("has a minimal pair for every rule", func() {
		fired := map[string]bool{}
		for _, rc := range ruleCases {
			for _, w := range rc.want {
				rule, _, _ := strings.Cut(w, "@")
				fired[rule] = true
			}
		}
		for _, r := range contract.Rules {
			Expect(fired).To(HaveKey(r.ID), "no case fires %s", r.ID)
		}
	})

	compatEntries := []TableEntry{}
	for _, c := range compatible {
		compatEntries = append(compatEntries, Entry(c.name, c.edits))
	}
	DescribeTable("passes a compatible change with no violation",
		func(edits []edit) {
			older, newer := mustParse("old.json", baseDoc), mustParse("new.json", apply(baseDoc, edits))
			Expect(contract.Diff(older, newer, contract.DiffOptions{})).To(BeEmpty())
		},
		compatEntries,
	)

	It("passes a nested rule added to a codec that had none", func() {
		older := apply(baseDoc, []edit{e(`, "nested": [{"pointer": "/push", "keys": ["pub", "join"]}]`, "")})
		Expect(contract.Diff(mustParse("old.json", older), mustParse("new.json", baseDoc), contract.DiffOptions{})).To(BeEmpty())
	})

	It("diffs a protobuf codec's nested naming like a JSON codec's", func() {
		const doc = `{"contractVersion": 2, "channels": [{"name": "w", "paths": ["/w"],
		  "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Command",
		             "naming": {"nested": [{"pointer": "/publish", "keys": ["data", "topic"]}], "keys": ["publish"]}}},
		  "frames": [{"type": "publish", "name": "Publish", "direction": "C>H"}]}]}`
		older := mustParse("testdata/old.json", doc)
		newer := mustParse("testdata/new.json", strings.Replace(doc, `"keys": ["data", "topic"]`, `"keys": ["topic", "seq"]`, 1))
		vs := contract.Diff(older, newer, contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"framing-changed@/channels/0/binary/protobuf/naming/nested/0/keys"}))
		Expect(vs[0].Message).To(ContainSubstring(`the key "data" at /publish no longer names a frame: publish.data`))
	})

	It("reports removals, not additions, when the newer contract is the older one's superset read backwards", func() {
		newer := apply(baseDoc, []edit{e(`      {"type": "ready"`, `      {"opcode": 18, "name": "Bell", "direction": "H>C"},`+"\n"+`      {"type": "ready"`)})
		vs := contract.Diff(mustParse("new.json", newer), mustParse("old.json", baseDoc), contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"frame-removed@/channels/0/frames/7"}))
		Expect(vs[0].File).To(Equal("new.json"))
		Expect(vs[0].Line).To(Equal(lineWith(newer, `"Bell"`)))
	})

	It("leaves out what the caller allows, by rule or by rule and pointer", func() {
		newDoc := apply(baseDoc, []edit{e(`"versions": [1, 2]`, `"versions": [2]`), e(`, {"name": "quiet"}`, "")})
		older, newer := mustParse("old.json", baseDoc), mustParse("new.json", newDoc)
		Expect(contract.Diff(older, newer, contract.DiffOptions{})).To(HaveLen(2))

		a, err := contract.ParseAllowance("command-version-dropped@/channels/0/commands/0")
		Expect(err).NotTo(HaveOccurred())
		vs := contract.Diff(older, newer, contract.DiffOptions{Allowed: contract.Allowing(a)})
		Expect(rulePointers(vs)).To(Equal([]string{"feature-removed@/channels/0/features/1"}))

		a, _ = contract.ParseAllowance("command-version-dropped@/channels/0/commands/1")
		Expect(contract.Diff(older, newer, contract.DiffOptions{Allowed: contract.Allowing(a)})).To(HaveLen(2), "another pointer allows nothing here")

		policy := func(v contract.Violation) bool { return v.Rule == contract.RuleCommandVersionDropped }
		Expect(contract.Diff(older, newer, contract.DiffOptions{Allowed: policy})).To(HaveLen(1))
	})

	DescribeTable("reads allowances",
		func(in string, want contract.Allowance, wantErr string) {
			a, err := contract.ParseAllowance(in)
			if wantErr != "" {
				Expect(err).To(MatchError(ContainSubstring(wantErr)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(a).To(Equal(want))
			Expect(a.String()).To(Equal(in))
		},
		Entry("a rule", "protocol-cut", contract.Allowance{Rule: "protocol-cut"}, ""),
		Entry("a rule at a pointer", "field-removed@/channels/0/frames/1/fields/cwd", contract.Allowance{Rule: "field-removed", Pointer: "/channels/0/frames/1/fields/cwd"}, ""),
		Entry("an unknown rule", "frame-deleted", contract.Allowance{}, `unknown rule "frame-deleted" (rules: protocol-cut, `),
		Entry("not a pointer", "field-removed@cwd", contract.Allowance{}, "after @ give a JSON pointer"),
	)

	It("does not check the vocabulary across a protocol cut", func() {
		newDoc := apply(baseDoc, []edit{e(`{"version": 2, "minCompatible": 1}`, `{"version": 3, "minCompatible": 3}`), e(`, {"name": "quiet"}`, "")})
		older, newer := mustParse("old.json", baseDoc), mustParse("new.json", newDoc)
		vs := contract.Diff(older, newer, contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"protocol-cut@/protocol/minCompatible"}))
		Expect(vs[0].Message).To(ContainSubstring("minCompatible 3 is above the older build's protocol version 2: the builds refuse each other"))
		Expect(contract.Diff(older, newer, contract.DiffOptions{Allowed: contract.Allowing(contract.Allowance{Rule: contract.RuleProtocolCut})})).To(BeEmpty())
	})

	It("says what broke in words", func() {
		cases := map[string]string{
			"a frame removed":            "term: C>H Input (opcode 7) is gone: older builds still send or expect it",
			"a gate removed":             "term: H>C Span (opcode 15) was sent on /a, /b only once span was negotiated, and now without it: older receivers get it unnegotiated",
			"a gate removed on one path": "was sent on /b only once span was negotiated",
			"an enum narrowed":           `term: Start (opcode 2): field kind no longer takes "b"`,
			"a nested type changed":      "field size.w was an integer and is now a string",
			"an item type changed":       "field tags[] was a string and is now an integer",
			"a type renamed":             `term: H>C ready was (type "ready") and is now (type "isready")`,
			"a command version dropped":  "term: command open version 1 is gone",
			"a header constant changed":  "the header no longer carries u8 0x74 at byte 0",
			"a gate added where the frame shipped ungated": "term: H>C Output (opcode 1) shipped ungated on /a and is now sent there only once span is negotiated, which not every older client declares: " +
				"a capability cannot prove a peer's incapability after the fact, so the gate reads the older builds as incapable and downgrades them (gate a frame where it is new; allow gate-added when the fallback is lossless for them)",
			"a gate added to a frame the client sends, by a capability older hosts do not echo": "term: C>H Input (opcode 7) shipped ungated on /a, /b and is now sent there only once extra is negotiated, which older hosts do not echo",
			"a frame the client sends gated by a feature older hosts do not know":               "once loud is negotiated, which older hosts do not advertise",
			"a new command version without migration text":                                      `term: command open version 3 is new and has no migration text: a new version exists only for a breaking change, so say how a caller moves to it from version 2 (add "migration": {"3": "…"} to the command)`,
			"command versions with a gap":                                                       "term: command open lists versions 1, 2, 4, without 3: versions are contiguous",
			"a key dropped from a nested entry":                                                 `term: text messages: the key "join" at /push no longer names a frame: push.join is named otherwise or not at all`,
			"a nested entry removed":                                                            "term: text messages: the nested entry at /push is gone: frames push.pub, push.join are named otherwise or not at all",
			"a field removed from one nested-named frame":                                       `term: push.pub (type "push.pub"): optional field push.channel is gone`,
			"a required field added":                                                            "a versions: row of skewtest.yaml lays over old tags",
		}
		for _, rc := range ruleCases {
			want, ok := cases[rc.name]
			if !ok {
				continue
			}
			vs := contract.Diff(mustParse("old.json", baseDoc), mustParse("new.json", apply(baseDoc, rc.edits)), contract.DiffOptions{})
			Expect(vs).NotTo(BeEmpty())
			Expect(vs[0].Message).To(ContainSubstring(want), rc.name)
			delete(cases, rc.name)
		}
		Expect(cases).To(BeEmpty(), "every case named exists")
	})

	Describe("version 1 and 2 contracts", func() {
		const v1 = `{"contractVersion": 1, "protocol": {"version": 2, "minCompatible": 1},
 "channels": [{"name": "term", "paths": ["/a", "/b"],
  "binary": {"headerLength": 4, "magic": [{"offset": 0, "value": 116}], "opcodeOffset": 1, "streamOffset": 2, "seqOffset": 4},
  "json": {"discriminator": "type"},
  "frames": [
   {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},
   {"opcode": 2, "name": "Start", "direction": "H>C", "payload": "json", "fields": {
     "cols": {"type": "number", "required": true},
     "cwd": {"type": "string"}}},
   {"type": "ready", "name": "ready", "direction": "H>C"}
  ]}]}`
		const v2 = `{"contractVersion": 2, "protocol": {"version": 2, "minCompatible": 1},
 "channels": [{"name": "term", "paths": ["/a", "/b"],
  "binary": {"header": {"length": 4, "fields": [
    {"name": "magic", "offset": 0, "encoding": "u8", "value": 116},
    {"name": "type", "offset": 1, "encoding": "u8"},
    {"name": "stream", "offset": 2, "encoding": "u32le"},
    {"name": "seq", "offset": 4, "encoding": "u32le-hi-lo"}]}},
  "text": {"json": {"discriminator": "type"}},
  "frames": [
   {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},
   {"opcode": 2, "name": "Start", "direction": "H>C", "payload": "json", "fields": {
     "cols": {"type": "number", "required": true}}},
   {"type": "ready", "name": "ready", "direction": "H>C"},
   {"opcode": 3, "name": "More", "direction": "H>C"}
  ]}]}`

		It("diffs a version 1 contract with its version 2 successor by meaning, placing lines in each file", func() {
			vs := contract.Diff(mustParse("v1.json", v1), mustParse("v2.json", v2), contract.DiffOptions{})
			Expect(rulePointers(vs)).To(Equal([]string{"field-removed@/channels/0/frames/1/fields/cwd"}))
			Expect(vs[0].String()).To(Equal(fmt.Sprintf("v1.json:%d: field-removed: term: Start (opcode 2): optional field cwd is gone: older builds still send or read it", lineWith(v1, `"cwd"`))))

			vs = contract.Diff(mustParse("v2.json", v2), mustParse("v1.json", v1), contract.DiffOptions{})
			Expect(rulePointers(vs)).To(Equal([]string{"frame-removed@/channels/0/frames/3"}))
			Expect(vs[0].Line).To(Equal(lineWith(v2, `"More"`)))
		})

		It("places a version 1 file's codecs at its json and binary objects", func() {
			changed := strings.Replace(v2, `"discriminator": "type"`, `"discriminator": "t"`, 1)
			vs := contract.Diff(mustParse("v1.json", v1), mustParse("v2.json", changed), contract.DiffOptions{})
			Expect(rulePointers(vs)).To(ContainElement("framing-changed@/channels/0/text/json/discriminator"))
			c := mustParse("v1.json", v1)
			Expect(c.Line("/channels/0/text/json/discriminator")).To(Equal(lineWith(v1, `"json"`)))
			Expect(c.Line("/channels/0/binary/header/fields/1")).To(Equal(lineWith(v1, `"binary"`)))
		})
	})

	It("knows no file for a contract made in Go", func() {
		older := mustParse("old.json", baseDoc)
		cut := contract.Contract{Protocol: older.Protocol}
		vs := contract.Diff(older, &cut, contract.DiffOptions{})
		Expect(vs).To(HaveLen(1))
		Expect(vs[0].File).To(Equal("old.json"))
		vs = contract.Diff(&cut, older, contract.DiffOptions{})
		Expect(vs).To(BeEmpty())
		vs = contract.Diff(&contract.Contract{Protocol: contract.Protocol{Version: 3, MinCompatible: 1}}, &cut, contract.DiffOptions{})
		Expect(vs).To(HaveLen(1))
		Expect(vs[0].File).To(BeEmpty())
		Expect(vs[0].Line).To(BeZero())
		Expect(vs[0].String()).To(Equal("new contract at /protocol/version: protocol-version-lowered: protocol version 2 is below the older build's 3"))
	})

	It("finds nothing between a contract and itself (the reference subject's frozen version 1 contracts)", func() {
		files, err := filepath.Glob(filepath.Join("testdata", "v1", "*.json"))
		Expect(err).NotTo(HaveOccurred())
		for _, f := range files {
			c, err := contract.Load(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(contract.Diff(c, c, contract.DiffOptions{})).To(BeEmpty(), "%s against itself", f)
		}
	})
})
