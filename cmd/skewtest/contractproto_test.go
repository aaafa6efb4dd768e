package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// protoContract is a contract whose frames are protobuf messages of proto/wire.proto,
// compiled from each build's own tree.
const protoContract = `{
  "contractVersion": 2, "product": "tiny",
  "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{
    "name": "wire", "paths": ["/wire"],
    "binary": {"protobuf": {"files": ["proto/wire.proto"], "importPaths": ["proto"], "message": "wire.Command"},
               "batch": "varint"},
    "frames": [
      {"type": "connect", "name": "Connect", "direction": "C>H", "payload": "protobuf"},
      {"type": "ping", "name": "Ping", "direction": "C>H", "payload": "protobuf"}
    ]
  }]
}
`

// wireProto is proto/wire.proto with Connect's fields.
func wireProto(connectFields string) string {
	return "syntax = \"proto3\";\npackage wire;\n\nmessage Command {\n  oneof body {\n    Connect connect = 1;\n    Ping ping = 2;\n  }\n}\n\n" +
		"message Connect {\n" + connectFields + "}\n\nmessage Ping {}\n"
}

// newProtoSubject is a library whose tags v0.1.0 and v0.2.0 predate skewtest and whose
// working tree adopted it: one contract, laid over the old tags by a versions row, names
// proto/wire.proto, which each tag has its own of. v0.2.0 added a field.
func newProtoSubject() *tinySubject {
	GinkgoHelper()
	s := &tinySubject{dir: GinkgoT().TempDir()}
	var err error
	s.repo, err = git.PlainInit(s.dir, false)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(filepath.Join(s.dir, "proto"), 0o755)).To(Succeed())
	s.write("proto/wire.proto", wireProto("  string client = 1;\n"))
	s.tag("v0.1.0", s.commit("v0.1.0"))
	s.write("proto/wire.proto", wireProto("  string client = 1;\n  string token = 2;\n"))
	s.tag("v0.2.0", s.commit("v0.2.0"))
	Expect(os.MkdirAll(filepath.Join(s.dir, "skewtest"), 0o755)).To(Succeed())
	s.write("skewtest/contract.json", protoContract)
	s.write("skewtest/driver.sh", "#!/bin/sh\nexit 1\n")
	s.write("skewtest.yaml", lateConfig(overlayRow))
	return s
}

