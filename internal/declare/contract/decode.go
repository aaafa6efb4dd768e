package contract

import (
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Decoded is one tapped frame read through its channel's codec.
type Decoded struct {
	// Binary says the frame came in a binary WebSocket message.
	Binary bool
	// Opcode is the header's type field (HasOpcode); such a frame is looked up by opcode.
	Opcode    int
	HasOpcode bool
	Stream    uint32 // the header's stream field (HasStream)
	Seq       uint64 // the header's seq field (HasSeq)
	HasStream bool
	HasSeq    bool
	// Header holds the header's other named fields (flags, magic numbers).
	Header map[string]uint64
	// Type is the frame's name from a JSON or protobuf codec (or set once a driver named it).
	Type string
	// Payload is the bytes after the header, or the whole frame for other codecs.
	Payload []byte
	// JSON is the frame as a JSON object, when it is one (a JSON frame, a header payload
	// that is a JSON object, a protobuf message's JSON form).
	JSON map[string]any
	// Value is the frame's fields as a JSON-like value, the one Frame.CheckFields checks: the
	// JSON value, the protobuf message's JSON form, or a binary payload's fields by offset.
	Value any
	// Driver says the receiving build's driver is to name the frame (a driver codec).
	Driver bool
}

// Packet is one frame a Stream decoded, or why the bytes are malformed.
type Packet struct {
	Decoded Decoded
	Err     error
}

// Decode reads a message that carries one frame (contract version 1's only case): its
// header (binary) or name (text). It does not judge whether the frame is known: look it up
// with Lookup. It does not know the direction: a protobuf codec with a message per direction
// and messages carrying several frames need a Stream.
func (ch *Channel) Decode(isBinary bool, data []byte) (Decoded, error) {
	ps := ch.NewStream("").Feed(isBinary, data)
	switch len(ps) {
	case 0:
		return Decoded{Binary: isBinary, Payload: data}, &HeaderError{len(data), "the message ends inside its first packet"}
	case 1:
		return ps[0].Decoded, ps[0].Err
	}
	return ps[0].Decoded, fmt.Errorf("the message holds %d frames: decode it with a Stream", len(ps))
}

// message decodes one whole message of a codec that is not a stream.
func (s *Stream) message(c *Codec, isBinary bool, data []byte) []Packet {
	items, err := splitBatch(c.Batch, data)
	var out []Packet
	for _, it := range items {
		out = append(out, s.item(c, isBinary, it)...)
	}
	if err != nil {
		out = append(out, Packet{Decoded: Decoded{Binary: isBinary, Payload: data}, Err: err})
	}
	return out
}

// item decodes one batch item: one frame, or with a header length, packets back to back.
func (s *Stream) item(c *Codec, isBinary bool, b []byte) []Packet {
	if c.Header == nil {
		d, err := s.ch.frame(c, s.dir, isBinary, b)
		return []Packet{{Decoded: d, Err: err}}
	}
	var out []Packet
	for {
		hv, size, total, err := c.Header.cut(b)
		if err != nil {
			if s, ok := err.(*shortError); ok {
				err = s.truncated()
			}
			return append(out, Packet{Decoded: Decoded{Binary: isBinary, Payload: b}, Err: err})
		}
		out = append(out, Packet{Decoded: s.packet(hv, isBinary, b[size:total])})
		if b = b[total:]; len(b) == 0 {
			return out
		}
	}
}

// packet is the frame of one binary header and its payload. A binary payload's fields are
// read as the stream's protocol version shapes them (Frame.Shape): a field of other versions
// is not read, and a variant's payload and fields replace the frame's own.
func (s *Stream) packet(hv headerValues, isBinary bool, payload []byte) Decoded {
	d := Decoded{
		Binary: isBinary, Opcode: int(hv.opcode), HasOpcode: hv.hasOpcode,
		Stream: uint32(hv.stream), HasStream: hv.hasStream, Seq: hv.seq, HasSeq: hv.hasSeq,
		Header: hv.named, Payload: payload,
	}
	if len(payload) > 0 && payload[0] == '{' {
		var obj map[string]any
		if jsonv1.Unmarshal(payload, &obj) == nil {
			d.JSON, d.Value = obj, obj
			return d
		}
	}
	if hv.hasOpcode {
		for i := range s.ch.Frames {
			f := &s.ch.Frames[i]
			if !f.ByOpcode() || f.Opcode != d.Opcode || !f.Travels(s.dir) {
				continue
			}
			if g := f.At(s.version); g.Payload == PayloadBinary {
				d.Value = g.BinaryValue(payload)
				break
			}
		}
	}
	return d
}

// frame decodes one frame of a JSON, protobuf or driver codec.
func (ch *Channel) frame(c *Codec, dir string, isBinary bool, b []byte) (Decoded, error) {
	d := Decoded{Binary: isBinary, Payload: b}
	switch {
	case c.Protobuf != nil:
		name, value, err := c.Protobuf.decode(dir, b)
		d.Type, d.JSON, d.Value = name, value, value
		return d, err
	case c.Driver:
		d.Driver = true
		var v any
		if jsonv1.Unmarshal(b, &v) == nil {
			d.Value = v
			d.JSON, _ = v.(map[string]any)
		}
		return d, nil
	case c.JSON != nil:
		var v any
		if err := jsonv1.Unmarshal(b, &v); err != nil {
			return d, &PayloadError{Codec: "JSON", Err: err}
		}
		d.Value = v
		d.JSON, _ = v.(map[string]any)
		name, err := c.JSON.name(v)
		d.Type = name
		return d, err
	}
	return d, fmt.Errorf("channel %s: the %s codec names no frames", ch.Name, c.name())
}
