package wire

import "fmt"

// Opcode is a binary frame's opcode (header byte 2). The numbers are permanent.
type Opcode uint8

// The opcodes, in the order they were numbered. Ack is 13 because Metadata (12) had already
// shipped to mobile when acks were added; neither number may ever be reused.
const (
	OpOutput           Opcode = 1  // H>C text; seq = raw high-water mark at the frame's end
	OpSnapshotStart    Opcode = 2  // H>C JSON SnapshotStart
	OpSnapshotChunk    Opcode = 3  // H>C text, at most 48 KiB
	OpSnapshotEnd      Opcode = 4  // H>C empty
	OpResized          Opcode = 5  // H>C JSON Resized
	OpError            Opcode = 6  // H>C text
	OpInput            Opcode = 7  // C>H text
	OpResize           Opcode = 8  // C>H JSON Viewport
	OpSubscribe        Opcode = 9  // C>H JSON Subscribe, on stream 0
	OpUnsubscribe      Opcode = 10 // C>H empty
	OpSnapshotRequest  Opcode = 11 // C>H JSON SnapshotRequest
	OpMetadata         Opcode = 12 // H>C JSON Metadata
	OpAck              Opcode = 13 // C>H JSON Ack
	OpClaimViewport    Opcode = 14 // C>H JSON Viewport, always followed by a Resize
	OpOutputSpan       Opcode = 15 // H>C JSON OutputSpan, never chunked
	OpSetOutputPaused  Opcode = 16 // C>H JSON SetOutputPaused; negotiated (outputPause)
	OpWriteUnavailable Opcode = 17 // H>C empty; negotiated (writeUnavailable)
	OpTitle            Opcode = 18 // H>C JSON Title; negotiated (title); only builds with the titleFrame switch
)

var opcodeNames = map[Opcode]string{
	OpOutput:           "Output",
	OpSnapshotStart:    "SnapshotStart",
	OpSnapshotChunk:    "SnapshotChunk",
	OpSnapshotEnd:      "SnapshotEnd",
	OpResized:          "Resized",
	OpError:            "Error",
	OpInput:            "Input",
	OpResize:           "Resize",
	OpSubscribe:        "Subscribe",
	OpUnsubscribe:      "Unsubscribe",
	OpSnapshotRequest:  "SnapshotRequest",
	OpMetadata:         "Metadata",
	OpAck:              "Ack",
	OpClaimViewport:    "ClaimViewport",
	OpOutputSpan:       "OutputSpan",
	OpSetOutputPaused:  "SetOutputPaused",
	OpWriteUnavailable: "WriteUnavailable",
	OpTitle:            "Title",
}

// String is the opcode's name, or Opcode<n> for a number no release ever assigned.
func (o Opcode) String() string {
	if n, ok := opcodeNames[o]; ok {
		return n
	}
	return fmt.Sprintf("Opcode%d", uint8(o))
}

// Direction says which way a frame travels.
type Direction string

// The two directions, written the way frame labels read ("H>C SnapshotStart").
const (
	HostToClient Direction = "H>C"
	ClientToHost Direction = "C>H"
)

// Direction is the direction frames with this opcode travel in. An unassigned opcode has
// no direction ("").
func (o Opcode) Direction() Direction {
	switch o {
	case OpOutput, OpSnapshotStart, OpSnapshotChunk, OpSnapshotEnd, OpResized, OpError,
		OpMetadata, OpOutputSpan, OpWriteUnavailable, OpTitle:
		return HostToClient
	case OpInput, OpResize, OpSubscribe, OpUnsubscribe, OpSnapshotRequest, OpAck,
		OpClaimViewport, OpSetOutputPaused:
		return ClientToHost
	}
	return ""
}

// All lists every assigned opcode in numeric order.
func All() []Opcode {
	out := make([]Opcode, 0, len(opcodeNames))
	for o := OpOutput; o <= OpTitle; o++ {
		out = append(out, o)
	}
	return out
}
