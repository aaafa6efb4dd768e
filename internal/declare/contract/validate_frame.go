package contract

import (
	"fmt"
	"slices"
)

// frame checks one frame: one of opcode and type, named the way the channel names frames,
// its direction, payload, kinds, gates and fields.
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
	for i, va := range f.Variants {
		vp := child(p+"/variants", i)
		v.versions(va.Versions(), vp)
		if !va.Versions().Bounded() {
			v.add(vp, "a variant needs since or until: the negotiated protocol versions it is the frame's shape for")
		}
		switch va.Payload {
		case "", PayloadText, PayloadJSON, PayloadEmpty, PayloadBinary, PayloadProtobuf:
		default:
			v.add(vp+"/payload", "payload %q is not text, json, empty, binary or protobuf", va.Payload)
		}
		payload := va.Payload
		if payload == "" {
			payload = f.Payload
		}
		for name, fd := range va.Fields {
			v.field(&fd, child(vp+"/fields", name), payload == PayloadBinary, true)
		}
	}
}

// versions checks a range of protocol versions: positive bounds, since before until.
func (v *validator) versions(r Versions, p string) {
	if r.Since < 0 {
		v.add(p+"/since", "since %d is not a protocol version: give 1 or more", r.Since)
	}
	if r.Until < 0 {
		v.add(p+"/until", "until %d is not a protocol version: give 1 or more", r.Until)
	}
	if r.Since > 0 && r.Until > 0 && r.Until < r.Since {
		v.add(p+"/until", "until %d is before since %d: the range holds no version", r.Until, r.Since)
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
		if fd.Items.Versions().Bounded() {
			v.add(p+"/items", "since and until belong to a field, not to an array's items: bound the array field itself")
		}
		v.field(fd.Items, p+"/items", false, false)
	}
	v.versions(fd.Versions(), p)
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
