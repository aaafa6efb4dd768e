package contract

import (
	"context"
	"slices"
	"strings"
)

// codec checks one codec: exactly one kind, a batch that fits it, its rules, and that a
// stream can cut packets.
func (v *validator) codec(c *Codec, p string) {
	set := 0
	for _, on := range []bool{c.JSON != nil, c.Header != nil, c.Protobuf != nil, c.Driver} {
		if on {
			set++
		}
	}
	if set != 1 {
		v.add(p, `a codec is exactly one of "json", "header", "protobuf" and "driver"; this one has %d`, set)
		return
	}
	switch c.Batch {
	case "", BatchNone, BatchVarint, BatchU16BE, BatchU32BE, BatchU16LE, BatchU32LE:
	case BatchNewline, BatchJSONArray:
		if c.JSON == nil && !c.Driver {
			v.add(p+"/batch", "a %s batch carries JSON: use it with a json or driver codec, or use a length-prefix batch (varint, u16be, u32be, u16le, u32le)", c.Batch)
		}
	default:
		v.add(p+"/batch", "batch %q is not none, newline, json-array, varint, u16be, u32be, u16le or u32le", c.Batch)
	}
	switch {
	case c.JSON != nil:
		v.naming(c.JSON, p+"/json", true)
	case c.Header != nil:
		v.header(c.Header, p+"/header")
	case c.Protobuf != nil:
		v.protobuf(c.Protobuf, p+"/protobuf")
	}
	if c.Stream && !c.prefixed() && (c.Header == nil || !slices.ContainsFunc(c.Header.Fields, func(f HeaderField) bool { return f.Name == FieldLength })) {
		v.add(p+"/stream", "a stream codec cuts packets by a header length field or a length-prefix batch: add a \"length\" header field or set batch to varint, u16be, u32be, u16le or u32le")
	}
}

func (v *validator) naming(n *Naming, p string, needRule bool) {
	if needRule && !n.byContent() && n.Empty == "" {
		v.add(p, "JSON naming needs a rule: discriminator, pointer, nested, keys or empty")
	}
	v.pointer(n.Pointer, p+"/pointer", false)
	v.nested(n.Nested, p+"/nested")
	for i, k := range n.Keys {
		if k == "" {
			v.add(child(p+"/keys", i), "a key is empty")
		}
	}
}

// nested checks the entries of a nested naming rule: a pointer to an object's member, whose
// token starts the frames' names, keys, and one entry per pointer.
func (v *validator) nested(es []Nested, p string) {
	seen := map[string]int{}
	for i, e := range es {
		ep := child(p, i)
		v.pointer(e.Pointer, ep+"/pointer", true)
		if toks, err := splitPointer(e.Pointer); err == nil && len(toks) > 0 && toks[len(toks)-1] == "" {
			v.add(ep+"/pointer", "pointer %q ends in an empty reference token, and a nested frame's name starts with the pointer's last token: point at a named member such as /push", e.Pointer)
		}
		if j, ok := seen[e.Pointer]; ok && e.Pointer != "" {
			v.add(ep+"/pointer", "pointer %s has a nested entry already (%s): give each pointer one entry and list all its keys there", e.Pointer, child(p, j))
		} else {
			seen[e.Pointer] = i
		}
		if len(e.Keys) == 0 {
			v.add(ep+"/keys", "a nested entry needs keys: the keys whose presence in the object at its pointer names the frame, such as [\"pub\", \"join\"]")
		}
		for j, k := range e.Keys {
			if k == "" {
				v.add(child(ep+"/keys", j), "a key is empty")
			}
		}
	}
}

// pointer checks a JSON pointer's syntax; "" is the whole value, allowed unless required.
func (v *validator) pointer(ptr, p string, required bool) {
	if ptr == "" {
		if required {
			v.add(p, "the pointer is empty: give an RFC 6901 pointer such as /channel")
		}
		return
	}
	if _, err := splitPointer(ptr); err != nil {
		v.add(p, "%v (RFC 6901: /key/0/key, ~0 for ~ and ~1 for /)", err)
	}
}

// maxHeaderOffset bounds a header field's offset: headers are small.
const maxHeaderOffset = 1 << 16

