package wire

import "github.com/skewtest/skewtest/examples/remoteterm/release"

// OpcodeSet is a set of opcodes a decoder knows. The zero value is empty.
type OpcodeSet struct {
	bits [4]uint64
}

// NewOpcodeSet returns the set of the given opcodes.
func NewOpcodeSet(ops ...Opcode) OpcodeSet {
	var s OpcodeSet
	for _, o := range ops {
		s = s.With(o)
	}
	return s
}

// With returns s plus o.
func (s OpcodeSet) With(o Opcode) OpcodeSet {
	s.bits[o/64] |= 1 << (o % 64)
	return s
}

// Without returns s minus o (a negative control: a build that "predates" o).
func (s OpcodeSet) Without(o Opcode) OpcodeSet {
	s.bits[o/64] &^= 1 << (o % 64)
	return s
}

// Has reports whether o is in s.
func (s OpcodeSet) Has(o Opcode) bool {
	return s.bits[o/64]&(1<<(o%64)) != 0
}

// List returns the opcodes in s in numeric order.
func (s OpcodeSet) List() []Opcode {
	var out []Opcode
	for i := 0; i < 256; i++ {
		if s.Has(Opcode(i)) {
			out = append(out, Opcode(i))
		}
	}
	return out
}

// Opcodes is the shared opcode table of release f: what its host and its desktop client
// decode. Opcodes 1–12 shipped first; the others arrived with the features that use them.
func Opcodes(f release.Features) OpcodeSet {
	s := NewOpcodeSet(OpOutput, OpSnapshotStart, OpSnapshotChunk, OpSnapshotEnd, OpResized,
		OpError, OpInput, OpResize, OpSubscribe, OpUnsubscribe, OpSnapshotRequest, OpMetadata)
	if f.Ack {
		s = s.With(OpAck)
	}
	if f.ClaimViewport {
		s = s.With(OpClaimViewport)
	}
	if f.OutputSpan {
		s = s.With(OpOutputSpan)
	}
	if f.OutputPause {
		s = s.With(OpSetOutputPaused)
	}
	if f.WriteUnavailable {
		s = s.With(OpWriteUnavailable)
	}
	if f.TitleFrame {
		s = s.With(OpTitle)
	}
	return s
}
