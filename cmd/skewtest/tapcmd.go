package main

import (
	"context"
	"io"
	"time"

	"github.com/skewtest/skewtest/internal/adopt/recording"
)

// cmdTap records a product's own traffic through the wire tap, with no drivers
// (recording.Run).
func cmdTap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c           recording.Config
		dur         time.Duration
		contractArg string
	)
	fs := newFlagSet("tap", stderr, "tap --listen ADDR --upstream ws://HOST:PORT|tcp://HOST:PORT --record DIR [--framing F [--length-offset N] [--header-length N] [--length-includes-header] | --framing packets --contract C] [--path P] [--text] [--label L] [--for D]")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:0", "the address the tap listens on: point the product's clients or tests here")
	fs.StringVar(&c.Upstream, "upstream", "", "the product's host, ws://HOST:PORT, or tcp://HOST:PORT for a byte stream")
	fs.StringVar(&c.Stream.Framing, "framing", "", "tcp:// only: how to cut the stream into messages: raw (default), lines, u16be, u32be, u16le, u32le, varint, or packets (with --contract)")
	fs.IntVar(&c.Stream.Length.Offset, "length-offset", 0, "u16be, u32be, u16le, u32le: the byte of a fixed header the length starts at (default 0: a prefix); the message is then recorded whole")
	fs.IntVar(&c.Stream.Length.Header, "header-length", 0, "u16be, u32be, u16le, u32le: the fixed header's size in bytes, the length included (default: it ends with the length); the payload follows it")
	fs.BoolVar(&c.Stream.Length.IncludesHeader, "length-includes-header", false, "u16be, u32be, u16le, u32le: the length counts the header too (default: only the payload after it)")
	fs.StringVar(&contractArg, "contract", "", "--framing packets: the contract whose stream codec says where packets end (a file, or REF or REF:PATH of the repository here); its channel serving --path, or its only one")
	fs.StringVar(&c.Stream.Path, "path", "", "tcp:// only: the path to file the connections under, the contract channel's (default /)")
	fs.BoolVar(&c.Stream.Text, "text", false, "tcp:// only: record the messages as text (default binary)")
	fs.StringVar(&c.Dir, "record", "", "where the transcript goes (DIR/transcript.json.gz)")
	fs.StringVar(&c.Label, "label", "", "the recorded build's label in the transcript (default: recorded)")
	fs.DurationVar(&dur, "for", 0, "stop after this long (default: at Ctrl-C)")
	if _, err := parse(fs, args, exactly(0)); err != nil {
		return err
	}
	switch {
	case c.Upstream == "":
		return usagef("tap: give --upstream ws://HOST:PORT (or tcp://HOST:PORT), the product's host")
	case c.Dir == "":
		return usagef("tap: give --record DIR, where the transcript goes")
	}
	if dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dur)
		defer cancel()
	}
	if contractArg != "" {
		ct, err := (&contractSource{repo: "."}).load(contractArg)
		if err != nil {
			return err
		}
		c.Contract = ct
	}
	c.Stdout = stdout
	_, err := recording.Run(ctx, c)
	return err
}
