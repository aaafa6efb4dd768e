package tap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/internal/declare/framing"
)

// Framings: how a byte-stream tap (tcp://, tls://) cuts each direction's bytes into the
// messages it records and forwards, under the names the tap's callers use. The names and what
// each means are internal/declare/framing's, the one list builds validates a channel's
// declaration against.
const (
	FramingRaw     = framing.Raw // what each read returns; the default
	FramingLines   = framing.Lines
	FramingU16BE   = framing.U16BE
	FramingU32BE   = framing.U32BE
	FramingU16LE   = framing.U16LE
	FramingU32LE   = framing.U32LE
	FramingVarint  = framing.Varint
	FramingPackets = framing.Packets // where Stream.PacketEnd says a packet ends
)

// Framings lists every framing a byte-stream tap knows, for validation and messages: the
// list of internal/declare/framing, the same one builds validates a declaration against.
var Framings = framing.Names

// maxMessage is the longest message a framing reads; a longer line or length is taken as
// bytes of another framing.
const maxMessage = framing.MaxMessage

// Stream says how a byte-stream tap cuts and files what it carries (WithStream).
type Stream struct {
	Framing string // FramingRaw when empty
	// Length, for a fixed-width length framing (u16be, u32be, u16le, u32le), says where the
	// length sits when a header holds more than it; such a message is recorded whole.
	Length framing.Length
	// Path is what every connection is recorded under (Frame.Path): a byte stream has no
	// request path, so the tap files it under the path of the contract channel it carries.
	Path string
	// Text records messages as text; binary otherwise.
	Text bool
	// PacketEnd, for FramingPackets, says how many bytes the packet at the front of buf takes
	// in direction dir: 0 while buf ends before it does; an error when buf starts no packet,
	// after which the direction's bytes go on as they arrive (FramingRaw).
	PacketEnd func(dir Direction, buf []byte) (int, error)
}

// stream is one side of a byte-stream connection, read and written as messages.
type stream struct {
	net.Conn // a *wireConn, so that writes are whole
	r        *bufio.Reader
	framing  string
	length   framing.Length
	mt       int

	// FramingPackets: what the side sent that no packet took yet, how packets end in the
	// direction it sends, and whether that stopped working (lost).
	dir       Direction
	packetEnd func(Direction, []byte) (int, error)
	buf       []byte
	lost      bool

	chunk []byte // what one read takes, reused
}

// newStream reads c as a side that sends in direction dir.
func newStream(c net.Conn, s Stream, dir Direction) *stream {
	mt := websocket.BinaryMessage
	if s.Text {
		mt = websocket.TextMessage
	}
	return &stream{Conn: c, r: bufio.NewReaderSize(c, bufferSize), framing: s.Framing, length: s.Length, mt: mt, dir: dir, packetEnd: s.PacketEnd}
}

// errMidMessage: the peer closed its side inside a message.
var errMidMessage = errors.New("closed inside a message")

// ReadMessage reads the next message. io.EOF means the peer ended its side between messages
// (an orderly close); an end inside one is errMidMessage.
func (s *stream) ReadMessage() (int, []byte, error) {
	var data []byte
	var err error
	switch s.framing {
	case FramingLines:
		data, err = s.line()
	case FramingU16BE, FramingU32BE, FramingU16LE, FramingU32LE:
		data, err = s.fixed()
	case FramingVarint:
		data, err = s.prefixed()
	case FramingPackets:
		data, err = s.packet()
	default:
		var n int
		n, err = s.r.Read(s.readBuffer())
		if n > 0 {
			return s.mt, bytes.Clone(s.chunk[:n]), nil
		}
	}
	if err != nil {
		return 0, nil, err
	}
	return s.mt, data, nil
}

func (s *stream) line() ([]byte, error) {
	var line []byte
	for {
		part, err := s.r.ReadSlice('\n')
		line = append(line, part...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line) > maxMessage {
				return nil, fmt.Errorf("a line longer than %d bytes: not lines framing?", maxMessage)
			}
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("%w (%d bytes of a line with no end)", errMidMessage, len(line))
		default:
			return nil, err
		}
	}
}

// packet reads the next packet whole, where packetEnd says it ends; once packetEnd finds no
// packet, what arrives goes on as it arrives.
func (s *stream) packet() ([]byte, error) {
	for {
		if len(s.buf) > 0 {
			n := len(s.buf)
			if !s.lost && s.packetEnd != nil {
				var err error
				if n, err = s.packetEnd(s.dir, s.buf); err != nil {
					s.lost, n = true, len(s.buf)
				}
			}
			if n > len(s.buf) {
				n = len(s.buf)
			}
			if n > 0 {
				msg := bytes.Clone(s.buf[:n])
				s.buf = s.buf[:copy(s.buf, s.buf[n:])]
				return msg, nil
			}
		}
		k, err := s.r.Read(s.readBuffer())
		s.buf = append(s.buf, s.chunk[:k]...)
		if err != nil && k == 0 {
			if len(s.buf) > 0 && errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w (%d bytes of a packet with no end)", errMidMessage, len(s.buf))
			}
			return nil, err
		}
	}
}

// readBuffer is where one read goes.
func (s *stream) readBuffer() []byte {
	if s.chunk == nil {
		s.chunk = make([]byte, bufferSize)
	}
	return s.chunk
}

