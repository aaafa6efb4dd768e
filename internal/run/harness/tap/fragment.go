package tap

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// fragmentWriteTimeout bounds writing one fragment of a message (a peer that stops reading
// backs the tap up only this long).
const fragmentWriteTimeout = 10 * time.Second

// wireConn is a transport connection of the tap's, either side. Its writes are whole: the
// tap writes a fragmented message's frames itself (gorilla writes a message as frames the
// size of its buffer), each frame under the lock, so a control frame gorilla writes from
// another goroutine (in one Write) never lands inside one.
type wireConn struct {
	net.Conn
	mu sync.Mutex
}

func (w *wireConn) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Conn.Write(b)
}

func (w *wireConn) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Conn.SetWriteDeadline(t)
}

// writeFrames writes each frame whole, in transport writes of at most split bytes (0: one
// write a frame).
func (w *wireConn) writeFrames(frames [][]byte, split int) error {
	for _, f := range frames {
		if err := w.writeFrame(f, split); err != nil {
			return err
		}
	}
	return nil
}

func (w *wireConn) writeFrame(f []byte, split int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.Conn.SetWriteDeadline(time.Now().Add(fragmentWriteTimeout)); err != nil {
		return err
	}
	for len(f) > 0 {
		n := len(f)
		if split > 0 && n > split {
			n = split
		}
		if _, err := w.Conn.Write(f[:n]); err != nil {
			return err
		}
		f = f[n:]
	}
	return nil
}

// listener makes every connection the tap accepts a wireConn, over TLS when tls is set (the
// handshake happens on the connection's first read or write).
type listener struct {
	net.Listener
	tls *tls.Config
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if l.tls != nil {
		c = tls.Server(c, l.tls)
	}
	return &wireConn{Conn: c}, nil
}

// dialWire dials the host, as a wireConn.
func dialWire(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &wireConn{Conn: c}, nil
}

// dialTLS dials the host over TLS, trusting the run's CA alone, as a wireConn whose writes
// go through TLS (so that fragmenting writes TLS records).
func (p *Proxy) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	conf := p.ca.client()
	conf.ServerName = host
	c := tls.Client(raw, conf)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("tls handshake with the host: %w", err)
	}
	return &wireConn{Conn: c}, nil
}

// fragment is how a direction's messages travel: as WebSocket frames of at most size bytes of
// payload (the first carries the message's opcode, the rest are continuation frames), each
// frame in transport writes of at most split bytes. Zero size: as the sender wrote them.
type fragment struct{ size, split int }

// frames cuts a message into WebSocket frames of at most size payload bytes, masked when
// the tap writes as the client (RFC 6455 5.2, 5.3): the first frame has the message's
// opcode, the others opcode 0, the last FIN.
func frames(mt int, data []byte, size int, masked bool) [][]byte {
	var out [][]byte
	for first := true; first || len(data) > 0; first = false {
		n := min(size, len(data))
		op := byte(0)
		if first {
			op = byte(mt)
		}
		if n == len(data) {
			op |= 0x80 // FIN
		}
		out = append(out, frame(op, data[:n], masked))
		data = data[n:]
	}
	return out
}

func frame(b0 byte, payload []byte, masked bool) []byte {
	f := []byte{b0, 0}
	switch n := len(payload); {
	case n < 126:
		f[1] = byte(n)
	case n <= 0xFFFF:
		f[1] = 126
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f[1] = 127
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	if !masked {
		return append(f, payload...)
	}
	f[1] |= 0x80
	var key [4]byte
	_, _ = rand.Read(key[:]) // never fails (crypto/rand)
	f = append(f, key[:]...)
	start := len(f)
	f = append(f, payload...)
	for i := range payload {
		f[start+i] ^= key[i%4]
	}
	return f
}

// writeFragmented writes a message to dst as fragment says.
func writeFragmented(dstWire wire, mt int, data []byte, fr fragment, masked bool) error {
	if s, ok := dstWire.(*stream); ok {
		return s.writeFragmented(data, fr)
	}
	dst := dstWire.(*websocket.Conn)
	w, ok := dst.NetConn().(*wireConn)
	if !ok { // not a connection of the tap's: as gorilla writes it
		return dst.WriteMessage(mt, data)
	}
	return w.writeFrames(frames(mt, data, fr.size, masked), fr.split)
}
