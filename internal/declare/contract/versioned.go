package contract

import "fmt"

// Versions bounds the negotiated protocol versions a field or a frame's variant belongs to:
// Since (0: from the first) to Until (0: to the last), both included.
type Versions struct {
	Since int `json:"since,omitempty"`
	Until int `json:"until,omitempty"`
}

// Holds reports whether version is in the range. An unknown version (0) is in every range:
// without a negotiated version a shape is read whole.
func (r Versions) Holds(version int) bool {
	return version <= 0 || ((r.Since == 0 || version >= r.Since) && (r.Until == 0 || version <= r.Until))
}

// Bounded reports whether the range bounds anything.
func (r Versions) Bounded() bool { return r.Since != 0 || r.Until != 0 }

func (r Versions) String() string {
	switch {
	case r.Since != 0 && r.Until != 0:
		return fmt.Sprintf("protocol %d to %d", r.Since, r.Until)
	case r.Since != 0:
		return fmt.Sprintf("protocol %d and later", r.Since)
	case r.Until != 0:
		return fmt.Sprintf("protocol %d and earlier", r.Until)
	}
	return "every protocol version"
}

// Variant is a frame's shape for a range of negotiated protocol versions: MQTT 5's
// DISCONNECT carries a reason code, MQTT 3.1.1's is empty. Payload and Fields, when set,
// replace the frame's own.
type Variant struct {
	Since   int              `json:"since,omitempty"`
	Until   int              `json:"until,omitempty"`
	Payload string           `json:"payload,omitempty"`
	Fields  map[string]Field `json:"fields,omitempty"`
}

// Versions is the range of negotiated protocol versions the variant is for.
func (v Variant) Versions() Versions { return Versions{v.Since, v.Until} }

// Shape is what a frame carries between peers that negotiated one protocol version: its
// payload kind and fields, and where in the frame's definition they are (pointers relative
// to the frame: "/payload" or "/variants/1/payload").
type Shape struct {
	Payload   string
	Fields    map[string]Field
	PayloadAt string
	FieldsAt  string
}

// Shape is the frame's shape at a negotiated protocol version: the first variant that holds
// the version replaces the payload and fields it sets, and fields (at any depth) whose
// versions do not hold it are left out. Version 0 (not known) gives the frame as written,
// every field included.
//
// It is the one answer to which fields a frame has between two builds: every reader asks it
// (through At): decoding (Stream.At), the field checks, journeys' where clauses, coverage,
// what a transcript keeps and prints (skewtest transcript, contract decode), and the static
// tier's diff.
func (f *Frame) Shape(version int) Shape {
	s := Shape{Payload: f.Payload, Fields: f.Fields, PayloadAt: "/payload", FieldsAt: "/fields"}
	if version <= 0 {
		return s
	}
	for i, v := range f.Variants {
		if !v.Versions().Holds(version) {
			continue
		}
		if v.Payload != "" {
			s.Payload, s.PayloadAt = v.Payload, fmt.Sprintf("/variants/%d/payload", i)
		}
		if v.Fields != nil {
			s.Fields, s.FieldsAt = v.Fields, fmt.Sprintf("/variants/%d/fields", i)
		}
		break
	}
	s.Fields = fieldsAt(s.Fields, version)
	return s
}

// fieldsAt leaves out the fields whose versions do not hold version, at any depth; it copies
// only what changes.
func fieldsAt(fields map[string]Field, version int) map[string]Field {
	if !bounded(fields) {
		return fields
	}
	out := make(map[string]Field, len(fields))
	for name, fd := range fields {
		if !fd.Versions().Holds(version) {
			continue
		}
		fd.Fields = fieldsAt(fd.Fields, version)
		if fd.Items != nil && bounded(fd.Items.Fields) {
			items := *fd.Items
			items.Fields = fieldsAt(items.Fields, version)
			fd.Items = &items
		}
		out[name] = fd
	}
	return out
}

// bounded reports whether a field at any depth has a version range.
func bounded(fields map[string]Field) bool {
	for _, fd := range fields {
		if fd.Versions().Bounded() || bounded(fd.Fields) || (fd.Items != nil && (fd.Items.Versions().Bounded() || bounded(fd.Items.Fields))) {
			return true
		}
	}
	return false
}

// At is the frame as peers that negotiated version speak it: a copy with the payload and
// fields of its Shape (f itself when nothing depends on the version; nil for nil).
func (f *Frame) At(version int) *Frame {
	if f == nil || version <= 0 || (len(f.Variants) == 0 && !bounded(f.Fields)) {
		return f
	}
	s := f.Shape(version)
	g := *f
	g.Payload, g.Fields = s.Payload, s.Fields
	return &g
}

// Negotiated is the protocol version two builds speak with each other: the lower of their
// versions (a newer peer speaks down to an older one), a build that declares none counting
// as the other's default for it (Protocol.As); 0 when neither says.
func Negotiated(a, b Protocol) int {
	av, bv := a.As(b), b.As(a)
	switch {
	case av == 0:
		return bv
	case bv == 0:
		return av
	}
	return min(av, bv)
}
