package contract_test

import (
	"errors"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// v2 wraps one channel's JSON (the lines after the first) into a version 2 document whose
// channel starts on line 2.
func v2(channel string) string {
	return "{\"contractVersion\": 2, \"channels\": [\n" + channel + "\n]}"
}

var _ = Describe("Contract errors", func() {
	DescribeTable("name the file, the line, what is wrong and how to fix it",
		func(doc, want string) {
			_, err := contract.Parse("testdata/bad.json", []byte(doc))
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
			Expect(err.Error()).To(HavePrefix("testdata/bad.json: line "))
		},
		Entry("syntax", "{\"contractVersion\": 2,\n\"channels\": [\n}", "line 3: JSON syntax: invalid character '}'"),
		Entry("unclosed", "{\"contractVersion\": 2,\n\"channels\": [", "line 2: the document ends early"),
		Entry("trailing text", "{\"contractVersion\": 2, \"channels\": []}\n{}", "line 2: text after the end of the document"),
		Entry("not an object", "[1]", "line 1: a contract is a JSON object, got an array"),
		Entry("no version", "{\n\"channels\": []}", `line 1: no contractVersion: begin the object with "contractVersion": 2`),
		Entry("duplicate key", "{\"contractVersion\": 2,\n\"contractVersion\": 2}", `line 2: key "contractVersion" appears twice`),
		Entry("unknown key, deep", v2(`{"name": "c", "paths": ["/c"],
		  "binary": {"header": {"fields": [{"name": "type", "offset": 0, "encoding": "u8", "bits": 4}]}}, "frames": []}`),
			`line 3: /channels/0/binary/header/fields/0/bits: unknown key "bits" (known here: encoding, mask, name, offset, shift, value)`),
		Entry("wrong type", v2(`{"name": "c",
		  "paths": "/c", "frames": []}`), `line 3: /channels/0/paths: want an array, got a string ("/c")`),
		Entry("bad encoding", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {"fields": [
		  {"name": "type", "offset": 0, "encoding": "u24"}]}}, "frames": []}`),
			`line 3: /channels/0/binary/header/fields/0/encoding: encoding "u24" is not u8, u16le`),
		Entry("no type field", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {
		  "fields": [{"name": "op", "offset": 0, "encoding": "u8"}]}}, "frames": []}`),
			`line 3: /channels/0/binary/header/fields: a header needs a "type" field: the frame's opcode`),
		Entry("mask too wide", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {"fields": [
		  {"name": "type", "offset": 0, "encoding": "u8", "mask": 256}]}}, "frames": []}`),
			`mask 0x100 is wider than the 8-bit field`),
		Entry("stream without length", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {"fields": [
		  {"name": "type", "offset": 0, "encoding": "u8"}]},
		  "stream": true}, "frames": []}`),
			`line 4: /channels/0/binary/stream: a stream codec cuts packets by a header length field or a length-prefix batch`),
		Entry("two codecs", v2(`{"name": "c", "paths": ["/c"],
		  "text": {"json": {"discriminator": "t"}, "driver": true}, "frames": []}`),
			`line 3: /channels/0/text: a codec is exactly one of "json", "header", "protobuf" and "driver"; this one has 2`),
		Entry("no codec", v2(`{"name": "c", "paths": ["/c"], "frames": []}`), `channel "c" has no codec`),
		Entry("newline batch of headers", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {"fields": [
		  {"name": "type", "offset": 0, "encoding": "u8"}]}, "batch": "newline"}, "frames": []}`),
			`a newline batch carries JSON: use it with a json or driver codec`),
		Entry("no naming rule", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {}}, "frames": []}`),
			`JSON naming needs a rule: discriminator, pointer, nested, keys or empty`),
		Entry("unknown key in a nested entry", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"nested": [
		  {"pointer": "/push", "key": ["pub"]}]}}, "frames": []}`),
			`line 3: /channels/0/text/json/nested/0/key: unknown key "key" (known here: keys, pointer)`),
		Entry("nested entries that are not objects", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {
		  "nested": {"pointer": "/push", "keys": ["pub"]}}}, "frames": []}`),
			`line 3: /channels/0/text/json/nested: want an array, got an object`),
		Entry("bad pointer", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"pointer": "method"}}, "frames": []}`),
			`/channels/0/text/json/pointer: JSON pointer "method" does not start with /`),
		Entry("neither opcode nor type", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"name": "A", "direction": "H>C"}]}`),
			`line 3: /channels/0/frames/0: frame "A" needs an opcode (header codecs) or a type`),
		Entry("opcode without a header codec", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"opcode": 1, "name": "A", "direction": "H>C"}]}`),
			`frame "A" has an opcode but channel "c" has no header codec`),
		Entry("bad direction", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A",
		   "direction": "up"}]}`),
			`line 4: /channels/0/frames/0/direction: direction "up" is not H>C, C>H or both`),
		Entry("duplicate frames", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C"}, {"type": "a", "name": "B", "direction": "both"}]}`),
			`frames "A" and "B" have the same type "a" in the same direction for the same kinds`),
		Entry("binary field without offset", v2(`{"name": "c", "paths": ["/c"], "binary": {"header": {"fields": [
		  {"name": "type", "offset": 0, "encoding": "u8"}]}}, "frames": [
		  {"opcode": 1, "name": "A", "direction": "H>C", "payload": "binary", "fields": {"x": {"encoding": "u8"}}}]}`),
			`/channels/0/frames/0/fields/x: a binary payload field needs an offset`),
		Entry("offset on a JSON field", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "fields": {"x": {"offset": 2}}}]}`),
			`offset, encoding, mask and shift place the fields of a binary payload: set the frame's "payload" to "binary"`),
		Entry("enum of the wrong type", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "fields": {"x": {"type": "string", "enum": ["a", 2]}}}]}`),
			`/channels/0/frames/0/fields/x/enum/1: enum value a number (2) is not a string`),
		Entry("negotiation with both", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "negotiation": [{"observation": "subscribed", "frame": "x", "pointer": "/caps"}]}`),
			`a negotiation names an "observation" of the client driver or a "frame", exactly one`),
		Entry("negotiation frame unknown", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "negotiation": [{"frame": "serverInfo", "dir": "H>C", "pointer": "/features"}]}`),
			`channel "c" has no H>C frame called "serverInfo"`),
		Entry("invariant kind", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "invariants": [{"kind": "sometimes"}]}`), `invariant kind "sometimes" is not correlation, echo or order`),
		Entry("answered not once", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "q", "name": "Q", "direction": "C>H"}, {"type": "r", "name": "R", "direction": "H>C"}],
		  "invariants": [{"kind": "correlation", "request": ["Q"], "reply": ["R"], "pointer": "/id", "answered": "twice"}]}`),
			`/channels/0/invariants/0/answered: answered is "once" (every request answered exactly once), not "twice"`),
		Entry("answered on an echo", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "q", "name": "Q", "direction": "C>H"}, {"type": "r", "name": "R", "direction": "H>C"}],
		  "invariants": [{"kind": "echo", "request": ["Q"], "reply": ["R"], "pointer": "/id", "answered": "once"}]}`),
			`/channels/0/invariants/0/answered: answered belongs to a correlation invariant`),
		Entry("invariant unknown key", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "invariants": [{"kind": "order", "within": "5s"}]}`), `unknown key "within"`),
		Entry("feature gating an unknown frame", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "features": [{"name": "f", "frames": ["ghost"]}]}`), `feature "f" gates frame "ghost", which the channel does not list`),
		Entry("gate on a foreign path", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "gates": {"/d": "x"}}], "capabilities": [{"name": "x"}]}`),
			`gate path /d is not a path of channel "c"`),
		Entry("gate by nothing known", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "gates": {"*": "ghost"}}]}`),
			`frame "A" is gated by "ghost", which is neither a capability nor a feature of channel "c"`),
		Entry("shared path", v2(`{"name": "a", "paths": ["/c"], "text": {"driver": true}, "frames": []},
		  {"name": "b", "paths": ["/c"], "text": {"driver": true}, "frames": []}`), `path /c is served by channel "a" too`),
		Entry("unreadable descriptor set", v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "proto/missing.binpb", "message": "skewtest.wire.Command"}}, "frames": []}`),
			`line 3: /channels/0/binary/protobuf/descriptorSet: read descriptor set proto/missing.binpb: open testdata/proto/missing.binpb: no such file or directory (the path is relative to the contract file's directory)`),
		Entry("message not in the set", v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "proto/wire.binpb", "message": {"H>C": "skewtest.wire.Reply", "C>H": "wire.Command"}}}, "frames": []}`),
			`/channels/0/binary/protobuf/message: descriptor set proto/wire.binpb: message "wire.Command" is not in the descriptor set (give its full name, package included)`),
		Entry("message direction", v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "proto/wire.binpb", "message": {"up": "skewtest.wire.Reply"}}}, "frames": []}`),
			`/channels/0/binary/protobuf/message/up: key "up" is not a direction`),
		Entry("message without oneof nor naming", v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Plain"}}, "frames": []}`),
			`message skewtest.wire.Plain has no oneof, so its frames have no default name`),
		Entry("omitted above the version", "{\"contractVersion\": 2, \"channels\": [],\n\"protocol\": {\"version\": 2, \"minCompatible\": 1, \"omitted\": 3}}",
			`line 2: /protocol/omitted: omitted 3 is not a protocol version from 1 to this build's 2: it is the version a peer that declares none speaks`),
		Entry("omitted zero", "{\"contractVersion\": 2, \"channels\": [], \"protocol\": {\"version\": 2, \"minCompatible\": 1, \"omitted\": 0}}",
			`/protocol/omitted: omitted 0 is not a protocol version from 1 to this build's 2`),
		Entry("migration for a version not listed", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [1, 2], "migration": {
		    "3": "send mode"}}]}`),
			`line 4: /channels/0/commands/0/migration/3: command "open" has migration text for version 3, which it does not list (versions 1, 2): list the version or remove the text`),
		Entry("empty migration text", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [1, 2], "migration": {"2": " "}}]}`),
			`/channels/0/commands/0/migration/2: command "open": the migration text of version 2 is empty: say how a caller moves to it from version 1`),
		Entry("migration keyed by something else", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [1, 2], "migration": {"v2": "x"}}]}`),
			`/channels/0/commands/0/migration/v2: command "open": migration key "v2" is not a version: key each text by the version it migrates to ("2": "…")`),
		Entry("migration text of another type", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [1, 2], "migration": {"2": 2}}]}`),
			`/channels/0/commands/0/migration/2: want a string, got a number (2)`),
		Entry("version 0", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [0, 1]}]}`),
			`/channels/0/commands/0/versions/0: command "open": version 0 is not a version: versions count from 1`),
		Entry("a version twice", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "commands": [{"id": "open", "versions": [1, 1]}]}`),
			`/channels/0/commands/0/versions/1: command "open" lists version 1 twice`),
		Entry("calls an unknown frame", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "calls": {"frames": ["request"], "command": "/command"}}`),
			`line 3: /channels/0/calls/frames/0: channel "c" has no frame called "request"`),
		Entry("calls without a command pointer", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [{"type": "r", "name": "r", "direction": "C>H"}],
		  "calls": {"frames": ["r"], "version": "/version"}}`),
			`/channels/0/calls: calls needs "command": a JSON pointer to the command id in a calling frame, such as /command`),
		Entry("calls with a bad version pointer", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [{"type": "r", "name": "r", "direction": "C>H"}],
		  "calls": {"frames": ["r"], "command": "/command", "version": "version"}}`),
			`/channels/0/calls/version: JSON pointer "version" does not start with /`),
		Entry("calls naming no frame", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [],
		  "calls": {"command": "/command"}}`),
			`/channels/0/calls: calls names the frames that call a command: "frames": ["request"]`),
		Entry("never without clientKinds", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "kinds": ["desktop"], "never": ["mobile"]}]}`),
			`line 3: /channels/0/frames/0/never/0: never names client kinds the channel declares: add "clientKinds" (every kind that uses it) to channel "c"`),
		Entry("never an undeclared kind", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "clientKinds": ["desktop", "mobile"], "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "kinds": ["desktop"], "never": ["mobil"]}]}`),
			`/channels/0/frames/0/never/0: kind "mobil" is not one of channel "c"'s clientKinds (desktop, mobile): declare it there, or fix the name`),
		Entry("kinds an undeclared kind", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "clientKinds": ["desktop"], "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "kinds": ["mobile"]}]}`),
			`/channels/0/frames/0/kinds/0: kind "mobile" is not one of channel "c"'s clientKinds (desktop)`),
		Entry("a kind in kinds and never", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "clientKinds": ["desktop"], "frames": [
		  {"type": "a", "name": "A", "direction": "H>C", "kinds": ["desktop"], "never": ["desktop"]}]}`),
			`frame "A" lists desktop in kinds (it decodes the frame) and in never (the host never sends it there): keep one`),
		Entry("never on a frame the client sends", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "clientKinds": ["desktop", "mobile"], "frames": [
		  {"type": "a", "name": "A", "direction": "C>H", "kinds": ["desktop"], "never": ["mobile"]}]}`),
			`/channels/0/frames/0/never: never says which client kinds the host never sends a frame to, and A travels C>H only: remove it`),
		Entry("empty clientKinds", v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "clientKinds": [], "frames": []}`),
			`/channels/0/clientKinds: clientKinds is empty: list the client kinds that use channel "c", or leave it out`),
		Entry("v1 omitted", "{\"contractVersion\": 1, \"channels\": [],\n\"protocol\": {\"version\": 2, \"minCompatible\": 1, \"omitted\": 1}}",
			`line 2: /protocol/omitted: omitted is a key of contract version 2: set "contractVersion": 2 to use it`),
		Entry("v1 unknown key", "{\"contractVersion\": 1, \"channels\": [{\"name\": \"t\", \"paths\": [\"/t\"],\n\"json\": {\"discriminator\": \"type\", \"pointer\": \"/x\"}, \"frames\": []}]}",
			`line 2: /channels/0/json/pointer: unknown key "pointer" (known here: discriminator)`),
		Entry("v1 payload", "{\"contractVersion\": 1, \"channels\": [{\"name\": \"t\", \"paths\": [\"/t\"], \"frames\": [\n{\"type\": \"a\", \"name\": \"a\", \"direction\": \"H>C\", \"payload\": \"binary\"}]}]}",
			`line 2: /channels/0/frames/0/payload: payload "binary" is not text, json or empty`),
		Entry("from on a stream that is not cumulative", "{\"contractVersion\": 2, \"channels\": [], \"streams\": [{\"name\": \"s\", \"compare\": \"each\",\n"+
			`"sent": {"role": "host", "observations": ["a"]}, "delivered": {"role": "client", "observations": ["b"], "from": "/from"}}]}`,
			`/streams/0/delivered/from: from needs compare "cumulative"`),
		Entry("from on the sent end", "{\"contractVersion\": 2, \"channels\": [], \"streams\": [{\"name\": \"s\", \"compare\": \"cumulative\",\n"+
			`"sent": {"role": "host", "observations": ["a"], "from": "/from"}, "delivered": {"role": "client", "observations": ["b"]}}]}`,
			`/streams/0/sent/from: from belongs on the delivered end`),
	)

	It("reports every problem of nested naming entries, each at its pointer", func() {
		_, err := contract.Parse("bad.json", []byte(v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"nested": [
		  {"pointer": "push", "keys": ["pub"]},
		  {"keys": ["pub"]},
		  {"pointer": "/push/", "keys": ["pub"]},
		  {"pointer": "/join", "keys": []},
		  {"pointer": "/join", "keys": ["a", ""]}]}}, "frames": []}`)))
		Expect(err).To(HaveOccurred())
		Expect(strings.Split(err.Error(), "\n")).To(Equal([]string{
			`bad.json: line 3: /channels/0/text/json/nested/0/pointer: JSON pointer "push" does not start with / (RFC 6901: /key/0/key, ~0 for ~ and ~1 for /)`,
			`bad.json: line 4: /channels/0/text/json/nested/1/pointer: the pointer is empty: give an RFC 6901 pointer such as /channel`,
			`bad.json: line 5: /channels/0/text/json/nested/2/pointer: pointer "/push/" ends in an empty reference token, and a nested frame's name starts with the pointer's last token: point at a named member such as /push`,
			`bad.json: line 6: /channels/0/text/json/nested/3/keys: a nested entry needs keys: the keys whose presence in the object at its pointer names the frame, such as ["pub", "join"]`,
			`bad.json: line 7: /channels/0/text/json/nested/4/pointer: pointer /join has a nested entry already (/channels/0/text/json/nested/3): give each pointer one entry and list all its keys there`,
			`bad.json: line 7: /channels/0/text/json/nested/4/keys/1: a key is empty`,
		}))
	})

	It("counts a nested entry as a naming rule, for a JSON codec and for a message without a oneof", func() {
		_, err := contract.Parse("testdata/ok.json", []byte(v2(`{"name": "c", "paths": ["/c"],
		  "text": {"json": {"nested": [{"pointer": "/push", "keys": ["pub"]}]}}, "frames": []}`)))
		Expect(err).NotTo(HaveOccurred())
		_, err = contract.Parse("testdata/ok.json", []byte(v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Plain",
		  "naming": {"nested": [{"pointer": "/kind", "keys": ["x"]}]}}}, "frames": []}`)))
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads null where any JSON value is allowed", func() {
		c, err := contract.Parse("null.json", []byte(v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}},
		  "negotiation": [{"observation": "o", "where": {"event": null}, "pointer": "/x"}],
		  "frames": [{"type": "a", "name": "A", "direction": "H>C", "fields": {"x": {"enum": [null, 1]}}}]}`)))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Channels[0].Frames[0].Fields["x"].Enum).To(Equal([]any{nil, 1.0}))
		Expect(c.Channels[0].Negotiation[0].Where).To(Equal(map[string]any{"event": nil}))
		Expect(c.Channels[0].Frames[0].CheckFields(map[string]any{"x": nil})).To(BeEmpty())
	})

	It("reports every problem of a contract at once, one per line", func() {
		_, err := contract.Parse("bad.json", []byte(v2(`{"name": "c", "paths": ["/c"], "text": {"json": {"discriminator": "t"}}, "frames": [
		  {"type": "a", "name": "A", "direction": "up"},
		  {"type": "b", "name": "B", "direction": "down"}]}`)))
		lines := strings.Split(err.Error(), "\n")
		Expect(lines).To(Equal([]string{
			`bad.json: line 3: /channels/0/frames/0/direction: direction "up" is not H>C, C>H or both`,
			`bad.json: line 4: /channels/0/frames/1/direction: direction "down" is not H>C, C>H or both`,
		}))
	})

	It("reads descriptor sets from the files it is given", func() {
		doc := v2(`{"name": "c", "paths": ["/c"], "binary": {"protobuf": {
		  "descriptorSet": "wire.binpb", "message": "skewtest.wire.Command"}}, "frames": []}`)
		_, err := contract.Parse("elsewhere/c.json", []byte(doc), contract.WithFiles(fstest.MapFS{"wire.binpb": {Data: []byte("not a set")}}))
		Expect(err).To(MatchError(ContainSubstring("not a serialized google.protobuf.FileDescriptorSet")))
	})

	It("keeps ErrUnsupported for versions it does not read", func() {
		_, err := contract.Parse("x.json", []byte("{\n\"contractVersion\": 3}"))
		Expect(errors.Is(err, contract.ErrUnsupported)).To(BeTrue())
		Expect(err).To(MatchError("x.json: line 2: contractVersion 3: unsupported contract version (this skewtest reads 1 to 2)"))
	})
})
