// Package mobile is remoteterm's mobile client. It reaches the host's legacy
// /terminal.subscribe path and, like the real mobile app, carries its own hand-copied copy
// of the terminal stream protocol (protocol.go) instead of the shared wire package: its
// decoder knows only opcodes 1–6 and 12. It ignores Output seq entirely and silently drops
// frames it does not know, as the product does; each dropped frame is still reported as a
// silent refusal so a harness can see it.
package mobile
