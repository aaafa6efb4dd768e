package chunker

import (
	"encoding/json"

	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// Mode is how transformed runs are framed.
type Mode int

const (
	// Span frames a transformed run as one OutputSpan.
	Span Mode = iota
	// DowngradeToText frames a transformed run as plain Output with the delayed final seq.
	// It is lossless only for a peer that ignores Output seq.
	DowngradeToText
)

func (m Mode) String() string {
	if m == DowngradeToText {
		return "downgrade-to-text"
	}
	return "span"
}

// Options says how to frame an emission.
type Options struct {
	TransformedRuns Mode
	// KeepEmptyTransformed makes downgrade mode send an empty transformed run as one zero-byte
	// Output frame, as the code path before the transformedRuns option did (v1.4.173 to
	// v1.4.189). Without it an empty transformed run sends nothing in downgrade mode.
	KeepEmptyTransformed bool
	// CutCodePoints is a negative control (release.Features.ChunkCutsCodePoints): where a
	// multi-byte code point straddles the chunk cap, the chunk ends before it but the next
	// one starts at the cap, so the code point's head is lost.
	CutCodePoints bool
}

// Meta describes one emission.
type Meta struct {
	// Seq is the raw high-water mark after the emission.
	Seq uint64
	// RawLength is how many raw bytes the emission consumed.
	RawLength uint64
	// Transformed marks a run whose display bytes are not its raw bytes.
	Transformed bool
}

// Range is the raw source range a frame maps to.
type Range struct {
	Start, End  uint64
	Transformed bool
}

// Frame is one frame of an emission.
type Frame struct {
	Opcode  wire.Opcode // OpOutput or OpOutputSpan
	Payload []byte      // Output text, or OutputSpan JSON
	// Seq is the frame's seq, 0 when it carries none.
	Seq uint64
	// DisplayLength is how many display bytes the frame carries.
	DisplayLength int
	// Source is the raw range the frame maps to, nil when it cannot be mapped (the
	// non-final frames of a delayed-final-seq run, and its final frame when it has more
	// than one).
	Source *Range
}

// Frames frames one emission of display bytes data.
func Frames(data []byte, meta Meta, opts Options) []Frame {
	mappable := !meta.Transformed && meta.RawLength == uint64(len(data)) && meta.Seq >= meta.RawLength
	if !mappable && opts.TransformedRuns == Span {
		return []Frame{span(data, meta)}
	}
	if mappable {
		return mapped(data, meta, opts)
	}
	if len(data) == 0 && !opts.KeepEmptyTransformed {
		// The ledger refuses zero-byte admissions; an empty frame would block the stream.
		return nil
	}
	return delayed(data, meta, opts)
}

func span(data []byte, meta Meta) Frame {
	p, _ := json.Marshal(wire.OutputSpan{Data: string(data), RawLength: meta.RawLength, Transformed: true})
	return Frame{
		Opcode:        wire.OpOutputSpan,
		Payload:       p,
		Seq:           meta.Seq,
		DisplayLength: len(data),
		Source:        sourceOf(meta),
	}
}

// mapped frames an emission whose every byte maps to one raw byte: each chunk carries its
// own seq and source range.
func mapped(data []byte, meta Meta, opts Options) []Frame {
	base := meta.Seq - meta.RawLength
	pieces := opts.Split(data, MaxFrameBytes)
	out := make([]Frame, 0, len(pieces))
	end := 0
	for _, p := range pieces {
		start := end
		end += len(p)
		out = append(out, Frame{
			Opcode:        wire.OpOutput,
			Payload:       p,
			Seq:           base + uint64(end),
			DisplayLength: len(p),
			Source:        &Range{Start: base + uint64(start), End: base + uint64(end)},
		})
	}
	return out
}

// delayed frames an emission whose seq cannot be mapped to chunk offsets: only the last
// frame carries seq. A run that fits one frame still maps as a whole.
func delayed(data []byte, meta Meta, opts Options) []Frame {
	pieces := opts.Split(data, MaxFrameBytes)
	out := make([]Frame, 0, len(pieces))
	for _, p := range pieces {
		out = append(out, Frame{Opcode: wire.OpOutput, Payload: p, DisplayLength: len(p)})
	}
	last := &out[len(out)-1]
	last.Seq = meta.Seq
	if len(out) == 1 {
		last.Source = sourceOf(meta)
	}
	return out
}

func sourceOf(meta Meta) *Range {
	if meta.Seq < meta.RawLength {
		return nil
	}
	return &Range{Start: meta.Seq - meta.RawLength, End: meta.Seq, Transformed: meta.Transformed}
}
