package ledger

import (
	"errors"
	"fmt"
)

// MaxRetainedBytes is how many admitted, unacknowledged encoded bytes one stream may retain.
const MaxRetainedBytes = 2 << 20

// Why Prepare refuses an admission.
var (
	ErrZeroBytes        = errors.New("zero-byte admission")
	ErrRetainedLimit    = errors.New("retained bytes over the stream limit")
	ErrAdmissionPending = errors.New("another admission is pending")
	ErrClosed           = errors.New("ledger closed")
	// ErrMappingChanged is a frame with source ranges on a ledger without them, or the
	// reverse. The stream cannot continue.
	ErrMappingChanged = errors.New("source-range mapping mode changed")
	// ErrNotContiguous is a source range that does not start where the previous one ended.
	ErrNotContiguous = errors.New("source ranges not contiguous")
)

// Fatal reports whether err means the stream cannot continue (as opposed to "not now").
func Fatal(err error) bool {
	return errors.Is(err, ErrMappingChanged) || errors.Is(err, ErrNotContiguous) || errors.Is(err, ErrClosed)
}

// SourceRange is the raw range a frame carries.
type SourceRange struct {
	Start, End  uint64
	Transformed bool
}

// Entry is one admitted frame.
type Entry struct {
	StartByte, EndByte uint64 // encoded bytes, cumulative over the generation
	DisplayLength      int
	OutputSeq          uint64
	Ranges             []SourceRange
}

type mapping int

const (
	mappingUnset mapping = iota
	mappingRanged
	mappingUnranged
)

// Ledger is one stream generation's ledger. It is not safe for concurrent use.
type Ledger struct {
	generation string
	mode       mapping
	entries    []Entry // committed, unacknowledged
	committed  uint64  // encoded end of the last committed entry
	acked      uint64
	sourceEnd  uint64 // raw end of the last committed range
	haveSource bool
	pending    *Admission
	closed     bool
	// positionMask, when not zero, is the AckLedgerWraps negative control: positions are
	// kept in a field that wide, so they wrap.
	positionMask uint64
}

// WrapPositions is a negative control (release.Features.AckLedgerWraps): the ledger keeps
// its committed and acknowledged positions in a field of bits bits. Once 1<<bits bytes are
// committed the committed position wraps below the acknowledged one, Retained underflows and
// every later admission is refused for the retained limit: the stream's output is parked
// for good. An acknowledgement past the wrap reads as a duplicate.
func (l *Ledger) WrapPositions(bits uint) {
	l.positionMask = 1<<bits - 1
}

// New returns an empty ledger for generation.
func New(generation string) *Ledger {
	return &Ledger{generation: generation}
}

// Generation is the ledger's stream generation.
func (l *Ledger) Generation() string { return l.generation }

// Retained is how many committed encoded bytes are not yet acknowledged.
func (l *Ledger) Retained() uint64 { return l.committed - l.acked }

// Close refuses every later admission.
func (l *Ledger) Close() { l.closed = true }

// Recover lets the next admission start at raw offset sourceStart (after a recovery
// snapshot skipped output), instead of where the last range ended.
func (l *Ledger) Recover(sourceStart uint64) {
	l.sourceEnd, l.haveSource = sourceStart, true
}

// Admission is a prepared, not yet committed entry.
type Admission struct {
	l     *Ledger
	entry Entry
	done  bool
}

// Prepare checks that a frame of bytes encoded bytes carrying ranges may be sent, and
// reserves it. Ranges may be empty (the frame cannot be mapped).
func (l *Ledger) Prepare(bytes int, displayLength int, outputSeq uint64, ranges []SourceRange) (*Admission, error) {
	mode := mappingUnranged
	if len(ranges) > 0 {
		mode = mappingRanged
	}
	switch {
	case l.closed:
		return nil, ErrClosed
	case bytes <= 0:
		return nil, ErrZeroBytes
	case l.pending != nil:
		return nil, ErrAdmissionPending
	case l.mode != mappingUnset && mode != l.mode:
		return nil, fmt.Errorf("%w: %d-byte frame at seq %d", ErrMappingChanged, bytes, outputSeq)
	case l.Retained()+uint64(bytes) > MaxRetainedBytes:
		return nil, ErrRetainedLimit
	}
	next, have := l.sourceEnd, l.haveSource
	for _, r := range ranges {
		if r.End < r.Start || (have && r.Start != next) {
			return nil, fmt.Errorf("%w: range %d..%d after %d", ErrNotContiguous, r.Start, r.End, next)
		}
		next, have = r.End, true
	}
	a := &Admission{l: l, entry: Entry{
		StartByte:     l.committed,
		EndByte:       l.committed + uint64(bytes),
		DisplayLength: displayLength,
		OutputSeq:     outputSeq,
		Ranges:        append([]SourceRange(nil), ranges...),
	}}
	l.pending = a
	return a, nil
}

// Commit records the admission: the frame was sent.
func (a *Admission) Commit() {
	if a.done {
		return
	}
	a.done = true
	l := a.l
	l.pending = nil
	if l.mode == mappingUnset {
		l.mode = mappingUnranged
		if len(a.entry.Ranges) > 0 {
			l.mode = mappingRanged
		}
	}
	l.entries = append(l.entries, a.entry)
	l.committed = a.entry.EndByte
	if l.positionMask != 0 {
		l.committed &= l.positionMask
	}
	if n := len(a.entry.Ranges); n > 0 {
		l.sourceEnd, l.haveSource = a.entry.Ranges[n-1].End, true
	}
}

// Rollback forgets the admission: the frame was not sent.
func (a *Admission) Rollback() {
	if a.done {
		return
	}
	a.done = true
	a.l.pending = nil
}
