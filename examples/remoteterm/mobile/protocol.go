package mobile

import (
	"encoding/binary"
	"errors"
)

// This file is the mobile app's vendored copy of the terminal stream protocol. It is
// deliberately not the shared wire package: it was copied when the app shipped, and
// nothing makes it follow the shared table (that drift is what skewtest exists to find).

const (
	headerLength  = 16
	frameKind     = 0x74
	frameVersion  = 1
	subscribePath = "/terminal.subscribe"
)

// Opcodes the vendored table knows.
const (
	opOutput          = 1
	opSnapshotStart   = 2
	opSnapshotChunk   = 3
	opSnapshotEnd     = 4
	opResized         = 5
	opError           = 6
	opInput           = 7
	opResize          = 8
	opSubscribe       = 9
	opUnsubscribe     = 10
	opSnapshotRequest = 11
	opMetadata        = 12
)

// errorWriteUnavailable is the Error payload for input the terminal did not take.
const errorWriteUnavailable = "terminal_write_unavailable"

// decodable reports whether the vendored decoder accepts opcode op from the host.
func decodable(op uint8) bool {
	switch op {
	case opOutput, opSnapshotStart, opSnapshotChunk, opSnapshotEnd, opResized, opError, opMetadata:
		return true
	}
	return false
}

var (
	errShortFrame    = errors.New("short frame")
	errBadKind       = errors.New("bad kind")
	errBadVersion    = errors.New("bad version")
	errUnknownOpcode = errors.New("unknown opcode")
)

type frame struct {
	opcode  uint8
	stream  uint32
	seq     uint64
	payload []byte
}

// decodeFrame decodes a host frame; the error says why it was dropped.
func decodeFrame(b []byte) (frame, error) {
	switch {
	case len(b) < headerLength:
		return frame{}, errShortFrame
	case b[0] != frameKind:
		return frame{}, errBadKind
	case b[1] != frameVersion:
		return frame{}, errBadVersion
	case !decodable(b[2]):
		return frame{}, errUnknownOpcode
	}
	return frame{
		opcode:  b[2],
		stream:  binary.LittleEndian.Uint32(b[4:8]),
		seq:     uint64(binary.LittleEndian.Uint32(b[8:12]))<<32 | uint64(binary.LittleEndian.Uint32(b[12:16])),
		payload: b[headerLength:],
	}, nil
}

func encodeFrame(opcode uint8, stream uint32, payload []byte) []byte {
	b := make([]byte, headerLength, headerLength+len(payload))
	b[0], b[1], b[2] = frameKind, frameVersion, opcode
	binary.LittleEndian.PutUint32(b[4:8], stream)
	return append(b, payload...)
}

type viewport struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

type clientInfo struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type subscribeMsg struct {
	StreamID     uint32         `json:"streamId"`
	Terminal     string         `json:"terminal"`
	Client       clientInfo     `json:"client"`
	Viewport     viewport       `json:"viewport"`
	Capabilities map[string]int `json:"capabilities,omitempty"`
}

type snapshotRequest struct {
	RequestID      int64 `json:"requestId,omitempty"`
	ScrollbackRows *int  `json:"scrollbackRows,omitempty"`
}

type snapshotStart struct {
	Cols      int   `json:"cols"`
	Rows      int   `json:"rows"`
	RequestID int64 `json:"requestId"`
}

type event struct {
	Type     string `json:"type"`
	StreamID uint32 `json:"streamId"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Reason   string `json:"reason"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}
