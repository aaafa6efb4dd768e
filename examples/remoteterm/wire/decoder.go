package wire

import (
	"errors"
	"fmt"
)

// Why a decoder refuses a frame. A DecodeError wraps one of them.
var (
	ErrShortFrame    = errors.New("short frame")
	ErrBadKind       = errors.New("bad kind")
	ErrBadVersion    = errors.New("bad version")
	ErrUnknownOpcode = errors.New("unknown opcode")
)

// DecodeError is a frame a decoder refused.
type DecodeError struct {
	// Err is ErrShortFrame, ErrBadKind, ErrBadVersion or ErrUnknownOpcode.
	Err error
	// Opcode is header byte 2 when the frame has one (HasOpcode), so a receiver can report
	// the opcode it refused.
	Opcode    Opcode
	HasOpcode bool
	// Length is the whole frame's length in bytes.
	Length int
}

func (e *DecodeError) Error() string {
	if e.HasOpcode {
		return fmt.Sprintf("decode frame (opcode %d, %d bytes): %v", uint8(e.Opcode), e.Length, e.Err)
	}
	return fmt.Sprintf("decode frame (%d bytes): %v", e.Length, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Frame is a decoded binary frame. Payload aliases the decoded bytes.
type Frame struct {
	Header
	Payload []byte
}

// Decoder decodes the binary frames whose opcodes it knows and refuses the others, the way
// a build's real decoder does.
type Decoder struct {
	known OpcodeSet
}

// NewDecoder returns a decoder that knows the opcodes in known.
func NewDecoder(known OpcodeSet) *Decoder {
	return &Decoder{known: known}
}

// Known is the set of opcodes d decodes.
func (d *Decoder) Known() OpcodeSet { return d.known }

// Decode decodes one frame. It returns a *DecodeError for a frame under 16 bytes, with a
// kind or version other than 0x74 and 1, or with an opcode d does not know.
func (d *Decoder) Decode(b []byte) (Frame, error) {
	e := &DecodeError{Length: len(b)}
	if len(b) > 2 {
		e.Opcode, e.HasOpcode = Opcode(b[2]), true
	}
	switch {
	case len(b) < HeaderLength:
		e.Err = ErrShortFrame
	case b[0] != Kind:
		e.Err = ErrBadKind
	case b[1] != Version:
		e.Err = ErrBadVersion
	case !d.known.Has(Opcode(b[2])):
		e.Err = ErrUnknownOpcode
	default:
		return Frame{Header: parseHeader(b), Payload: b[HeaderLength:]}, nil
	}
	return Frame{}, e
}
