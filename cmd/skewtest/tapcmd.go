package main

import (
	"context"
	"io"
	"time"

	"github.com/skewtest/skewtest/recording"
)

// cmdTap records a product's own traffic through the wire tap, with no drivers
// (recording.Run).
func cmdTap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		c   recording.Config
		dur time.Duration
	)
	fs := newFlagSet("tap", stderr, "tap --listen ADDR --upstream ws://HOST:PORT --record DIR [--label L] [--for D]")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:0", "the address the tap listens on: point the product's clients or tests here")
	fs.StringVar(&c.Upstream, "upstream", "", "the product's host, ws://HOST:PORT")
	fs.StringVar(&c.Dir, "record", "", "where the transcript goes (DIR/transcript.json.gz)")
	fs.StringVar(&c.Label, "label", "", "the recorded build's label in the transcript (default: recorded)")
	fs.DurationVar(&dur, "for", 0, "stop after this long (default: at Ctrl-C)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if c.Upstream == "" {
		return usagef("tap: give --upstream ws://HOST:PORT, the product's host")
	}
	if dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, dur)
		defer cancel()
	}
	c.Stdout = stdout
	_, err := recording.Run(ctx, c)
	return err
}
