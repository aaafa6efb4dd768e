// Package wire is remoteterm's terminal stream codec: the 16-byte binary frame header, the
// opcode table of each release, the JSON payloads the frames carry, and the JSON events
// (text messages) that share the socket with them.
//
// The header is byte 0 kind 0x74, byte 1 version 1, byte 2 opcode, byte 3 zero, bytes 4–7
// the stream id (u32 LE) and bytes 8–15 the seq as its high then its low 32 bits (each u32
// LE). Opcode numbers are permanent: a number that shipped is never reused.
//
// Lengths and seqs in remoteterm count UTF-8 bytes: an Output frame's raw length is
// len(payload), and seq is the high-water mark of raw bytes the process produced.
package wire
