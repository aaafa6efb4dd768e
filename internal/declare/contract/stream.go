package contract

import (
	"bytes"
	"errors"
	"fmt"
)

// Stream decodes the messages of one direction of one connection. For a stream codec it
// keeps the bytes of a packet not yet complete; for other codecs every message stands alone.
type Stream struct {
	ch      *Channel
	dir     string
	version int       // the negotiated protocol version its frames are read at (At)
	pending [2][]byte // text, binary
}

// NewStream returns a decoder for the frames travelling in dir (H>C or C>H; "" when not
// known, which a protobuf codec with a message per direction cannot decode).
func (ch *Channel) NewStream(dir string) *Stream {
	return &Stream{ch: ch, dir: dir}
}

// At makes the stream read frames as peers that negotiated protocol version speak them
// (Frame.Shape: the fields of other versions left out, a variant's payload and fields in
// place of the frame's own), and returns it. Without it (or with 0, not known) every frame
// is read as written, every field included.
func (s *Stream) At(version int) *Stream {
	s.version = version
	return s
}

// Pending returns the bytes of incomplete packets the stream holds.
func (s *Stream) Pending() int {
	return len(s.pending[0]) + len(s.pending[1])
}

// Feed decodes one WebSocket message and returns the packets it completes: zero or more
// frames, and an error packet for bytes that are malformed. After a malformed packet a
// stream cannot find the next packet's start: it drops what it holds.
func (s *Stream) Feed(isBinary bool, data []byte) []Packet {
	c := s.ch.Codec(isBinary)
	if c == nil {
		kind := "text"
		if isBinary {
			kind = "binary"
		}
		return []Packet{{Decoded: Decoded{Binary: isBinary, Payload: data},
			Err: fmt.Errorf("channel %s has no codec for %s messages: %w", s.ch.Name, kind, ErrNoCodec)}}
	}
	if !c.Stream {
		return s.message(c, isBinary, data)
	}
	i := 0
	if isBinary {
		i = 1
	}
	buf := data
	if len(s.pending[i]) > 0 {
		buf = append(s.pending[i], data...)
	}
	s.pending[i] = nil
	var out []Packet
	for len(buf) > 0 {
		n, ps, err := s.cut(c, isBinary, buf)
		var short *shortError
		if errors.As(err, &short) {
			break
		}
		if err != nil {
			out = append(out, Packet{Decoded: Decoded{Binary: isBinary, Payload: buf}, Err: err})
			buf = nil
			break
		}
		out = append(out, ps...)
		buf = buf[n:]
	}
	if len(buf) > 0 {
		s.pending[i] = bytes.Clone(buf)
	}
	return out
}

// cut decodes the packet or batch item at the front of buf, returning the bytes it took.
func (s *Stream) cut(c *Codec, isBinary bool, buf []byte) (int, []Packet, error) {
	b, err := bounds(c, buf)
	if errors.Is(err, ErrNoPacketEnd) {
		return 0, nil, fmt.Errorf("channel %s: a stream codec needs a header length field or a length-prefix batch", s.ch.Name)
	}
	if err != nil {
		return 0, nil, err
	}
	if c.prefixed() {
		return b.end, s.item(c, isBinary, buf[b.start:b.end]), nil
	}
	return b.end, []Packet{{Decoded: s.packet(b.hv, isBinary, buf[b.start:b.end])}}, nil
}

// packetBounds is where the packet (or batch item) at the front of a stream's bytes lies:
// its payload from start to end, end being the bytes it takes; hv is its header's values.
type packetBounds struct {
	start, end int
	hv         headerValues
}

// bounds finds the packet at the front of buf by the codec's length prefix or header length
// field: a *shortError when buf ends before it does, ErrNoPacketEnd when the codec has
// neither.
func bounds(c *Codec, buf []byte) (packetBounds, error) {
	if c.prefixed() {
		item, n, err := cutPrefixed(c.Batch, buf)
		if err != nil {
			return packetBounds{}, err
		}
		return packetBounds{start: n - len(item), end: n}, nil
	}
	if c.Header == nil {
		return packetBounds{}, ErrNoPacketEnd
	}
	hv, size, total, err := c.Header.cut(buf)
	if err != nil {
		return packetBounds{}, err
	}
	if !hv.hasLen {
		return packetBounds{}, ErrNoPacketEnd
	}
	return packetBounds{start: size, end: total, hv: hv}, nil
}

// ErrNoPacketEnd says a channel's codec cannot say where a packet ends in a byte stream: it
// is no stream codec, or it has neither a header length field nor a length-prefix batch.
var ErrNoPacketEnd = errors.New("the codec says nowhere where a packet ends: a stream codec with a header length field or a length-prefix batch does")

// PacketEnd returns how many bytes the first packet (or batch item with its prefix) at the
// front of buf takes in a stream of the channel's text or binary messages: 0 when buf ends
// before it does. An error says buf does not start with a packet, or the codec cannot say
// (ErrNoPacketEnd). A byte-stream tap cuts a connection's bytes into packets with it.
func (ch *Channel) PacketEnd(isBinary bool, buf []byte) (int, error) {
	c := ch.Codec(isBinary)
	if c == nil || !c.Stream {
		return 0, ErrNoPacketEnd
	}
	b, err := bounds(c, buf)
	if _, short := errors.AsType[*shortError](err); short {
		return 0, nil
	}
	return b.end, err
}
