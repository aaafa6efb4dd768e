package contract

import (
	"fmt"
	"slices"
	"strings"
)

// parseV2 reads and validates a version 2 document and loads the files it refers to.
func parseV2(root *node, read func(string) ([]byte, error)) (*Contract, []error) {
	var c Contract
	if err := decodeStrict(root, "", &c); err != nil {
		return nil, []error{err}
	}
	v := validator{root: root, read: read}
	v.contract(&c)
	if len(v.problems) > 0 {
		return nil, v.problems
	}
	return &c, nil
}

// validator collects the problems of a version 2 contract.
type validator struct {
	root     *node
	read     func(string) ([]byte, error)
	problems []error
}

func (v *validator) add(ptr, format string, args ...any) {
	v.problems = append(v.problems, bad(ptr, format, args...))
}

func (v *validator) contract(c *Contract) {
	if c.Protocol.Version > 0 && c.Protocol.MinCompatible > c.Protocol.Version {
		v.add("/protocol/minCompatible", "minCompatible %d is above version %d", c.Protocol.MinCompatible, c.Protocol.Version)
	}
	names, paths := map[string]bool{}, map[string]string{}
	for i := range c.Channels {
		ch := &c.Channels[i]
		p := child("/channels", i)
		if ch.Name == "" {
			v.add(p, "a channel needs a name")
		} else if names[ch.Name] {
			v.add(p+"/name", "two channels are called %q: channel names are unique", ch.Name)
		}
		names[ch.Name] = true
		if len(ch.Paths) == 0 {
			v.add(p, "channel %q needs at least one path", ch.Name)
		}
		for j, path := range ch.Paths {
			switch {
			case !strings.HasPrefix(path, "/"):
				v.add(child(p+"/paths", j), "path %q does not start with /", path)
			case paths[path] != "":
				v.add(child(p+"/paths", j), "path %s is served by channel %q too: a path belongs to one channel", path, paths[path])
			}
			paths[path] = ch.Name
		}
		v.channel(ch, p)
	}
}

func (v *validator) channel(ch *Channel, p string) {
	if ch.Text == nil && ch.Binary == nil {
		v.add(p, `channel %q has no codec: give "text", "binary" or both`, ch.Name)
	}
	if ch.Text != nil {
		v.codec(ch.Text, p+"/text")
	}
	if ch.Binary != nil {
		v.codec(ch.Binary, p+"/binary")
	}
	for j := range ch.Frames {
		v.frame(ch, &ch.Frames[j], child(p+"/frames", j))
	}
	v.duplicates(ch, p)
	capNames := map[string]bool{}
	for j, c := range ch.Capabilities {
		cp := child(p+"/capabilities", j)
		if c.Name == "" {
			v.add(cp, "a capability needs a name")
		} else if capNames[c.Name] {
			v.add(cp+"/name", "capability %q is listed twice", c.Name)
		}
		capNames[c.Name] = true
	}
	for j, n := range ch.Negotiation {
		v.negotiation(ch, n, child(p+"/negotiation", j))
	}
	if ch.Scope != nil {
		v.pointer(ch.Scope.Pointer, p+"/scope/pointer", true)
	}
	for j, f := range ch.Features {
		fp := child(p+"/features", j)
		if f.Name == "" {
			v.add(fp, "a feature needs a name")
		}
		for k, name := range f.Frames {
			if ch.Named(name, "", "") == nil {
				v.add(child(fp+"/frames", k), "feature %q gates frame %q, which the channel does not list", f.Name, name)
			}
		}
	}
	for j, c := range ch.Commands {
		if c.ID == "" {
			v.add(child(p+"/commands", j), "a command needs an id")
		}
	}
	for j, inv := range ch.Invariants {
		ip := child(p+"/invariants", j)
		switch inv.Kind {
		case InvariantCorrelation, InvariantEcho, InvariantOrder:
		default:
			v.add(ip+"/kind", "invariant kind %q is not correlation, echo or order", inv.Kind)
		}
		v.pointer(inv.Pointer, ip+"/pointer", false)
		v.pointer(inv.ReplyPointer, ip+"/replyPointer", false)
	}
}

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
	case "", BatchNone, BatchVarint, BatchU16BE, BatchU32BE:
	case BatchNewline, BatchJSONArray:
		if c.JSON == nil && !c.Driver {
			v.add(p+"/batch", "a %s batch carries JSON: use it with a json or driver codec, or use a length-prefix batch (varint, u16be, u32be)", c.Batch)
		}
	default:
		v.add(p+"/batch", "batch %q is not none, newline, json-array, varint, u16be or u32be", c.Batch)
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
		v.add(p+"/stream", "a stream codec cuts packets by a header length field or a length-prefix batch: add a \"length\" header field or set batch to varint, u16be or u32be")
	}
}

