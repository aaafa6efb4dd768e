// Package desktop is remoteterm's desktop multiplexer client: one WebSocket connection to
// the host's /terminal.multiplex carrying a stream per subscribed terminal.
//
// Per stream it renders the snapshot and output into a screen buffer, tracks expectedSeq
// from the snapshot's seq, detects gaps (seq − rawLength > expectedSeq, with rawLength =
// len(data) for Output) and asks for an untagged resync snapshot, dropping output the
// snapshot covers; it acks delivered payload bytes in batches, by byte count or by ledger
// position when the host echoed ackOutputSourceRanges. Its decoder is the shared opcode
// table of its release: a frame it does not know fails the connection, loudly.
//
// What the client declares and which frames it knows and sends are decided by the
// release.Features it is built with.
package desktop
