package wire

import (
	"encoding/json"
	"fmt"
)

// JSON event types: text messages on the same socket as the binary frames, discriminated
// by "type".
const (
	EventReady      = "ready"
	EventSubscribed = "subscribed"
	EventError      = "error"
	EventEnd        = "end"
)

// Ready is the host's first message on a connection.
type Ready struct {
	Type string `json:"type"`
}

// Subscribed answers a Subscribe.
type Subscribed struct {
	Type     string `json:"type"`
	StreamID uint32 `json:"streamId"`
	Terminal string `json:"terminal"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
	// Seq is the terminal's layout seq, a domain separate from output seq.
	Seq uint64 `json:"seq"`
	// Capabilities echoes the declared capabilities the host accepted.
	Capabilities Capabilities `json:"capabilities,omitempty"`
	// StreamGeneration names the source-range ledger generation (with ackOutputSourceRanges).
	StreamGeneration string `json:"streamGeneration,omitempty"`
}

// ErrorEvent reports a failed request on the JSON channel.
type ErrorEvent struct {
	Type     string `json:"type"`
	StreamID uint32 `json:"streamId,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// End says a stream is over.
type End struct {
	Type     string `json:"type"`
	StreamID uint32 `json:"streamId"`
	Reason   string `json:"reason,omitempty"`
}

// Event is a JSON event as received: its type and the whole message.
type Event struct {
	Type string
	Raw  json.RawMessage
}

// DecodeEvent reads a text message's type.
func DecodeEvent(b []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Event{}, fmt.Errorf("decode event: %w", err)
	}
	if head.Type == "" {
		return Event{}, fmt.Errorf("decode event: no type")
	}
	return Event{Type: head.Type, Raw: append(json.RawMessage(nil), b...)}, nil
}

// Decode decodes e's message into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("decode %s event: %w", e.Type, err)
	}
	return nil
}