func (v *validator) header(h *Header, p string) {
	if h.Length < 0 || h.Length > maxHeaderOffset {
		v.add(p+"/length", "header length %d is not between 0 and %d", h.Length, maxHeaderOffset)
	}
	seen := map[string]bool{}
	for i, f := range h.Fields {
		fp := child(p+"/fields", i)
		if f.Name == "" {
			v.add(fp, "a header field needs a name")
		} else if seen[f.Name] {
			v.add(fp+"/name", "header field %q appears twice", f.Name)
		}
		seen[f.Name] = true
		_, bits, ok := intEncoding(f.Encoding)
		if !ok {
			v.add(fp+"/encoding", "encoding %q is not u8, u16le, u16be, u32le, u32be, u64le, u64be, u32le-hi-lo or varint", f.Encoding)
			continue
		}
		if f.Offset != nil && (*f.Offset < 0 || *f.Offset > maxHeaderOffset) {
			v.add(fp+"/offset", "offset %d is not between 0 and %d", *f.Offset, maxHeaderOffset)
		}
		v.bits(f.Mask, f.Shift, bits, fp)
		if f.Value != nil && *f.Value > maxOf(bits) {
			v.add(fp+"/value", "value %d does not fit %s", *f.Value, f.Encoding)
		}
		switch f.Name {
		case FieldType, FieldStream:
			if bits > 32 && f.Encoding != Varint {
				v.add(fp+"/encoding", "a %s field is at most 32 bits: use u8, u16*, u32* or varint", f.Name)
			}
		}
	}
	if !seen[FieldType] {
		v.add(p+"/fields", `a header needs a "type" field: the frame's opcode`)
	}
}

func (v *validator) bits(mask uint64, shift uint, bits int, p string) {
	if mask > maxOf(bits) {
		v.add(p+"/mask", "mask %#x is wider than the %d-bit field", mask, bits)
	}
	if shift >= uint(bits) {
		v.add(p+"/shift", "shift %d is not less than the field's %d bits", shift, bits)
	}
}

func maxOf(bits int) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<bits - 1
}

func (v *validator) protobuf(pb *Protobuf, p string) {
	switch {
	case pb.DescriptorSet == "" && len(pb.Files) == 0:
		v.add(p, "a protobuf codec needs its messages' descriptors: files (the .proto files, from the repository's root, compiled from each build's own tree) or descriptorSet (a serialized FileDescriptorSet, relative to the contract file)")
	case pb.DescriptorSet != "" && len(pb.Files) > 0:
		v.add(p, "give files or descriptorSet, not both")
	}
	if len(pb.ImportPaths) > 0 && len(pb.Files) == 0 {
		v.add(p+"/importPaths", "importPaths are where the files' imports are found: give files too")
	}
	if len(pb.Message) == 0 {
		v.add(p, `a protobuf codec needs a message: "pkg.Frame" or {"H>C": "pkg.Reply", "C>H": "pkg.Command"}`)
	}
	for dir, name := range pb.Message {
		if name == "" {
			v.add(p+"/message", "message name for %q is empty", dir)
		}
	}
	if pb.Naming != nil {
		v.naming(pb.Naming, p+"/naming", false)
	}
	if (pb.DescriptorSet == "") == (len(pb.Files) == 0) || len(pb.Message) == 0 {
		return
	}
	var set *protoSet
	var err error
	from := "descriptor set " + pb.DescriptorSet
	if pb.DescriptorSet != "" {
		data, rerr := v.read(pb.DescriptorSet)
		if rerr != nil {
			v.add(p+"/descriptorSet", "read descriptor set %s: %v (the path is relative to the contract file's directory)", pb.DescriptorSet, rerr)
			return
		}
		set, err = loadProtoSet(data, pb.Message)
	} else {
		src := v.sources()
		fds, cerr := CompileProto(context.Background(), src, pb.ImportPaths, pb.Files)
		if cerr != nil {
			v.add(p+"/files", "%v", cerr)
			return
		}
		from = "the .proto files " + src.Label + strings.Join(pb.Files, " ")
		set, err = protoSetOf(fds, pb.Message)
	}
	if err != nil {
		v.add(p+"/message", "%s: %v", from, err)
		return
	}
	n := pb.Naming
	if n == nil || !n.byContent() {
		for _, md := range set.msgs {
			if firstOneof(md) == nil {
				v.add(p+"/message", "message %s has no oneof, so its frames have no default name: add a naming rule (discriminator, pointer, nested or keys)", md.FullName())
			}
		}
	}
	pb.set = set
}
