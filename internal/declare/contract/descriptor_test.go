package contract_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

var updateProto = flag.Bool("update-proto", false, "rewrite testdata/proto/wire.binpb from wireDescriptorSet")

const wireSet = "testdata/proto/wire.binpb"

// TestDescriptorSet checks that testdata/proto/wire.binpb is the descriptor set of
// testdata/proto/wire.proto, compiled here in Go so the specs need no protoc.
func TestDescriptorSet(t *testing.T) {
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(wireDescriptorSet(t))
	if err != nil {
		t.Fatal(err)
	}
	if *updateProto {
		if err := os.WriteFile(filepath.FromSlash(wireSet), want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(filepath.FromSlash(wireSet))
	if err != nil {
		t.Fatalf("%v (write it with -update-proto)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: rewrite it with go test ./contract -run TestDescriptorSet -update-proto", wireSet)
	}
}

// wireDescriptorSet is testdata/proto/wire.proto as a FileDescriptorSet, compiled as a
// contract's protobuf files are (contract.CompileProto).
func wireDescriptorSet(t *testing.T) *descriptorpb.FileDescriptorSet {
	fds, err := contract.CompileProto(context.Background(), contract.ProtoSources{Tree: os.DirFS("testdata/proto")}, nil, []string{"wire.proto"})
	if err != nil {
		t.Fatal(err)
	}
	return fds
}
