package contract

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// framing diffs how the channel's messages are cut into frames and how frames are named:
// older peers cut and name them the older way. A codec the newer channel adds (text messages
// where there were only binary ones) is compatible.
func (c *chanDiff) framing() {
	for _, m := range []struct {
		key  string
		o, n *Codec
	}{{"text", c.oc.Text, c.nc.Text}, {"binary", c.oc.Binary, c.nc.Binary}} {
		switch {
		case m.o == nil:
		case m.n == nil:
			c.add(RuleFramingChanged, c.np, "%s: %s messages have no codec any more: older peers still send them", c.oc.Name, m.key)
		default:
			c.codec(m.key, m.o, m.n, c.np+"/"+m.key)
		}
	}
}

func (c *chanDiff) codec(msgs string, o, n *Codec, p string) {
	what := fmt.Sprintf("%s: %s messages", c.oc.Name, msgs)
	if o.name() != n.name() {
		c.add(RuleFramingChanged, p, "%s were decoded as %s and now as %s", what, o.name(), n.name())
		return
	}
	if batchOf(o) != batchOf(n) {
		c.add(RuleFramingChanged, p+"/batch", "%s: batch %s is now %s", what, batchOf(o), batchOf(n))
	}
	if o.Stream != n.Stream {
		c.add(RuleFramingChanged, p+"/stream", "%s: stream %t is now %t", what, o.Stream, n.Stream)
	}
	switch {
	case o.Header != nil:
		c.header(what, o.Header, n.Header, p+"/header")
	case o.JSON != nil:
		c.naming(what, o.JSON, n.JSON, p+"/json")
	case o.Protobuf != nil:
		seen := map[protoreflect.FullName]bool{}
		for _, dir := range []string{HostToClient, ClientToHost} {
			if was, is := o.Protobuf.Message.For(dir), n.Protobuf.Message.For(dir); was != is {
				c.add(RuleFramingChanged, p+"/protobuf/message", "%s: %s frames were protobuf message %s and are now %s", what, dir, was, is)
				continue
			}
			c.protoFields(what, o.Protobuf.Descriptor(dir), n.Protobuf.Descriptor(dir), p+"/protobuf/message", seen)
		}
		c.naming(what, o.Protobuf.Naming, n.Protobuf.Naming, p+"/protobuf/naming")
	}
}

// header diffs two binary headers by what they mean, not how they are written: the size,
// where the reserved fields are, and the constants every frame carries (by position, so a
// version 1 file's magic bytes equal a version 2 file's named constants).
func (c *chanDiff) header(what string, o, n *Header, p string) {
	ofixed, osize := o.minSize()
	if nfixed, nsize := n.minSize(); nfixed != ofixed || nsize != osize {
		c.add(RuleFramingChanged, p, "%s: the header is %s and now %s", what, sizeText(ofixed, osize), sizeText(nfixed, nsize))
	}
	if o.LengthIncludesHeader != n.LengthIncludesHeader {
		c.add(RuleFramingChanged, p+"/lengthIncludesHeader", "%s: lengthIncludesHeader %t is now %t", what, o.LengthIncludesHeader, n.LengthIncludesHeader)
	}
	oo, no := o.offsets(), n.offsets()
	for _, name := range []string{FieldType, FieldStream, FieldSeq, FieldLength} {
		i := slices.IndexFunc(o.Fields, func(f HeaderField) bool { return f.Name == name })
		j := slices.IndexFunc(n.Fields, func(f HeaderField) bool { return f.Name == name })
		switch {
		case i < 0 && j >= 0 && name == FieldLength:
			c.add(RuleFramingChanged, child(p+"/fields", j), "%s: the header has a length field now: older senders do not write one", what)
		case i < 0 || (j < 0 && name == FieldSeq):
			// A field added is compatible (but length, above); seq is information.
		case j < 0:
			c.add(RuleFramingChanged, p+"/fields", "%s: the header has no %s field any more", what, name)
		default:
			if was, is := placeText(o.Fields[i], oo[i]), placeText(n.Fields[j], no[j]); was != is {
				c.add(RuleFramingChanged, child(p+"/fields", j), "%s: header field %s was %s and is now %s", what, name, was, is)
			}
		}
	}
	oc, nc := o.constants(oo), n.constants(no)
	for _, k := range oc {
		if !slices.Contains(nc, k) {
			c.add(RuleFramingChanged, p+"/fields", "%s: the header no longer carries %s: older receivers refuse frames without it", what, k)
		}
	}
	for j, k := range nc {
		if !slices.Contains(oc, k) {
			c.add(RuleFramingChanged, child(p+"/fields", n.constantIndex(j)), "%s: the header now must carry %s: older senders do not write it", what, k)
		}
	}
}

// offsets returns where each header field starts, -1 where that depends on a varint before.
func (h *Header) offsets() []int {
	out := make([]int, len(h.Fields))
	cursor := 0
	for i, f := range h.Fields {
		off := cursor
		if f.Offset != nil {
			off = *f.Offset
		}
		out[i] = off
		n, _, _ := intEncoding(f.Encoding)
		switch {
		case off < 0 || n == 0:
			cursor = -1
		case cursor >= 0:
			cursor = max(cursor, off+n)
		}
	}
	return out
}

