package desktop

import (
	"encoding/json"

	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// stream is one subscribed terminal on a connection. Guarded by Client.mu.
type stream struct {
	id       uint32
	terminal string

	echo       wire.Capabilities // the subscribed event's capabilities
	generation string            // the subscribed event's streamGeneration

	cols, rows   int
	title        string // the terminal's title (Title, 18), where negotiated
	screen       []byte
	reported     int              // how much of screen the last render's report covered
	snap         *pendingSnapshot // a snapshot being received
	haveSnapshot bool
	// expectedSeq is the seq the next output should start at.
	expectedSeq uint64
	// dropThrough: output with seq ≤ dropThrough is covered by the last snapshot.
	dropThrough uint64
	// awaitingRecovery: a resync snapshot was asked for; output is dropped until a
	// snapshot arrives.
	awaitingRecovery bool

	pendingAck uint64 // delivered payload bytes not acked yet
	ackedEnd   uint64 // ledger position acked so far
}

type pendingSnapshot struct {
	start wire.SnapshotStart
	raw   json.RawMessage
	data  []byte
}