func (v *validator) naming(n *Naming, p string, needRule bool) {
	if needRule && n.Discriminator == "" && n.Pointer == "" && len(n.Keys) == 0 && n.Empty == "" {
		v.add(p, "JSON naming needs a rule: discriminator, pointer, keys or empty")
	}
	v.pointer(n.Pointer, p+"/pointer", false)
	for i, k := range n.Keys {
		if k == "" {
			v.add(child(p+"/keys", i), "a key is empty")
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
	if int(shift) >= bits {
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
	if pb.DescriptorSet == "" {
		v.add(p, "a protobuf codec needs a descriptorSet: the path of a serialized FileDescriptorSet, relative to the contract file")
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
	if pb.DescriptorSet == "" || len(pb.Message) == 0 {
		return
	}
	data, err := v.read(pb.DescriptorSet)
	if err != nil {
		v.add(p+"/descriptorSet", "read descriptor set %s: %v (the path is relative to the contract file's directory)", pb.DescriptorSet, err)
		return
	}
	set, err := loadProtoSet(data, pb.Message)
	if err != nil {
		v.add(p+"/message", "descriptor set %s: %v", pb.DescriptorSet, err)
		return
	}
	n := pb.Naming
	if n == nil || (n.Discriminator == "" && n.Pointer == "" && len(n.Keys) == 0) {
		for _, md := range set.msgs {
			if firstOneof(md) == nil {
				v.add(p+"/message", "message %s has no oneof, so its frames have no default name: add a naming rule (discriminator, pointer or keys)", md.FullName())
			}
		}
	}
	pb.set = set
}

func (v *validator) frame(ch *Channel, f *Frame, p string) {
	if f.Name == "" {
		v.add(p, "a frame needs a name")
	}
	hasOp, hasType := v.root.at(p+"/opcode") != nil, v.root.at(p+"/type") != nil
	switch {
	case hasOp == hasType:
		v.add(p, "frame %q needs an opcode (header codecs) or a type (json, protobuf and driver codecs), not both or neither", f.Name)
	case hasType && f.Type == "":
		v.add(p+"/type", "the type is empty")
	case hasOp && f.Opcode < 0:
		v.add(p+"/opcode", "opcode %d is negative", f.Opcode)
	case hasOp && !ch.hasHeader():
		v.add(p+"/opcode", "frame %q has an opcode but channel %q has no header codec", f.Name, ch.Name)
	case hasType && !ch.namesTypes():
		v.add(p+"/type", "frame %q has a type but channel %q has no json, protobuf or driver codec", f.Name, ch.Name)
	}
	switch f.Direction {
	case HostToClient, ClientToHost, Both:
	default:
		v.add(p+"/direction", "direction %q is not H>C, C>H or both", f.Direction)
	}
	switch f.Payload {
	case "", PayloadText, PayloadJSON, PayloadEmpty, PayloadBinary, PayloadProtobuf:
	default:
		v.add(p+"/payload", "payload %q is not text, json, empty, binary or protobuf", f.Payload)
	}
	for i, k := range f.Kinds {
		if k == "" {
			v.add(child(p+"/kinds", i), "a kind is empty")
		}
	}
	for path, g := range f.Gates {
		gp := child(p+"/gates", path)
		switch {
		case path != "*" && !slices.Contains(ch.Paths, path):
			v.add(gp, "gate path %s is not a path of channel %q: use one of its paths or \"*\"", path, ch.Name)
		case ch.Capability(g) == nil && !slices.ContainsFunc(ch.Features, func(ft Feature) bool { return ft.Name == g }):
			v.add(gp, "frame %q is gated by %q, which is neither a capability nor a feature of channel %q", f.Name, g, ch.Name)
		}
	}
	for name, fd := range f.Fields {
		v.field(&fd, child(p+"/fields", name), f.Payload == PayloadBinary, true)
	}
}

func (ch *Channel) hasHeader() bool {
	return (ch.Text != nil && ch.Text.Header != nil) || (ch.Binary != nil && ch.Binary.Header != nil)
}

func (ch *Channel) namesTypes() bool {
	for _, c := range []*Codec{ch.Text, ch.Binary} {
		if c != nil && c.Header == nil {
			return true
		}
	}
	return false
}

// field checks one field; binary says it is a top-level field of a binary payload.
func (v *validator) field(fd *Field, p string, binary, top bool) {
	switch fd.Type {
	case "", TypeString, TypeNumber, TypeInteger, TypeBoolean, TypeObject, TypeArray, TypeNull:
	default:
		v.add(p+"/type", "type %q is not string, number, integer, boolean, object, array or null", fd.Type)
	}
	if len(fd.Fields) > 0 && fd.Type != "" && fd.Type != TypeObject {
		v.add(p+"/fields", "nested fields belong to an object, and this field is %s", typeText(fd.Type))
	}
	if fd.Items != nil && fd.Type != "" && fd.Type != TypeArray {
		v.add(p+"/items", "items belong to an array, and this field is %s", typeText(fd.Type))
	}
	for i, e := range fd.Enum {
		if fd.Type != "" && !hasType(e, fd.Type) {
			v.add(child(p+"/enum", i), "enum value %s is not %s", describe(e), typeText(fd.Type))
		}
	}
	placed := fd.Offset != nil || fd.Encoding != "" || fd.Mask != 0 || fd.Shift != 0
	switch {
	case binary && top:
		v.binaryField(fd, p)
	case placed:
		v.add(p, `offset, encoding, mask and shift place the fields of a binary payload: set the frame's "payload" to "binary", or remove them`)
	}
	for name, sub := range fd.Fields {
		v.field(&sub, child(p+"/fields", name), false, false)
	}
	if fd.Items != nil {
		v.field(fd.Items, p+"/items", false, false)
	}
}

func (v *validator) binaryField(fd *Field, p string) {
	if len(fd.Fields) > 0 {
		v.add(p+"/fields", "a binary payload field is a number, a string or an array of bytes: it has no nested fields")
	}
	if fd.Offset == nil {
		v.add(p, "a binary payload field needs an offset")
	} else if *fd.Offset < 0 {
		v.add(p+"/offset", "offset %d is negative", *fd.Offset)
	}
	var want string
	switch fd.Encoding {
	case StringU16BE:
		want = TypeString
	case Rest:
		want = TypeArray
	default:
		_, bits, ok := intEncoding(fd.Encoding)
		if !ok {
			v.add(p+"/encoding", "encoding %q is not an integer encoding, string-u16be or rest", fd.Encoding)
			return
		}
		v.bits(fd.Mask, fd.Shift, bits, p)
		if fd.Type != "" && fd.Type != TypeNumber && fd.Type != TypeInteger {
			v.add(p+"/type", "a %s field is a number, not %s", fd.Encoding, fd.Type)
		}
		return
	}
	if fd.Mask != 0 || fd.Shift != 0 {
		v.add(p, "mask and shift apply to integer encodings only")
	}
	if fd.Type != "" && fd.Type != want {
		v.add(p+"/type", "a %s field is %s, not %s", fd.Encoding, typeText(want), fd.Type)
	}
}

// duplicates reports two frames a receiver could not tell apart: the same opcode or type,
// directions that overlap and client kinds that overlap.
func (v *validator) duplicates(ch *Channel, p string) {
	for i := range ch.Frames {
		a := &ch.Frames[i]
		for j := range i {
			b := &ch.Frames[j]
			same := a.ByOpcode() == b.ByOpcode() && a.Opcode == b.Opcode && a.Type == b.Type
			dirs := a.Direction == b.Direction || a.Direction == Both || b.Direction == Both
			kinds := len(a.Kinds) == 0 || len(b.Kinds) == 0 || slices.ContainsFunc(a.Kinds, func(k string) bool { return slices.Contains(b.Kinds, k) })
			if same && dirs && kinds {
				v.add(child(p+"/frames", i), "frames %q and %q have the same %s in the same direction for the same kinds: a receiver cannot tell them apart", b.Name, a.Name, a.key())
			}
		}
	}
}

// key is how the frame is looked up, for messages.
func (f *Frame) key() string {
	if f.ByOpcode() {
		return fmt.Sprintf("opcode %d", f.Opcode)
	}
	return fmt.Sprintf("type %q", f.Type)
}

func (v *validator) negotiation(ch *Channel, n Negotiation, p string) {
	switch {
	case (n.Observation == "") == (n.Frame == ""):
		v.add(p, `a negotiation names an "observation" of the client driver or a "frame", exactly one`)
	case n.Frame != "":
		if n.Dir != HostToClient && n.Dir != ClientToHost {
			v.add(p+"/dir", `a negotiation frame needs "dir": "H>C" or "C>H", got %q`, n.Dir)
		} else if ch.Named(n.Frame, n.Dir, "") == nil {
			v.add(p+"/frame", "channel %q has no %s frame called %q", ch.Name, n.Dir, n.Frame)
		}
		if n.Where != nil {
			v.add(p+"/where", `"where" filters observations; a frame is chosen by its name`)
		}
	case n.Dir != "":
		v.add(p+"/dir", `"dir" belongs to a negotiation frame; an observation comes from the client driver`)
	}
	for k, val := range n.Where {
		switch val.(type) {
		case string, float64, bool, nil:
		default:
			v.add(child(p+"/where", k), "a where value is a string, number, boolean or null, got %s", jsonClass(val))
		}
	}
	v.pointer(n.Pointer, p+"/pointer", false)
}
