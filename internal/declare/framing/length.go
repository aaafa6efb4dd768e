package framing

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Length says where a fixed-width length framing (u16be, u32be, u16le, u32le) finds each
// message's length, when it is not a bare prefix: in a fixed header of Header bytes, at
// byte Offset, counting the payload after the header, or the whole message with
// IncludesHeader. A version byte, a type byte, a u16le length and a u32le stream id, then the
// payload, is u16le with Length{Offset: 2, Header: 8}.
//
// The zero value is a bare prefix: the length first, counting what follows it, recorded
// without it. A message with any other header bytes is recorded whole, header and all: the
// header is what names the frame.
type Length struct {
	Offset int // the byte the length starts at (default 0)
	// Header is the header's size, the length included: where the payload starts. 0: right
	// after the length (Offset + its width).
	Header int
	// IncludesHeader: the length counts the header too, so the message's whole size (default:
	// the payload's only).
	IncludesHeader bool
}

// MaxHeader bounds a declared header's size.
const MaxHeader = 64 << 10

// IsZero reports whether l is a bare prefix as declared (nothing set).
func (l Length) IsZero() bool { return l == Length{} }

// HeaderSize is how many bytes the header of a message of framing name takes, the length
// included.
func (l Length) HeaderSize(name string) int {
	return max(l.Header, l.Offset+Width(name))
}

// Whole reports whether a message of framing name is recorded whole: its header holds more
// than the length.
func (l Length) Whole(name string) bool {
	return l.HeaderSize(name) > Width(name)
}

// LengthError is a Length that does not fit its framing: Field names what is wrong
// (Offset, Header or IncludesHeader), for the caller to name as its user wrote it.
type LengthError struct {
	Field string
	Msg   string
}

func (e *LengthError) Error() string { return e.Msg }

// Check reports what is wrong with l for framing name: a length inside a header needs a
// fixed-width framing, offsets are not negative, the header holds the length and is at most
// MaxHeader bytes.
func (l Length) Check(name string) error {
	w := Width(name)
	switch {
	case l.IsZero():
		return nil
	case w == 0:
		field := "Offset"
		if l.Offset == 0 {
			field = "Header"
			if l.Header == 0 {
				field = "IncludesHeader"
			}
		}
		return &LengthError{field, fmt.Sprintf("a length inside a header needs a fixed-width length framing (%s), not %q", strings.Join(Fixed, ", "), name)}
	case l.Offset < 0:
		return &LengthError{"Offset", fmt.Sprintf("%d: want the byte the length starts at, 0 or more", l.Offset)}
	case l.Header < 0:
		return &LengthError{"Header", fmt.Sprintf("%d: want the header's size in bytes, 0 or more", l.Header)}
	case l.Header > MaxHeader || l.Offset > MaxHeader:
		return &LengthError{"Header", fmt.Sprintf("a header of more than %d bytes: want the header's size, the length included", MaxHeader)}
	case l.Header != 0 && l.Header < l.Offset+w:
		return &LengthError{"Header", fmt.Sprintf("%d bytes cannot hold a %d-byte length at byte %d: want at least %d", l.Header, w, l.Offset, l.Offset+w)}
	}
	return nil
}

// String says where the length is, for reports: "" for a bare prefix, else "length at byte
// 2 of an 8-byte header" (", counting the header").
func (l Length) String(name string) string {
	if l.IsZero() {
		return ""
	}
	s := fmt.Sprintf("length at byte %d of a %d-byte header", l.Offset, l.HeaderSize(name))
	if l.IncludesHeader {
		s += ", counting the header"
	}
	return s
}

// Size is the whole size of a message of framing name (header and payload) whose header is
// head (at least HeaderSize bytes): an error when its length is more than MaxMessage, or,
// counting the header, less than the header.
func (l Length) Size(name string, head []byte) (int, error) {
	hs := l.HeaderSize(name)
	if len(head) < hs {
		return 0, fmt.Errorf("%d bytes of a %d-byte header", len(head), hs)
	}
	b := head[l.Offset:]
	var n uint64
	switch name {
	case U16BE:
		n = uint64(binary.BigEndian.Uint16(b))
	case U32BE:
		n = uint64(binary.BigEndian.Uint32(b))
	case U16LE:
		n = uint64(binary.LittleEndian.Uint16(b))
	case U32LE:
		n = uint64(binary.LittleEndian.Uint32(b))
	default:
		return 0, fmt.Errorf("framing %q has no fixed-width length", name)
	}
	if n > MaxMessage {
		return 0, fmt.Errorf("a %s length of %d bytes: not %s framing?", name, n, name)
	}
	if !l.IncludesHeader {
		return hs + int(n), nil
	}
	if int(n) < hs {
		return 0, fmt.Errorf("a %s length of %d bytes counting a %d-byte header: not this framing?", name, n, hs)
	}
	return int(n), nil
}

// Frame is a recorded message as it travels: the message itself when it is recorded whole
// (its header says its length), else with its length prefix. A length counting the header
// counts the prefix.
func (l Length) Frame(name string, data []byte) []byte {
	if l.Whole(name) {
		return data
	}
	n := len(data)
	if l.IncludesHeader {
		n += Width(name)
	}
	out := make([]byte, 0, Width(name)+len(data)) // one allocation: the prefix and the message
	switch name {
	case U16BE:
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	case U32BE:
		out = binary.BigEndian.AppendUint32(out, uint32(n))
	case U16LE:
		out = binary.LittleEndian.AppendUint16(out, uint16(n))
	case U32LE:
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
	default:
		return data
	}
	return append(out, data...)
}
