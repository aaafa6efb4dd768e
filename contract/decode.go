package contract

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Decoded is a tapped frame read through a channel's framing.
type Decoded struct {
	Binary  bool
	Opcode  int    // binary frames
	Stream  uint32 // binary frames
	Seq     uint64 // binary frames
	Type    string // JSON frames: the discriminator value
	Payload []byte // binary frames: the bytes after the header; JSON frames: the whole text
	// JSON is the payload parsed as a JSON object, when it is one.
	JSON map[string]any
}

// HeaderError says a binary frame does not carry the channel's header.
type HeaderError struct {
	Length int
	Reason string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("%d-byte frame: %s", e.Length, e.Reason)
}

// Decode reads a frame's header (binary) or discriminator (text). It does not judge whether
// the opcode or type is known: callers look it up with Opcode or Type for the receiver.
func (ch *Channel) Decode(isBinary bool, data []byte) (Decoded, error) {
	if !isBinary {
		d := Decoded{Payload: data}
		if ch.JSON == nil {
			return d, fmt.Errorf("channel %s has no JSON framing", ch.Name)
		}
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil {
			return d, fmt.Errorf("text frame is not a JSON object: %w", err)
		}
		d.JSON = obj
		t, _ := obj[ch.JSON.Discriminator].(string)
		if t == "" {
			return d, fmt.Errorf("text frame has no %q discriminator", ch.JSON.Discriminator)
		}
		d.Type = t
		return d, nil
	}
	h := ch.Binary
	if h == nil {
		return Decoded{Binary: true, Payload: data}, fmt.Errorf("channel %s has no binary framing", ch.Name)
	}
	if len(data) < h.HeaderLength {
		return Decoded{Binary: true}, &HeaderError{len(data), fmt.Sprintf("shorter than the %d-byte header", h.HeaderLength)}
	}
	for _, m := range h.Magic {
		if data[m.Offset] != m.Value {
			return Decoded{Binary: true}, &HeaderError{len(data), fmt.Sprintf("byte %d is %#x, want %#x", m.Offset, data[m.Offset], m.Value)}
		}
	}
	d := Decoded{
		Binary:  true,
		Opcode:  int(data[h.OpcodeOffset]),
		Stream:  binary.LittleEndian.Uint32(data[h.StreamOffset:]),
		Seq:     uint64(binary.LittleEndian.Uint32(data[h.SeqOffset:]))<<32 | uint64(binary.LittleEndian.Uint32(data[h.SeqOffset+4:])),
		Payload: data[h.HeaderLength:],
	}
	if len(d.Payload) > 0 && (d.Payload[0] == '{') {
		var obj map[string]any
		if json.Unmarshal(d.Payload, &obj) == nil {
			d.JSON = obj
		}
	}
	return d, nil
}
