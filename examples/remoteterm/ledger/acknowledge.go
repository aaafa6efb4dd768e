package ledger

// Outcome is what an acknowledgement did.
type Outcome int

// Only Accepted settles entries and frees credit.
const (
	Accepted Outcome = iota
	Duplicate
	Invalid
	StaleGeneration
	Excessive
)

func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Duplicate:
		return "duplicate"
	case Invalid:
		return "invalid"
	case StaleGeneration:
		return "stale-generation"
	case Excessive:
		return "excessive"
	}
	return "unknown"
}

// Acknowledge settles every entry that ends at or before ackedEndByte. The position must be
// in generation gen, beyond what was already acknowledged, within what was committed, and
// on an entry boundary.
func (l *Ledger) Acknowledge(gen string, ackedEndByte uint64) Outcome {
	if l.positionMask != 0 {
		ackedEndByte &= l.positionMask
	}
	switch {
	case gen != l.generation:
		return StaleGeneration
	case ackedEndByte <= l.acked:
		return Duplicate
	case ackedEndByte > l.committed:
		return Excessive
	}
	settled := 0
	for settled < len(l.entries) && l.entries[settled].EndByte < ackedEndByte {
		settled++
	}
	if l.entries[settled].EndByte != ackedEndByte {
		return Invalid
	}
	l.entries = append(l.entries[:0], l.entries[settled+1:]...)
	l.acked = ackedEndByte
	return Accepted
}

// Entries returns the committed, unacknowledged entries, oldest first.
func (l *Ledger) Entries() []Entry {
	return append([]Entry(nil), l.entries...)
}
