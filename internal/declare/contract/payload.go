package contract

import (
	"encoding/binary"
	"unicode/utf8"
)

// Frame payloads.
const (
	PayloadText     = "text"
	PayloadJSON     = "json"
	PayloadEmpty    = "empty"
	PayloadBinary   = "binary"
	PayloadProtobuf = "protobuf"
)

// BinaryValue reads the fields of a binary payload (payload "binary") by offset into the
// value CheckFields checks: integers as numbers, string-u16be as a string, rest as an array
// of numbers. A field the payload is too short for is absent.
func (f *Frame) BinaryValue(payload []byte) map[string]any {
	out := map[string]any{}
	for name, fd := range f.Fields {
		if fd.Offset == nil || *fd.Offset < 0 || *fd.Offset > len(payload) {
			continue
		}
		if v, ok := readPayloadField(&fd, payload[*fd.Offset:]); ok {
			out[name] = v
		}
	}
	return out
}

func readPayloadField(fd *Field, b []byte) (any, bool) {
	switch fd.Encoding {
	case StringU16BE:
		if len(b) < 2 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b)-2 < n {
			return nil, false
		}
		s := b[2 : 2+n]
		if !utf8.Valid(s) {
			return arrayOf(s), true // not text: the type check reports it
		}
		return string(s), true
	case Rest:
		return arrayOf(b), true
	}
	v, _, err := readUint(fd.Encoding, b)
	if err != nil {
		return nil, false
	}
	return float64(bitField(v, fd.Mask, fd.Shift)), true
}

func arrayOf(b []byte) []any {
	out := make([]any, len(b))
	for i, c := range b {
		out[i] = float64(c)
	}
	return out
}
