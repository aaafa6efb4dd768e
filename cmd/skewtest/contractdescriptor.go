package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// cmdContractDescriptor compiles .proto files into a serialized FileDescriptorSet, as
// protoc --include_imports --descriptor_set_out does, for a build step that must ship the
// descriptor set with the build (docs/contract.md, Protobuf).
func cmdContractDescriptor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var out string
	var importPaths []string
	fs := newFlagSet("contract descriptor", stderr, "contract descriptor [-I DIR]… -o FILE.binpb FILE.proto…")
	fs.StringVar(&out, "o", "", "write the descriptor set to `FILE`")
	fs.Var(listFlag{&importPaths}, "I", "an import path: a `DIR` where imports are found and inside which each FILE lies (repeatable; default: the current directory)")
	pos, err := parse(fs, args, anyArgs)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usagef("contract descriptor: give the .proto files, paths from the current directory")
	case out == "":
		return usagef("contract descriptor: give -o FILE, where to write the descriptor set")
	}
	fds, err := contract.CompileProto(ctx, contract.ProtoSources{Tree: os.DirFS(".")}, importPaths, pos)
	if err != nil {
		return usagef("contract descriptor: %v", err)
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(fds)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s, %d bytes\n", out, results.Plural(len(fds.File), "file"), len(data))
	return nil
}
