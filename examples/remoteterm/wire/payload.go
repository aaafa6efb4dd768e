package wire

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Capability names a client declares in Subscribe and a host echoes in subscribed.
const (
	CapOutputPause           = "outputPause"
	CapAckOutput             = "ackOutput"
	CapAckOutputSourceRanges = "ackOutputSourceRanges"
	CapOutputSpan            = "outputSpan"
	CapWriteUnavailable      = "writeUnavailable"
	// CapTitle: the client renders Title (18). Only builds with the titleFrame switch.
	CapTitle = "title"
)

// Capabilities maps a capability name to 1 (declared or accepted).
type Capabilities map[string]int

// Has reports whether c declares name.
func (c Capabilities) Has(name string) bool { return c[name] != 0 }

// SnapshotStart opens a snapshot (opcode 2). Optional fields are omitted when unset, so a
// release that does not publish them sends no key at all.
type SnapshotStart struct {
	Kind      string `json:"kind"` // "scrollback" or "resized"
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
	RequestID int64  `json:"requestId,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Seq is the output seq the snapshot covers up to.
	Seq       uint64 `json:"seq"`
	Cwd       string `json:"cwd,omitempty"`
	Source    string `json:"source"`
	Truncated bool   `json:"truncated"`
	// AlternateScreen and TerminalOwner are published by releases with SnapshotOwnerFields.
	AlternateScreen *bool  `json:"alternateScreen,omitempty"`
	TerminalOwner   string `json:"terminalOwner,omitempty"`
	// Cursor is published by builds with the snapshotCursor switch.
	Cursor *Cursor `json:"cursor,omitempty"`
}

// Cursor is a cell position, from 0.
type Cursor struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// Title is the terminal's title (opcode 18).
type Title struct {
	Title string `json:"title"`
}

// Resized reports the terminal's new size (opcode 5).
type Resized struct {
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Reason string `json:"reason,omitempty"`
	Seq    uint64 `json:"seq"`
}

// Client names a subscribing client.
type Client struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// The viewports the clients offer: from MinCols×MinRows to MaxCols×MaxRows, both included.
const (
	MinCols, MaxCols = 20, 200
	MinRows, MaxRows = 5, 60
)

// Viewport is a size in cells: the Subscribe viewport, Resize (8) and ClaimViewport (14).
type Viewport struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Subscribe opens a stream (opcode 9, sent on stream 0).
type Subscribe struct {
	StreamID     uint32       `json:"streamId"`
	Terminal     string       `json:"terminal"`
	Client       *Client      `json:"client,omitempty"`
	Viewport     *Viewport    `json:"viewport,omitempty"`
	Capabilities Capabilities `json:"capabilities,omitempty"`
}

// ErrorWriteUnavailable is the Error (6) payload a host sends for input to a terminal that
// does not take it, to a client that did not negotiate WriteUnavailable (17).
const ErrorWriteUnavailable = "terminal_write_unavailable"

// MaxScrollbackRows is the largest scrollbackRows a host honours.
const MaxScrollbackRows = 50000

// SnapshotRequest asks for a snapshot (opcode 11). Without RequestID it is a resync.
type SnapshotRequest struct {
	RequestID      int64 `json:"requestId,omitempty"`
	ScrollbackRows *int  `json:"scrollbackRows,omitempty"`
}

// Metadata carries terminal metadata (opcode 12).
type Metadata struct {
	Cwd string `json:"cwd,omitempty"`
}

// Ack acknowledges delivered output (opcode 13): either Bytes (payload bytes since the
// last ack) or StreamGeneration with AckedEndByte (a source-range ledger position).
type Ack struct {
	Bytes            *uint64 `json:"bytes,omitempty"`
	StreamGeneration string  `json:"streamGeneration,omitempty"`
	AckedEndByte     *uint64 `json:"ackedEndByte,omitempty"`
}

// ErrBadAck is an Ack that is neither {bytes} nor {streamGeneration, ackedEndByte}.
var ErrBadAck = errors.New("ack must be {bytes} or {streamGeneration, ackedEndByte}")

// Validate checks that a has exactly one of its two forms.
func (a Ack) Validate() error {
	byBytes := a.Bytes != nil
	byLedger := a.StreamGeneration != "" && a.AckedEndByte != nil
	if byBytes == byLedger || (!byLedger && (a.StreamGeneration != "" || a.AckedEndByte != nil)) {
		return ErrBadAck
	}
	return nil
}

// OutputSpan is a transformed run (opcode 15): Data is displayed, RawLength raw bytes were
// consumed. It is never chunked.
type OutputSpan struct {
	Data        string `json:"data"`
	RawLength   uint64 `json:"rawLength"`
	Transformed bool   `json:"transformed"`
}

// SetOutputPaused pauses or resumes a stream's output (opcode 16).
type SetOutputPaused struct {
	Paused bool `json:"paused"`
}

// EncodeJSON returns the frame made of h and v as JSON.
func EncodeJSON(h Header, v any) ([]byte, error) {
	p, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %v payload: %w", h.Opcode, err)
	}
	return Encode(h, p), nil
}

// DecodeJSON decodes f's JSON payload into v. Unknown keys are ignored (Rule 1: a newer
// peer may add optional fields).
func DecodeJSON(f Frame, v any) error {
	if err := json.Unmarshal(f.Payload, v); err != nil {
		return fmt.Errorf("decode %v payload: %w", f.Opcode, err)
	}
	return nil
}
