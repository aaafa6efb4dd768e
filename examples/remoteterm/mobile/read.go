package mobile

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrDropped is wrapped by Read's error for a message the app drops without a word to
// anyone.
var ErrDropped = errors.New("dropped silently")

// Message is one message from the host as the app reads it, before it acts on it.
type Message struct {
	// Opcode is a binary frame's opcode (header byte 2, also when the frame is refused);
	// 0 for a text message. Known says the vendored decoder knows it.
	Opcode uint8
	Known  bool
	Stream uint32
	Seq    uint64
	// Payload is a binary frame's payload.
	Payload []byte
	// Event is a text message's type.
	Event string
	// Value is what the app decodes from the message, in its own type: an event, or the JSON
	// payload of SnapshotStart or Resized. Nil where it decodes nothing (a text or empty
	// payload, Metadata, which it does not read).
	Value any
}

// Read reads one message from the host the way receive does, without acting on it: a
// binary frame with the vendored decoder, a text message as an event. The error says why the
// app drops the message; it wraps ErrDropped unless the app reports it (an event that is not
// JSON is reported as an error).
func Read(binary bool, data []byte) (Message, error) {
	if !binary {
		var ev event
		if err := json.Unmarshal(data, &ev); err != nil {
			return Message{}, fmt.Errorf("decode event: %w", err)
		}
		switch ev.Type {
		case "ready", "subscribed", "error", "end":
			return Message{Event: ev.Type, Value: ev}, nil
		}
		return Message{Event: ev.Type}, fmt.Errorf("event type %q: %w", ev.Type, ErrDropped)
	}
	f, err := decodeFrame(data)
	if err != nil {
		var m Message
		if len(data) > 2 {
			m.Opcode = data[2]
		}
		return m, fmt.Errorf("%w: %w", err, ErrDropped)
	}
	m := Message{Opcode: f.opcode, Known: true, Stream: f.stream, Seq: f.seq, Payload: f.payload}
	switch f.opcode {
	case opSnapshotStart:
		var s snapshotStart
		_ = json.Unmarshal(f.payload, &s) // the app starts the snapshot even so
		m.Value = s
	case opResized:
		var v viewport
		if err := json.Unmarshal(f.payload, &v); err != nil {
			return m, fmt.Errorf("decode Resized payload: %w: %w", err, ErrDropped)
		}
		m.Value = v
	}
	return m, nil
}
