package contract_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

var updateProto = flag.Bool("update-proto", false, "rewrite testdata/proto/wire.binpb from wireDescriptorSet")

const wireSet = "testdata/proto/wire.binpb"

// TestDescriptorSet checks that testdata/proto/wire.binpb is the descriptor set of
// testdata/proto/wire.proto, built here in Go so the specs need no protoc.
func TestDescriptorSet(t *testing.T) {
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(wireDescriptorSet())
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

// wireDescriptorSet is testdata/proto/wire.proto as a FileDescriptorSet.
func wireDescriptorSet() *descriptorpb.FileDescriptorSet {
	s := proto.String
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, typeName string, oneof *int32, repeated bool) *descriptorpb.FieldDescriptorProto {
		label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		if repeated {
			label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
		}
		f := &descriptorpb.FieldDescriptorProto{Name: s(name), Number: proto.Int32(n), Label: label.Enum(), Type: typ.Enum(), JsonName: s(jsonName(name)), OneofIndex: oneof}
		if typeName != "" {
			f.TypeName = s(".skewtest.wire." + typeName)
		}
		return f
	}
	const (
		str    = descriptorpb.FieldDescriptorProto_TYPE_STRING
		u32    = descriptorpb.FieldDescriptorProto_TYPE_UINT32
		u64    = descriptorpb.FieldDescriptorProto_TYPE_UINT64
		i32    = descriptorpb.FieldDescriptorProto_TYPE_INT32
		byts   = descriptorpb.FieldDescriptorProto_TYPE_BYTES
		msg    = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
		enum   = descriptorpb.FieldDescriptorProto_TYPE_ENUM
		single = false
		many   = true
	)
	body := proto.Int32(0)
	message := func(name string, fields ...*descriptorpb.FieldDescriptorProto) *descriptorpb.DescriptorProto {
		m := &descriptorpb.DescriptorProto{Name: s(name), Field: fields}
		for _, f := range fields {
			if f.OneofIndex != nil {
				m.OneofDecl = []*descriptorpb.OneofDescriptorProto{{Name: s("body")}}
			}
		}
		return m
	}
	file := &descriptorpb.FileDescriptorProto{
		Name:    s("wire.proto"),
		Package: s("skewtest.wire"),
		Syntax:  s("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			message("Command", field("id", 1, u32, "", nil, single), field("connect", 2, msg, "Connect", body, single),
				field("publish", 3, msg, "Publish", body, single), field("ping", 4, msg, "Ping", body, single)),
			message("Reply", field("id", 1, u32, "", nil, single), field("connected", 2, msg, "Connected", body, single),
				field("publish", 3, msg, "Publish", body, single), field("failure", 4, msg, "Failure", body, single)),
			message("Connect", field("client", 1, str, "", nil, single), field("features", 2, str, "", nil, many)),
			message("Connected", field("server", 1, str, "", nil, single), field("features", 2, str, "", nil, many)),
			message("Publish", field("topic", 1, str, "", nil, single), field("data", 2, byts, "", nil, single), field("seq", 3, u64, "", nil, single)),
			message("Ping"),
			message("Failure", field("code", 1, i32, "", nil, single), field("message", 2, str, "", nil, single), field("level", 3, enum, "Level", nil, single)),
			message("Plain", field("kind", 1, str, "", nil, single), field("text", 2, str, "", nil, single)),
		},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: s("Level"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: s("LEVEL_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: s("WARNING"), Number: proto.Int32(1)},
				{Name: s("FATAL"), Number: proto.Int32(2)},
			},
		}},
	}
	return &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{file}}
}

// jsonName is protoc's lowerCamelCase JSON name of a field.
func jsonName(name string) string {
	var b []byte
	up := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			b, up = append(b, c-'a'+'A'), false
		default:
			b, up = append(b, c), false
		}
	}
	return string(b)
}
