package contract

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Integer encodings of header and payload fields.
const (
	U8        = "u8"
	U16LE     = "u16le"
	U16BE     = "u16be"
	U32LE     = "u32le"
	U32BE     = "u32be"
	U64LE     = "u64le"
	U64BE     = "u64be"
	U32LEHiLo = "u32le-hi-lo" // two u32 LE words, high word first
	Varint    = "varint"      // base-128, low group first, as protobuf and MQTT
)

// Encodings of binary payload fields only.
const (
	StringU16BE = "string-u16be" // 2-byte big-endian length, then UTF-8
	Rest        = "rest"         // the remaining bytes, as an array of numbers
)

// maxVarint is the longest varint read: ten groups carry 64 bits.
const maxVarint = binary.MaxVarintLen64

// intEncoding returns an integer encoding's size in bytes (0: variable) and width in bits.
func intEncoding(enc string) (size, bits int, ok bool) {
	switch enc {
	case U8:
		return 1, 8, true
	case U16LE, U16BE:
		return 2, 16, true
	case U32LE, U32BE:
		return 4, 32, true
	case U64LE, U64BE, U32LEHiLo:
		return 8, 64, true
	case Varint:
		return 0, 64, true
	}
	return 0, 0, false
}

// errShort says the bytes end before the value does; more bytes may complete it.
var errShort = errors.New("short")

// readUint reads an integer of encoding enc from the front of b; it returns errShort when b
// ends first.
func readUint(enc string, b []byte) (uint64, int, error) {
	size, _, ok := intEncoding(enc)
	if !ok {
		return 0, 0, fmt.Errorf("encoding %q is not an integer encoding", enc)
	}
	if size > len(b) {
		return 0, 0, errShort
	}
	switch enc {
	case U8:
		return uint64(b[0]), 1, nil
	case U16LE:
		return uint64(binary.LittleEndian.Uint16(b)), 2, nil
	case U16BE:
		return uint64(binary.BigEndian.Uint16(b)), 2, nil
	case U32LE:
		return uint64(binary.LittleEndian.Uint32(b)), 4, nil
	case U32BE:
		return uint64(binary.BigEndian.Uint32(b)), 4, nil
	case U64LE:
		return binary.LittleEndian.Uint64(b), 8, nil
	case U64BE:
		return binary.BigEndian.Uint64(b), 8, nil
	case U32LEHiLo:
		return uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[4:])), 8, nil
	}
	v, n := binary.Uvarint(b)
	switch {
	case n == 0 && len(b) < maxVarint:
		return 0, 0, errShort
	case n <= 0:
		return 0, 0, fmt.Errorf("varint longer than %d bytes", maxVarint)
	}
	return v, n, nil
}

// bitField applies a field's mask and shift to the integer read.
func bitField(v, mask uint64, shift uint) uint64 {
	if mask != 0 {
		v &= mask
	}
	if shift >= 64 {
		return 0
	}
	return v >> shift
}
