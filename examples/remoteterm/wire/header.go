package wire

import "encoding/binary"

// Header constants.
const (
	HeaderLength = 16
	Kind         = 0x74
	Version      = 1
)

// Header is a binary frame's 16-byte header.
type Header struct {
	Opcode Opcode
	Stream uint32
	// Seq is the frame's seq; 0 means the frame carries none.
	Seq uint64
}

// AppendHeader appends h's 16 bytes to dst.
func AppendHeader(dst []byte, h Header) []byte {
	var b [HeaderLength]byte
	b[0] = Kind
	b[1] = Version
	b[2] = byte(h.Opcode)
	binary.LittleEndian.PutUint32(b[4:8], h.Stream)
	binary.LittleEndian.PutUint32(b[8:12], uint32(h.Seq>>32))
	binary.LittleEndian.PutUint32(b[12:16], uint32(h.Seq))
	return append(dst, b[:]...)
}

// Encode returns the frame made of h and payload.
func Encode(h Header, payload []byte) []byte {
	out := make([]byte, 0, HeaderLength+len(payload))
	return append(AppendHeader(out, h), payload...)
}

// parseHeader reads a header without judging the opcode.
func parseHeader(b []byte) Header {
	return Header{
		Opcode: Opcode(b[2]),
		Stream: binary.LittleEndian.Uint32(b[4:8]),
		Seq:    uint64(binary.LittleEndian.Uint32(b[8:12]))<<32 | uint64(binary.LittleEndian.Uint32(b[12:16])),
	}
}
