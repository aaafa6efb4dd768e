package tap_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/harness/tap"
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