var _ = Describe("protobuf contracts compiled from each build's own .proto files", func() {
	It("reads each tag's own .proto files through the contract a versions row lays over them, in run, contract check and diff", func(ctx SpecContext) {
		s := newProtoSubject()
		code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--strict")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("checked 1 stable tag pair and 1 pin against the working tree: compatible\n"))

		// run's view: the same contract file, each tag's own messages.
		subj := openSubject(s.dir)
		fields := func(label string) []string {
			GinkgoHelper()
			h, err := s.repo.ResolveRevision(plumbing.Revision("refs/tags/" + label))
			Expect(err).NotTo(HaveOccurred())
			d, err := subj.Describe(ctx, []builds.Source{builds.AtCommit(label, *h)})
			Expect(err).NotTo(HaveOccurred())
			Expect(d[0].Err).NotTo(HaveOccurred())
			md := d[0].Contract.Channel("/wire").Binary.Protobuf.Descriptor("C>H").Fields().ByName("connect").Message()
			var names []string
			for i := range md.Fields().Len() {
				names = append(names, string(md.Fields().Get(i).Name()))
			}
			return names
		}
		Expect(fields("v0.1.0")).To(Equal([]string{"client"}))
		Expect(fields("v0.2.0")).To(Equal([]string{"client", "token"}))

		// The working tree changes a field's type: diff sees it against each tag's own file,
		// with no descriptor set made by hand.
		s.write("proto/wire.proto", wireProto("  int64 client = 1;\n  string token = 2;\n"))
		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.1.0", "worktree")
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("type-changed: wire: binary messages: protobuf field wire.Connect.client (number 1) was string and is now int64"))
		code, out = cli(ctx, "contract", "check", "--repo", s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("v0.1.0 → v0.2.0: compatible\n"))
		Expect(out).To(ContainSubstring("v0.2.0 → worktree: 1 violation\n"))
	})

	It("compiles a row's contract file against each tag's own .proto files, not the row file's tree", func(ctx SpecContext) {
		s := newProtoSubject()
		s.write("skewtest.yaml", lateConfig("versions:\n  - range: \"<v0.3.0\"\n    overlay: [skewtest/driver.sh]\n    contract: skewtest/old.json\n"))
		s.write("skewtest/old.json", protoContract)
		// The working tree's file changed a type the tags still have as a string.
		s.write("proto/wire.proto", wireProto("  int64 client = 1;\n  string token = 2;\n"))
		code, out := cli(ctx, "contract", "diff", "--repo", s.dir, "v0.1.0", "v0.2.0")
		Expect(code).To(Equal(exitOK), out)
		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.2.0", "worktree")
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("wire.Connect.client (number 1) was string and is now int64"))
	})

	It("reads the working tree's .proto files for a tag whose row overlays them, as its build does", func(ctx SpecContext) {
		s := newProtoSubject()
		s.write("skewtest.yaml", lateConfig("versions:\n  - range: \"<v0.3.0\"\n    overlay: [skewtest, proto]\n"))
		s.write("proto/wire.proto", wireProto("  int64 client = 1;\n  string token = 2;\n"))
		code, out := cli(ctx, "contract", "diff", "--repo", s.dir, "v0.1.0", "worktree")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(Equal("v0.1.0 → worktree: compatible\n"))
	})

	It("refuses a .proto file that does not compile, or is missing, with its file and line (exit 2)", func(ctx SpecContext) {
		s := newProtoSubject()
		s.write("proto/wire.proto", wireProto("  string client = ;\n"))
		code, out := cli(ctx, "contract", "diff", "--repo", s.dir, "v0.2.0", "worktree")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("/channels/0/binary/protobuf/files: proto/wire.proto:12:19: syntax error"))

		// A tag's own file: named as git names it.
		s.tag("v0.3.0", s.commit("v0.3.0"))
		s.write("proto/wire.proto", wireProto("  string client = 1;\n"))
		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.3.0", "worktree")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("v0.3.0:proto/wire.proto:12:19: syntax error"))

		Expect(os.Remove(filepath.Join(s.dir, "proto", "wire.proto"))).To(Succeed())
		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.2.0", "worktree")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("/channels/0/binary/protobuf/files: proto/wire.proto: no such file"))
	})

	It("compiles .proto files into a descriptor set for a build step (contract descriptor)", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dir, "proto"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "proto", "wire.proto"), []byte(wireProto("  string client = 1;\n")), 0o644)).To(Succeed())
		GinkgoT().Chdir(dir)
		code, out := cli(ctx, "contract", "descriptor", "-I", "proto", "-o", "wire.binpb", "proto/wire.proto")
		Expect(code).To(Equal(exitOK), out)
		data, err := os.ReadFile(filepath.Join(dir, "wire.binpb"))
		Expect(err).NotTo(HaveOccurred())
		var fds descriptorpb.FileDescriptorSet
		Expect(proto.Unmarshal(data, &fds)).To(Succeed())
		Expect(fds.File).To(HaveLen(1))
		Expect(fds.File[0].GetName()).To(Equal("wire.proto"))
		// A contract reads it as a descriptorSet.
		Expect(os.WriteFile(filepath.Join(dir, "c.json"), []byte(strings.Replace(protoContract,
			`"files": ["proto/wire.proto"], "importPaths": ["proto"]`, `"descriptorSet": "wire.binpb"`, 1)), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "diff", "c.json", "c.json")
		Expect(code).To(Equal(exitOK), out)

		// Negative controls: a file that does not compile, and no -o.
		Expect(os.WriteFile(filepath.Join(dir, "proto", "bad.proto"), []byte("syntax = \"proto3\";\nmessage {\n"), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "descriptor", "-I", "proto", "-o", "bad.binpb", "proto/bad.proto")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("proto/bad.proto:2:9: syntax error"))
		Expect(filepath.Join(dir, "bad.binpb")).NotTo(BeAnExistingFile())
		code, out = cli(ctx, "contract", "descriptor", "proto/wire.proto")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("give -o FILE"))
	})
})
