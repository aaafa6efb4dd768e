package contract

import (
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// protoSet is a loaded descriptor set and the messages a codec decodes with it.
type protoSet struct {
	types *dynamicpb.Types
	msgs  map[string]protoreflect.MessageDescriptor // by Messages key
}

// loadProtoSet reads a serialized FileDescriptorSet and finds the codec's messages in it.
func loadProtoSet(data []byte, msgs Messages) (*protoSet, error) {
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &fds); err != nil {
		return nil, fmt.Errorf("not a serialized google.protobuf.FileDescriptorSet: %w", err)
	}
	return protoSetOf(&fds, msgs)
}

// protoSetOf finds the codec's messages in a descriptor set.
func protoSetOf(fds *descriptorpb.FileDescriptorSet, msgs Messages) (*protoSet, error) {
	files, err := protodesc.NewFiles(fds)
	if err != nil {
		return nil, fmt.Errorf("descriptor set: %w (build it with protoc --include_imports --descriptor_set_out)", err)
	}
	set := &protoSet{types: dynamicpb.NewTypes(files), msgs: map[string]protoreflect.MessageDescriptor{}}
	for dir, name := range msgs {
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			return nil, fmt.Errorf("message %q is not in the descriptor set (give its full name, package included)", name)
		}
		md, ok := d.(protoreflect.MessageDescriptor)
		if !ok {
			return nil, fmt.Errorf("%q is not a message", name)
		}
		set.msgs[dir] = md
	}
	return set, nil
}

// firstOneof returns a message's first oneof that is not proto3's synthetic one, or nil.
func firstOneof(md protoreflect.MessageDescriptor) protoreflect.OneofDescriptor {
	for i := range md.Oneofs().Len() {
		if o := md.Oneofs().Get(i); !o.IsSynthetic() {
			return o
		}
	}
	return nil
}

// decode reads one protobuf frame travelling in dir: its name and JSON form.
func (p *Protobuf) decode(dir string, b []byte) (string, map[string]any, error) {
	if p.set == nil {
		return "", nil, errors.New("protobuf codec was not loaded (the contract was not read by Parse)")
	}
	md, ok := p.set.msgs[""]
	if !ok {
		if md, ok = p.set.msgs[dir]; !ok {
			return "", nil, fmt.Errorf("the contract names no protobuf message for direction %q (decode with a Stream for H>C or C>H)", dir)
		}
	}
	msg := dynamicpb.NewMessage(md)
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: p.set.types}).Unmarshal(b, msg); err != nil {
		return "", nil, &PayloadError{Codec: "protobuf " + string(md.FullName()), Err: err}
	}
	js, err := protojson.MarshalOptions{UseProtoNames: true, AllowPartial: true, Resolver: p.set.types}.Marshal(msg)
	if err != nil {
		return "", nil, &PayloadError{Codec: "protobuf " + string(md.FullName()), Err: err}
	}
	var value map[string]any
	if err := json.Unmarshal(js, &value); err != nil {
		return "", nil, &PayloadError{Codec: "protobuf " + string(md.FullName()), Err: err}
	}
	n := p.Naming
	if n == nil {
		n = &Naming{}
	}
	if n.byContent() {
		name, err := n.name(value)
		return name, value, err
	}
	if len(value) == 0 && n.Empty != "" {
		return n.Empty, value, nil
	}
	o := firstOneof(md)
	if o == nil {
		return "", value, &NameError{Reasons: []string{fmt.Sprintf("message %s has no oneof to name it and the contract gives no naming", md.FullName())}}
	}
	fd := msg.WhichOneof(o)
	if fd == nil {
		why := fmt.Sprintf("no field of oneof %s is set", o.Name())
		if n.Empty != "" {
			why += " and the message is not empty"
		}
		return "", value, &NameError{Reasons: []string{why}}
	}
	return string(fd.Name()), value, nil
}

// Descriptor returns the message that carries frames travelling in dir (H>C or C>H), once
// Parse loaded the descriptor set; nil otherwise.
func (p *Protobuf) Descriptor(dir string) protoreflect.MessageDescriptor {
	if p == nil || p.set == nil {
		return nil
	}
	if md, ok := p.set.msgs[""]; ok {
		return md
	}
	return p.set.msgs[dir]
}
