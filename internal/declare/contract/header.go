package contract

import (
	"errors"
	"fmt"
	"math"
)

// headerValues is what one binary header carries.
type headerValues struct {
	opcode, stream, seq, length          uint64
	hasOpcode, hasStream, hasSeq, hasLen bool
	named                                map[string]uint64
}

// read decodes the header at the front of b and returns its size. It returns a *shortError
// when b ends inside the header, and a *HeaderError when the bytes cannot be this header.
func (h *Header) read(b []byte) (headerValues, int, error) {
	var hv headerValues
	cursor := 0
	for _, f := range h.Fields {
		off := cursor
		if f.Offset != nil {
			off = *f.Offset
		}
		if off < 0 || off > len(b) {
			return hv, 0, h.short(len(b))
		}
		v, n, err := readUint(f.Encoding, b[off:])
		switch {
		case errors.Is(err, errShort):
			return hv, 0, h.short(len(b))
		case err != nil:
			return hv, 0, &HeaderError{len(b), fmt.Sprintf("field %s at byte %d: %v", f.Name, off, err)}
		}
		cursor = max(cursor, off+n)
		v = bitField(v, f.Mask, f.Shift)
		if f.Value != nil && v != *f.Value {
			return hv, 0, &HeaderError{len(b), fmt.Sprintf("field %s at byte %d is %#x, want %#x", f.Name, off, v, *f.Value)}
		}
		switch f.Name {
		case FieldType:
			if v > math.MaxInt32 {
				return hv, 0, &HeaderError{len(b), fmt.Sprintf("opcode %d at byte %d is too large", v, off)}
			}
			hv.opcode, hv.hasOpcode = v, true
		case FieldStream:
			if v > math.MaxUint32 {
				return hv, 0, &HeaderError{len(b), fmt.Sprintf("stream id %d at byte %d does not fit 32 bits", v, off)}
			}
			hv.stream, hv.hasStream = v, true
		case FieldSeq:
			hv.seq, hv.hasSeq = v, true
		case FieldLength:
			hv.length, hv.hasLen = v, true
		default:
			if hv.named == nil {
				hv.named = map[string]uint64{}
			}
			hv.named[f.Name] = v
		}
	}
	size := max(cursor, h.Length)
	if size > len(b) {
		return hv, 0, h.short(len(b))
	}
	return hv, size, nil
}

// cut reads the packet at the front of b: its header, the header's size and the packet's
// size (the rest of b when the header has no length field).
func (h *Header) cut(b []byte) (headerValues, int, int, error) {
	hv, size, err := h.read(b)
	if err != nil || !hv.hasLen {
		return hv, size, len(b), err
	}
	total := hv.length
	if h.LengthIncludesHeader {
		if total < uint64(size) {
			return hv, 0, 0, &HeaderError{len(b), fmt.Sprintf("length %d is shorter than the %d-byte header it includes", total, size)}
		}
	} else {
		total += uint64(size)
	}
	if total > maxPacket || total < hv.length {
		return hv, 0, 0, &HeaderError{len(b), fmt.Sprintf("length %d is more than the %d bytes skewtest holds for one packet", hv.length, maxPacket)}
	}
	if total > uint64(len(b)) {
		return hv, 0, 0, &shortError{len(b), fmt.Sprintf("truncated: the header says the packet has %d bytes", total)}
	}
	return hv, size, int(total), nil
}

// short is the error for bytes that end inside the header.
func (h *Header) short(have int) error {
	fixed, least := h.minSize()
	if fixed {
		return &shortError{have, fmt.Sprintf("shorter than the %d-byte header", least)}
	}
	return &shortError{have, fmt.Sprintf("ends inside its header (at least %d bytes)", least)}
}

// minSize returns the header's smallest size, and whether that is its only size (no varint).
func (h *Header) minSize() (fixed bool, size int) {
	fixed, cursor := true, 0
	for _, f := range h.Fields {
		n, _, _ := intEncoding(f.Encoding)
		if n == 0 {
			fixed, n = false, 1
		}
		off := cursor
		if f.Offset != nil {
			off = *f.Offset
		}
		cursor = max(cursor, off+n)
	}
	return fixed, max(cursor, h.Length)
}
