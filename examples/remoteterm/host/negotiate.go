package host

import (
	"crypto/rand"
	"fmt"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// SpanPolicy is how a stream frames transformed runs.
type SpanPolicy int

const (
	// SpanNone: the release predates OutputSpan; transformed runs go out as plain Output.
	SpanNone SpanPolicy = iota
	// SpanAlways: every transformed run is one OutputSpan.
	SpanAlways
	// SpanDowngrade: transformed runs are downgraded to plain Output (delayed final seq).
	SpanDowngrade
	// SpanRebase: transformed runs are downgraded to plain Output, and every seq sent on the
	// stream counts display bytes instead of raw bytes, so a seq-tracking client that does
	// not know OutputSpan sees a consistent stream.
	SpanRebase
)

func (p SpanPolicy) String() string {
	switch p {
	case SpanAlways:
		return "span"
	case SpanDowngrade:
		return "downgrade-to-text"
	case SpanRebase:
		return "downgrade-to-text+rebase"
	}
	return "text (no OutputSpan)"
}

// AckMode is how a stream's output is acknowledged.
type AckMode int

const (
	// AckNone: no flow control; acks, if any, are ignored.
	AckNone AckMode = iota
	// AckBytes: acks carry payload byte counts that free a per-stream window.
	AckBytes
	// AckLedger: acks carry ledger positions in a stream generation.
	AckLedger
)

// Terms is what a host of one release agrees with one subscribing client.
type Terms struct {
	// Echo is the subscribed event's capabilities: the declared ones the host accepted.
	Echo  wire.Capabilities
	Spans SpanPolicy
	Acks  AckMode
	// Chunking frames this stream's transformed runs (unused with SpanRebase, which frames
	// them as untransformed display output).
	Chunking chunker.Options
}

// Negotiate decides, for a host of release f, the terms of a stream subscribed on path by a
// client that declared declared.
func Negotiate(f release.Features, path string, declared wire.Capabilities) Terms {
	t := Terms{Echo: wire.Capabilities{}}
	if declared.Has(wire.CapOutputPause) && f.OutputPause {
		t.Echo[wire.CapOutputPause] = 1
	}
	if declared.Has(wire.CapWriteUnavailable) && f.WriteUnavailable {
		t.Echo[wire.CapWriteUnavailable] = 1
	}
	if declared.Has(wire.CapTitle) && f.TitleFrame {
		t.Echo[wire.CapTitle] = 1
	}
	switch {
	case declared.Has(wire.CapAckOutputSourceRanges) && f.HostLedger:
		t.Echo[wire.CapAckOutputSourceRanges] = 1
		t.Acks = AckLedger
	case declared.Has(wire.CapAckOutput) && f.Ack:
		t.Acks = AckBytes
	}
	t.Spans = spanPolicy(f, path, declared)
	// outputSpan is echoed where it gates OutputSpan: on terminal.subscribe from v1.4.173,
	// on terminal.multiplex while the multiplex gate existed (v1.4.180 to v1.4.189).
	gated := (path == wire.PathSubscribe && f.SubscribeSpanGate) || (path == wire.PathMultiplex && f.MultiplexSpanGate)
	if gated && declared.Has(wire.CapOutputSpan) {
		t.Echo[wire.CapOutputSpan] = 1
	}
	// The working tree negotiates spans on multiplex: it echoes outputSpan whenever it will
	// frame transformed runs as OutputSpan, which it infers for a client that declared
	// outputSpan or any capability that shipped after OutputSpan (ackOutput,
	// ackOutputSourceRanges). A client it does not echo gets rebased text.
	if path == wire.PathMultiplex && f.LegacyDesktopSeqRebase && t.Spans == SpanAlways {
		t.Echo[wire.CapOutputSpan] = 1
	}
	t.Chunking = chunker.Options{TransformedRuns: chunker.Span}
	if t.Spans != SpanAlways {
		t.Chunking = chunker.Options{
			TransformedRuns:      chunker.DowngradeToText,
			KeepEmptyTransformed: !f.TransformedRunsOption,
		}
	}
	t.Chunking.CutCodePoints = f.ChunkCutsCodePoints
	return t
}

func spanPolicy(f release.Features, path string, declared wire.Capabilities) SpanPolicy {
	if !f.OutputSpan {
		return SpanNone
	}
	if path == wire.PathSubscribe {
		// COMPAT(subscribe-span-gate): mobile clients read Output only and drop OutputSpan,
		// so terminal.subscribe downgrades transformed runs to text for a client that does
		// not declare outputSpan. Remove when no supported client predates v1.5.0.
		// Turn off: REMOTETERM_FEATURES={"subscribeSpanGate":false}
		if f.SubscribeSpanGate && !declared.Has(wire.CapOutputSpan) {
			return SpanDowngrade
		}
		return SpanAlways
	}
	if f.LegacyDesktopSeqRebase && !declared.Has(wire.CapOutputSpan) &&
		!declared.Has(wire.CapAckOutput) && !declared.Has(wire.CapAckOutputSourceRanges) {
		return SpanRebase
	}
	if f.MultiplexSpanGate && !declared.Has(wire.CapOutputSpan) {
		return SpanDowngrade
	}
	return SpanAlways
}

// newGeneration returns a random stream generation (a UUID v4).
func newGeneration() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
