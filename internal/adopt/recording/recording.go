// Package recording records a product's own traffic through skewtest's wire tap, with no
// drivers and no journeys (skewtest tap): point the product's integration tests, or a
// client by hand, at the tap's address instead of the host's, and every WebSocket message
// both ways is kept as a transcript. skewtest contract infer drafts a contract from it,
// skewtest contract decode reads it with one, and skewtest replay-style questions can be
// asked of it.
package recording

import (
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Config is one recording.
type Config struct {
	// Listen is the tap's address ("127.0.0.1:9000"); Upstream the product's host
	// ("ws://127.0.0.1:8080", or "tcp://127.0.0.1:1883" for a byte stream).
	Listen, Upstream string
	// Stream says how a tcp:// upstream's bytes are cut into messages and filed (its
	// framing, the path to file them under, text or binary).
	Stream tap.Stream
	// Contract, for the packets framing, says where packets end: its channel that serves
	// Stream.Path, or its only channel (whose first path then files the connections).
	Contract *contract.Contract
	// Dir receives the transcript (transcript.File); it is created if need be.
	Dir string
	// Label names the recorded build in the transcript (default "recorded").
	Label string
	// Ready, when set, is called with the tap's URL once it listens.
	Ready func(url string)
	// Stdout gets a line per connection opened or closed. Nil discards.
	Stdout io.Writer
}

// Run taps until ctx is done (Ctrl-C, or a deadline), then writes what it saw to
// c.Dir/transcript.json.gz and returns it. Stopping is the normal end: it is no error.
func Run(ctx context.Context, c Config) (*transcript.Transcript, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Label == "" {
		c.Label = "recorded"
	}
	if c.Dir == "" {
		return nil, usage.Errorf("tap: give Dir, where the transcript goes")
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	rec := &recorder{t: &transcript.Transcript{Host: transcript.Build{Label: c.Label, Revision: "recorded"},
		Client: transcript.Build{Label: c.Label, Revision: "recorded"}, Journey: "recorded"}, out: c.Stdout}
	if strings.HasPrefix(c.Upstream, "wss://") || strings.HasPrefix(c.Upstream, "tls://") {
		return nil, usage.Errorf("tap: %s: a standalone tap cannot end the product's TLS (its clients would have to trust skewtest's throwaway authority, which only a run hands to drivers): record over ws:// or tcp://", c.Upstream)
	}
	if err := streamOf(&c); err != nil {
		return nil, usage.Errorf("tap: %w", err)
	}
	if c.Stream.Path == "" {
		c.Stream.Path = "/"
	}
	p, err := tap.Start(context.WithoutCancel(ctx), c.Upstream, rec, tap.ListenOn(c.Listen), tap.WithStream(c.Stream))
	if err != nil {
		return nil, usage.Errorf("%w", err)
	}
	rec.say("tap: listening at %s, forwarding to %s; stop with Ctrl-C\n", p.URL(), c.Upstream)
	if c.Ready != nil {
		c.Ready(p.URL())
	}
	<-ctx.Done()
	if err := p.Close(); err != nil {
		rec.say("tap: %v\n", err)
	}
	t := rec.done()
	path := filepath.Join(c.Dir, transcript.File)
	if err := transcript.Write(path, t, gzip.BestSpeed); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.Stdout, "tap: %s on %s recorded in %s\n", results.Plural(len(t.Frames), "message"), results.Plural(rec.conns, "connection"), path)
	return t, nil
}

// streamOf checks how c cuts a byte stream, and for the packets framing gives it where its
// contract's channel says each packet ends.
func streamOf(c *Config) error {
	s := &c.Stream
	var le *framing.LengthError
	if err := s.Length.Check(cmp.Or(s.Framing, framing.Raw)); errors.As(err, &le) {
		return usage.Optionf("Stream.Length."+le.Field, "%w", err)
	}
	if s.Framing != tap.FramingPackets {
		return nil
	}
	if c.Contract == nil {
		return usage.Optionf("Stream.Framing", "packets cuts where a contract's stream codec says each packet ends: give that contract, or cut by a length framing (u16le, u32le, u16be, u32be: at an offset of a fixed header too; varint)")
	}
	var ch *contract.Channel
	switch {
	case s.Path != "":
		if ch = c.Contract.Channel(s.Path); ch == nil {
			return usage.Optionf("Stream.Path", "%s: no channel of the contract serves it", s.Path)
		}
	case len(c.Contract.Channels) == 1:
		ch = &c.Contract.Channels[0]
		if len(ch.Paths) > 0 {
			s.Path = ch.Paths[0]
		}
	default:
		return usage.Optionf("Stream.Path", "is needed: the contract has %d channels, and the path of one says which the stream carries", len(c.Contract.Channels))
	}
	if !s.Text && ch.Text != nil && ch.Binary == nil {
		s.Text = true
	}
	binary := !s.Text
	if _, err := ch.PacketEnd(binary, nil); errors.Is(err, contract.ErrNoPacketEnd) {
		return usage.Optionf("Stream.Framing", "packets: the contract's channel %s cannot say where a packet ends: %w", ch.Name, err)
	}
	s.PacketEnd = func(_ tap.Direction, buf []byte) (int, error) { return ch.PacketEnd(binary, buf) }
	return nil
}

// recorder keeps what the tap saw as a transcript.
type recorder struct {
	mu    sync.Mutex
	t     *transcript.Transcript
	out   io.Writer
	conns int
}

func (r *recorder) Frame(f tap.Frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := transcript.FrameOf(f)
	fr.Index, fr.Step, fr.Data = len(r.t.Frames)+1, "recorded", append([]byte(nil), f.Data...)
	r.t.Frames = append(r.t.Frames, fr)
}

func (r *recorder) Conn(e tap.ConnEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Event == tap.EventOpen {
		r.conns++
	}
	ce := transcript.ConnEventOf(e)
	ce.Step = "recorded"
	r.t.Conns = append(r.t.Conns, ce)
	detail := ""
	if e.Detail != "" {
		detail = ": " + e.Detail
	}
	fmt.Fprintf(r.out, "tap: connection %d %s %s%s\n", e.Conn, e.Event, e.Path, detail)
}

// say writes a line, never at once with the tap's own.
func (r *recorder) say(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.out, format, a...)
}

func (r *recorder) done() *transcript.Transcript {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.t
}
