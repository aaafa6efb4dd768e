package contract_test

import (
	"context"
	"os"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// filesDoc is protobufDoc with its messages compiled from .proto sources.
func filesDoc(files, importPaths string) string {
	pb := `"files": ` + files
	if importPaths != "" {
		pb += `, "importPaths": ` + importPaths
	}
	return strings.Replace(protobufDoc, `"descriptorSet": "proto/wire.binpb"`, pb, 1)
}

// protoTree is a repository's tree holding testdata/proto/wire.proto at proto/wire.proto.
func protoTree(extra map[string]string) fstest.MapFS {
	GinkgoHelper()
	src, err := os.ReadFile("testdata/proto/wire.proto")
	Expect(err).NotTo(HaveOccurred())
	tree := fstest.MapFS{"proto/wire.proto": {Data: src}}
	for name, text := range extra {
		tree[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return tree
}

var _ = Describe("Protobuf codecs compiled from .proto files", func() {
	parse := func(doc string, tree fstest.MapFS) (*contract.Contract, error) {
		return contract.Parse("skewtest-contract.json", []byte(doc), contract.WithSources(contract.ProtoSources{Tree: tree, Label: "v1.0.0:"}))
	}

	It("decodes as the hand-made descriptor set of the same file does", func() {
		c, err := parse(filesDoc(`["proto/wire.proto"]`, `["proto"]`), protoTree(nil))
		Expect(err).NotTo(HaveOccurred())
		msg := varintFrames(
			wireMessage("skewtest.wire.Command", `{"id": 1, "connect": {"client": "desktop", "features": ["spans"]}}`),
			wireMessage("skewtest.wire.Command", `{}`))
		ch := c.Channel("/wire")
		ds := feed(ch, "C>H", true, msg)
		Expect(names(ch, "C>H", ds)).To(Equal([]string{"Connect", "KeepAlive"}))
		Expect(ds[0].Value).To(Equal(map[string]any{"id": 1.0, "connect": map[string]any{"client": "desktop", "features": []any{"spans"}}}))
		// Without importPaths the file is named from the tree's root.
		_, err = parse(filesDoc(`["proto/wire.proto"]`, ""), protoTree(nil))
		Expect(err).NotTo(HaveOccurred())
	})

	It("compiles a file's imports from the import paths and protoc's standard imports", func() {
		tree := fstest.MapFS{
			"api/proto/frame.proto": {Data: []byte(`syntax = "proto3";
package demo;
import "common/stamp.proto";
import "google/protobuf/timestamp.proto";
message Frame { oneof body { Stamp stamp = 1; google.protobuf.Timestamp at = 2; } }
`)},
			"third/common/stamp.proto": {Data: []byte(`syntax = "proto3";
package demo;
message Stamp { int64 n = 1; }
`)},
		}
		fds, err := contract.CompileProto(context.Background(), contract.ProtoSources{Tree: tree}, []string{"api/proto", "third"}, []string{"api/proto/frame.proto"})
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, f := range fds.File {
			names = append(names, f.GetName())
		}
		// Imports first, as protoc --include_imports writes them.
		Expect(names).To(Equal([]string{"common/stamp.proto", "google/protobuf/timestamp.proto", "frame.proto"}))
		// The set is a FileDescriptorSet protoc could have written: a contract reads it.
		data, err := proto.Marshal(fds)
		Expect(err).NotTo(HaveOccurred())
		var back descriptorpb.FileDescriptorSet
		Expect(proto.Unmarshal(data, &back)).To(Succeed())
		Expect(back.File).To(HaveLen(3))
	})

	It("reads the files from the tree it is given, not from the contract's directory", func() {
		tree := protoTree(nil)
		tree["proto/wire.proto"].Data = []byte(strings.Replace(string(tree["proto/wire.proto"].Data), "Ping ping = 4;", "Ping ping = 4;\n    Ping pong = 5;", 1))
		c, err := parse(filesDoc(`["proto/wire.proto"]`, `["proto"]`), tree)
		Expect(err).NotTo(HaveOccurred())
		md := c.Channel("/wire").Binary.Protobuf.Descriptor("C>H")
		Expect(md.Fields().ByName("pong")).NotTo(BeNil())
	})

	DescribeTable("refuses what cannot be compiled, with the file and line",
		func(files, importPaths string, extra map[string]string, want ...string) {
			tree := protoTree(extra)
			_, err := parse(filesDoc(files, importPaths), tree)
			Expect(err).To(HaveOccurred())
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
		},
		Entry("a syntax error", `["proto/bad.proto"]`, `["proto"]`, map[string]string{"proto/bad.proto": "syntax = \"proto3\";\npackage skewtest.wire;\nmessage Command {\n  uint32 id = ;\n}\n"},
			"skewtest-contract.json: line 6: /channels/0/binary/protobuf/files: v1.0.0:proto/bad.proto:4:15: syntax error"),
		Entry("an unknown type", `["proto/bad.proto"]`, `["proto"]`, map[string]string{"proto/bad.proto": "syntax = \"proto3\";\npackage skewtest.wire;\nmessage Command {\n  Nope id = 1;\n}\n"},
			"v1.0.0:proto/bad.proto:4:3: field skewtest.wire.Command.id: unknown type Nope"),
		Entry("a missing file", `["proto/gone.proto"]`, `["proto"]`, nil,
			"/channels/0/binary/protobuf/files: v1.0.0:proto/gone.proto: no such file"),
		Entry("a missing import", `["proto/imp.proto"]`, `["proto"]`, map[string]string{"proto/imp.proto": "syntax = \"proto3\";\nimport \"gone.proto\";\n"},
			"v1.0.0:proto/imp.proto:2:8:", "gone.proto"),
		Entry("a file outside the import paths", `["other/wire.proto"]`, `["proto"]`, map[string]string{"other/wire.proto": "syntax = \"proto3\";\n"},
			"v1.0.0:other/wire.proto is inside none of the importPaths"),
		Entry("a path out of the repository", `["../wire.proto"]`, ``, nil,
			`file "../wire.proto" is not a relative path inside the repository`),
	)

	It("names the message the files lack", func() {
		doc := strings.Replace(filesDoc(`["proto/wire.proto"]`, `["proto"]`), `"C>H": "skewtest.wire.Command"`, `"C>H": "skewtest.wire.Order"`, 1)
		_, err := parse(doc, protoTree(nil))
		Expect(err).To(MatchError(ContainSubstring(`/channels/0/binary/protobuf/message: the .proto files v1.0.0:proto/wire.proto: message "skewtest.wire.Order" is not in the descriptor set`)))
	})

	DescribeTable("takes exactly one source of descriptors",
		func(pb, want string) {
			doc := strings.Replace(protobufDoc, `"descriptorSet": "proto/wire.binpb"`, pb, 1)
			_, err := parse(doc, protoTree(nil))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("both", `"descriptorSet": "proto/wire.binpb", "files": ["proto/wire.proto"]`, "give files or descriptorSet, not both"),
		Entry("neither", `"importPaths": ["proto"]`, "importPaths are where the files' imports are found: give files too"),
		Entry("nothing", `"importPaths": []`, "a protobuf codec needs its messages' descriptors: files"),
	)
})

var _ = Describe("Diffing protobuf codecs by each build's own .proto files", func() {
	at := func(label string, edit func(string) string) *contract.Contract {
		GinkgoHelper()
		tree := protoTree(nil)
		tree["proto/wire.proto"].Data = []byte(edit(string(tree["proto/wire.proto"].Data)))
		c, err := contract.Parse(label+":skewtest-contract.json", []byte(filesDoc(`["proto/wire.proto"]`, `["proto"]`)),
			contract.WithSources(contract.ProtoSources{Tree: tree, Label: label + ":"}))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	same := func(s string) string { return s }

	It("reports a field whose type changed between the builds' files, at any depth", func() {
		older := at("v1", same)
		newer := at("v2", func(s string) string { return strings.Replace(s, "string client = 1;", "int64 client = 1;", 1) })
		vs := contract.Diff(older, newer, contract.DiffOptions{})
		Expect(rulePointers(vs)).To(Equal([]string{"type-changed@/channels/0/binary/protobuf/message"}))
		Expect(vs[0].Message).To(ContainSubstring("protobuf field skewtest.wire.Connect.client (number 1) was string and is now int64: the two builds read it differently"))
	})

	It("leaves a field added, or a message renamed, alone (negative controls)", func() {
		older := at("v1", same)
		added := at("v2", func(s string) string {
			return strings.Replace(s, "string client = 1;", "string client = 1;\n  string token = 9;", 1)
		})
		Expect(contract.Diff(older, added, contract.DiffOptions{})).To(BeEmpty())
		Expect(added.Channel("/wire").Binary.Protobuf.Descriptor("C>H").Fields().ByName("connect").Message().Fields().ByName("token")).NotTo(BeNil())
		Expect(older.Channel("/wire").Binary.Protobuf.Descriptor("C>H").Fields().ByName("connect").Message().Fields().ByName("token")).To(BeNil())
		renamed := at("v2", func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, "Connect connect", "Hello connect"), "message Connect {", "message Hello {")
		})
		Expect(contract.Diff(older, renamed, contract.DiffOptions{})).To(BeEmpty())
	})
})
