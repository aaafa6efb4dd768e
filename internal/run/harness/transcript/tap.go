package transcript

import "github.com/skewtest/skewtest/internal/run/harness/tap"

// FrameOf is what the tap saw of a frame, as a transcript keeps it: every field the tap
// reports, with Index and Step left to the caller (they are the transcript's). Data and
// Original are kept as the tap gave them; a caller whose tap reuses buffers copies them.
func FrameOf(f tap.Frame) Frame {
	return Frame{Conn: f.Conn, Path: f.Path, Dir: string(f.Dir), Binary: f.Binary, Data: f.Data, At: f.At,
		Control: f.Control, Original: f.Original, Rewrite: f.Rewrite}
}

// ConnEventOf is a tap's connection event as a transcript keeps it, with Step left to the
// caller.
func ConnEventOf(e tap.ConnEvent) ConnEvent {
	return ConnEvent{Conn: e.Conn, Path: e.Path, Event: e.Event, Detail: e.Detail, At: e.At}
}
