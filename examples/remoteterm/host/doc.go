// Package host is remoteterm's host: an HTTP handler serving the terminal stream over
// WebSocket at /terminal.multiplex (the desktop multiplexer) and /terminal.subscribe (the
// legacy path the mobile client uses), in front of PTY stand-ins that record input and emit
// output when told.
//
// Every behaviour that differs between releases is decided by the release.Features the host
// is built with: which C>H opcodes its decoder knows, which capabilities it echoes, how it
// frames transformed runs on each path (Negotiate), whether it keeps a source-range ledger,
// and which fields SnapshotStart publishes.
//
// Each connection is one goroutine that owns all of its streams' state and is the only
// writer to its socket, plus one reader goroutine it waits for. Terminals hand their output
// to connections through an unbounded mailbox, so emitting never blocks on a slow client.
package host