// fixed reads a message of a fixed-width length framing: its header (the length alone, or
// the header Stream.Length says), then as many bytes as the length says. A bare prefix is
// not recorded; a longer header is, with the message.
func (s *stream) fixed() ([]byte, error) {
	hs := s.length.HeaderSize(s.framing)
	head := make([]byte, hs)
	if got, err := io.ReadFull(s.r, head); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			what := "length"
			if s.length.Whole(s.framing) {
				what = fmt.Sprintf("%d-byte header", hs)
			}
			return nil, fmt.Errorf("%w (%d bytes inside a %s %s)", errMidMessage, got, s.framing, what)
		}
		return nil, err
	}
	n, err := s.length.Size(s.framing, head)
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	copy(data, head)
	whole := s.length.Whole(s.framing)
	if got, err := io.ReadFull(s.r, data[hs:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if whole {
				return nil, fmt.Errorf("%w (%d of %d bytes)", errMidMessage, hs+got, n)
			}
			return nil, fmt.Errorf("%w (%d of %d bytes)", errMidMessage, got, n-hs) // what the prefix announced
		}
		return nil, err
	}
	if whole {
		return data, nil
	}
	return data[hs:], nil
}

// prefixed reads a message of the varint framing.
func (s *stream) prefixed() ([]byte, error) {
	n, err := binary.ReadUvarint(s.r)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%w (inside a %s length)", errMidMessage, s.framing)
	}
	if err != nil {
		return nil, err
	}
	if n > maxMessage {
		return nil, fmt.Errorf("a %s length of %d bytes: not %s framing?", s.framing, n, s.framing)
	}
	data := make([]byte, n)
	if got, err := io.ReadFull(s.r, data); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w (%d of %d bytes)", errMidMessage, got, n)
		}
		return nil, err
	}
	return data, nil
}

// framed is a message as it travels: with its delimiter or length prefix (a message
// recorded whole travels as it is).
func (s *stream) framed(data []byte) []byte {
	switch s.framing {
	case FramingLines:
		return append(bytes.Clone(data), '\n')
	case FramingU16BE, FramingU32BE, FramingU16LE, FramingU32LE:
		return s.length.Frame(s.framing, data)
	case FramingVarint:
		return append(binary.AppendUvarint(nil, uint64(len(data))), data...)
	}
	return data
}

// WriteMessage writes one message, framed, in one write.
func (s *stream) WriteMessage(_ int, data []byte) error {
	_, err := s.Conn.Write(s.framed(data))
	return err
}

// writeFragmented writes one message, framed, in transport writes of at most fr.size bytes.
func (s *stream) writeFragmented(data []byte, fr fragment) error {
	if w, ok := s.Conn.(*wireConn); ok {
		return w.writeFrame(s.framed(data), fr.size)
	}
	return s.WriteMessage(s.mt, data)
}

// closeWrite ends the side's sending half (a FIN): an orderly close, passed on. The read
// half stays open for the peer's answer.
func (s *stream) closeWrite() {
	type closeWriter interface{ CloseWrite() error }
	c := s.Conn
	if w, ok := c.(*wireConn); ok {
		c = w.Conn
	}
	if cw, ok := c.(closeWriter); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = s.Conn.Close()
}

// wire is one side of a proxied connection: a WebSocket connection, or a stream.
type wire interface {
	ReadMessage() (int, []byte, error)
	WriteMessage(mt int, data []byte) error
	SetReadDeadline(time.Time) error
	Close() error
}

// accept serves the connections of a byte-stream tap until its listener is closed.
func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		go p.serveStream(c)
	}
}

// serveStream handles one client connection of a byte-stream tap for its whole life.
func (p *Proxy) serveStream(cl net.Conn) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cl.Close()
		return
	}
	p.nextConn++
	c := &conn{id: p.nextConn, path: p.stream.Path, done: make(chan struct{}), ended: make(chan struct{})}
	if p.blocked {
		p.mu.Unlock()
		p.event(c, EventRefused, "blocked by the journey (tap block)")
		cl.Close()
		return
	}
	p.handlers.Add(1)
	p.mu.Unlock()
	defer p.handlers.Done()

	dctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	up, err := p.dialStream(dctx)
	cancel()
	if err != nil {
		if p.ctx.Err() == nil {
			p.event(c, EventUpstreamError, err.Error())
		}
		cl.Close()
		return
	}
	p.connect(c, newStream(cl, p.stream, ClientToHost), newStream(up, p.stream, HostToClient), "")
}

// dialStream reaches the host of a byte-stream tap.
func (p *Proxy) dialStream(ctx context.Context) (net.Conn, error) {
	addr := strings.TrimPrefix(strings.TrimPrefix(p.upstream, "tcp://"), "tls://")
	if p.scheme == "tls" {
		return p.dialTLS(ctx, "tcp", addr)
	}
	return dialWire(ctx, "tcp", addr)
}

// reset makes closing the connection's streams abrupt (a TCP reset), as a transport drop is.
func (c *conn) reset() {
	for _, w := range []wire{c.client, c.host} {
		s, ok := w.(*stream)
		if !ok {
			continue
		}
		var nc net.Conn = s.Conn
		if w, ok := nc.(*wireConn); ok {
			nc = w.Conn
		}
		if tc, ok := nc.(*tls.Conn); ok {
			nc = tc.NetConn()
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
	}
}