// constants describes the constant fields: "u8 0x74 at byte 0".
func (h *Header) constants(offs []int) []string {
	var out []string
	for i, f := range h.Fields {
		if f.Value != nil {
			out = append(out, fmt.Sprintf("%s %#x at byte %s", bitsText(f), *f.Value, offText(offs[i])))
		}
	}
	return out
}

// constantIndex is the index in Fields of the j-th constant field.
func (h *Header) constantIndex(j int) int {
	for i, f := range h.Fields {
		if f.Value != nil {
			if j == 0 {
				return i
			}
			j--
		}
	}
	return 0
}

func placeText(f HeaderField, off int) string {
	return bitsText(f) + " at byte " + offText(off)
}

func bitsText(f HeaderField) string {
	if f.Mask != 0 || f.Shift != 0 {
		return fmt.Sprintf("%s (mask %#x shift %d)", f.Encoding, f.Mask, f.Shift)
	}
	return f.Encoding
}

func offText(off int) string {
	if off < 0 {
		return "(after a varint)"
	}
	return fmt.Sprint(off)
}

func sizeText(fixed bool, size int) string {
	if fixed {
		return fmt.Sprintf("%d bytes", size)
	}
	return fmt.Sprintf("at least %d bytes", size)
}

// naming diffs JSON naming rules: older peers name frames the older way, so a rule that
// changed or a key that is gone names their frames differently or not at all. A nested
// entry is matched by its pointer; an entry or a key added is compatible, like a key added
// to keys.
func (c *chanDiff) naming(what string, o, n *Naming, p string) {
	if o == nil {
		return
	}
	if n == nil {
		n = &Naming{}
	}
	if o.Discriminator != n.Discriminator {
		c.add(RuleFramingChanged, p+"/discriminator", "%s: frames were named by the %q discriminator and now by %q", what, o.Discriminator, n.Discriminator)
	}
	if o.Pointer != n.Pointer {
		c.add(RuleFramingChanged, p+"/pointer", "%s: frames were named at pointer %q and now at %q", what, o.Pointer, n.Pointer)
	}
	for _, oe := range o.Nested {
		j := slices.IndexFunc(n.Nested, func(ne Nested) bool { return ne.Pointer == oe.Pointer })
		if j < 0 {
			c.add(RuleFramingChanged, p+"/nested", "%s: the nested entry at %s is gone: frames %s are named otherwise or not at all", what, oe.Pointer, strings.Join(oe.frameTypes(), ", "))
			continue
		}
		for _, k := range oe.Keys {
			if !slices.Contains(n.Nested[j].Keys, k) {
				c.add(RuleFramingChanged, child(p+"/nested", j)+"/keys", "%s: the key %q at %s no longer names a frame: %s is named otherwise or not at all", what, k, oe.Pointer, oe.frameType(k))
			}
		}
	}
	for _, k := range o.Keys {
		if !slices.Contains(n.Keys, k) {
			c.add(RuleFramingChanged, p+"/keys", "%s: the key %q no longer names a frame", what, k)
		}
	}
	if o.Empty != "" && o.Empty != n.Empty {
		c.add(RuleFramingChanged, p+"/empty", "%s: {} was named %q and now %q", what, o.Empty, n.Empty)
	}
}

func batchOf(c *Codec) string {
	if c.Batch == "" {
		return BatchNone
	}
	return c.Batch
}

// protoFields diffs two builds' descriptors of one protobuf message, field by number, at any
// depth: a field whose type or cardinality changed is read differently by the two builds
// (their own .proto files or descriptor sets say so; the contract's text may not). Fields
// added or removed are what protobuf is made for and are left alone.
func (c *chanDiff) protoFields(what string, o, n protoreflect.MessageDescriptor, p string, seen map[protoreflect.FullName]bool) {
	if o == nil || n == nil || seen[o.FullName()] {
		return
	}
	seen[o.FullName()] = true
	for i := range o.Fields().Len() {
		of := o.Fields().Get(i)
		nf := n.Fields().ByNumber(of.Number())
		if nf == nil {
			continue
		}
		if wireShape(of) != wireShape(nf) {
			was, is := protoType(of), protoType(nf)
			c.add(RuleTypeChanged, p, "%s: protobuf field %s (number %d) was %s and is now %s: the two builds read it differently",
				what, of.FullName(), of.Number(), was, is)
			continue
		}
		if of.Message() != nil && nf.Message() != nil {
			c.protoFields(what, of.Message(), nf.Message(), p, seen)
		}
	}
}

// wireShape is what of a field's type decides how it is read: its kind and cardinality (a
// message or an enum renamed reads the same).
func wireShape(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return "map " + wireShape(f.MapKey()) + " " + wireShape(f.MapValue())
	}
	return fmt.Sprintf("%s %s", f.Cardinality(), f.Kind())
}

// protoType is a field's type as a .proto file writes it: "repeated int32", "skewtest.Foo".
func protoType(f protoreflect.FieldDescriptor) string {
	t := f.Kind().String()
	switch {
	case f.IsMap():
		t = fmt.Sprintf("map<%s, %s>", protoType(f.MapKey()), protoType(f.MapValue()))
	case f.Message() != nil:
		t = string(f.Message().FullName())
	case f.Enum() != nil:
		t = string(f.Enum().FullName())
	}
	if f.IsList() {
		t = "repeated " + t
	}
	return t
}
