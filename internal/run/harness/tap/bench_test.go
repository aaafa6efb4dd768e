package tap_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// BenchmarkTapThroughput sends b.N binary messages one way, as fast as
// the receiver takes them, straight to a host and through the tap.
func BenchmarkTapThroughput(b *testing.B) {
	for _, size := range []int{1 << 10, 48 << 10} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.Run("direct", func(b *testing.B) { benchThroughput(b, size, false) })
			b.Run("proxied", func(b *testing.B) { benchThroughput(b, size, true) })
		})
	}
}

func benchThroughput(b *testing.B, size int, proxied bool) {
	h := newTestHost()
	defer h.Close()
	base := h.URL
	if proxied {
		p, err := tap.Start(context.Background(), h.URL, countFrames{})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		base = p.URL()
	}
	ws, _, err := websocket.DefaultDialer.Dial(fmt.Sprintf("%s/sink?n=%d", base, b.N), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(i)
	}

	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := ws.WriteMessage(websocket.BinaryMessage, msg); err != nil {
			b.Fatal(err)
		}
	}
	if _, done, err := ws.ReadMessage(); err != nil || string(done) != "done" {
		b.Fatalf("sink: %q, %v", done, err)
	}
	b.StopTimer()
}

// countFrames is a Recorder that keeps nothing.
type countFrames struct{}

func (countFrames) Frame(tap.Frame)    {}
func (countFrames) Conn(tap.ConnEvent) {}

// BenchmarkStreamTapThroughput sends b.N u32be-framed messages one way over TCP, through
// the byte-stream tap, cut by each framing that can carry them, with and without TLS.
func BenchmarkStreamTapThroughput(b *testing.B) {
	for _, size := range []int{1 << 10, 48 << 10} {
		for _, framing := range []string{tap.FramingRaw, tap.FramingU32BE, tap.FramingPackets} {
			for _, scheme := range []string{"tcp", "tls"} {
				b.Run(fmt.Sprintf("%dKiB/%s/%s", size>>10, framing, scheme), func(b *testing.B) { benchStream(b, size, framing, scheme, false) })
			}
		}
		// The length inside an 8-byte header: each message recorded whole.
		b.Run(fmt.Sprintf("%dKiB/%s-in-header/tcp", size>>10, tap.FramingU32BE), func(b *testing.B) { benchStream(b, size, tap.FramingU32BE, "tcp", true) })
	}
}

func benchStream(b *testing.B, size int, fr, scheme string, inHeader bool) {
	ca, err := tap.NewCA(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var conf *tls.Config
	files := caFiles(ca)
	pair, err := tls.LoadX509KeyPair(files[tap.EnvTLSCert], files[tap.EnvTLSKey])
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	if scheme == "tls" {
		conf = &tls.Config{Certificates: []tls.Certificate{pair}}
		ln = tls.NewListener(ln, conf)
	}
	defer ln.Close()
	total := int64(b.N) * int64(size+4)
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		n, err := io.CopyN(io.Discard, c, total)
		if err == nil && n != total {
			err = fmt.Errorf("host got %d of %d bytes", n, total)
		}
		done <- err
	}()
	end := func(_ tap.Direction, buf []byte) (int, error) {
		if len(buf) < 4 || len(buf) < 4+int(binary.BigEndian.Uint32(buf)) {
			return 0, nil
		}
		return 4 + int(binary.BigEndian.Uint32(buf)), nil
	}
	var length framing.Length
	prefix := size // a length prefix: the payload after it
	if inHeader {
		length, prefix = framing.Length{Header: 8}, size-4 // the 4 bytes after the length are header
	}
	p, err := tap.Start(context.Background(), scheme+"://"+ln.Addr().String(), countFrames{}, tap.WithTLS(ca),
		tap.WithStream(tap.Stream{Framing: fr, PacketEnd: end, Length: length}))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	addr := strings.TrimPrefix(strings.TrimPrefix(p.URL(), "tcp://"), "tls://")
	var c net.Conn
	if scheme == "tls" {
		pool := x509.NewCertPool()
		pem, _ := os.ReadFile(files[tap.EnvTLSCA])
		pool.AppendCertsFromPEM(pem)
		c, err = tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	} else {
		c, err = net.Dial("tcp", addr)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	msg := binary.BigEndian.AppendUint32(nil, uint32(prefix))
	msg = append(msg, make([]byte, size)...)

	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(msg); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
}
