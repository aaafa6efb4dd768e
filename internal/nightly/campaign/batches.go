package campaign

import "time"

// batches says how many cases each batch of a campaign draws. A campaign reports what a
// batch found when the batch ends, so under a budget the batches ramp: the first is
// small, each next one twice the last, up to the full batch (-j packs of the largest
// pack), and a batch of the ramp runs its packs part-filled rather than hold cases for
// the next. The sizes follow from the configuration alone, never from timing (but for a
// budget's last batches, cut to what ends before it: lastBatch): the same configuration
// gives the same batches, and since a case is drawn from its number alone, the same seed
// gives the same cases however they are batched.
type batches struct {
	// full is the batch size once ramped; next the next batch's size while it ramps (0:
	// no ramp, every batch is full).
	full, next int
}

// newBatches makes the batch plan: given (--batch), every batch has that size; else full,
// ramping from start when ramp is set (a budgeted campaign).
func newBatches(given, full, start int, ramp bool) *batches {
	switch {
	case given > 0:
		return &batches{full: given}
	case ramp && start < full:
		return &batches{full: full, next: max(1, start)}
	}
	return &batches{full: full}
}

// take returns the next batch's size, and whether its packs run part-filled (a batch of
// the ramp: its cases are not held for the next batch).
func (b *batches) take() (n int, flush bool) {
	if b.next == 0 {
		return b.full, false
	}
	n = b.next
	if b.next *= 2; b.next >= b.full {
		b.next = 0
	}
	return n, true
}

// rampStart is the first batch of a ramp: one case for every four pairings the campaign
// runs at once (a case is several pairings: a skew pair both ways, references, future
// peers), at least 2.
func rampStart(parallel int) int { return max(2, parallel/4) }

// lastBatch is a budgeted batch of n cases cut to what its stream finishes before the
// budget ends at the pace it has kept (done cases in elapsed), after the inFlight cases of
// the batch before: halved until it fits, not below least. A case the deadline cuts is
// drawn, its pairings started and their work lost, and reported as not run (two full
// batches of the light stream were a quarter of a 2-minute campaign's cases). Before the
// stream's first batch ends there is no pace: n as it is. What runs under a budget depends
// on the machine's pace anyway; since a case is drawn from its slot alone, the cases stay
// the seed's, only fewer of them are cut.
func lastBatch(n, least, inFlight, done int, elapsed, left time.Duration) int {
	if done == 0 || elapsed <= 0 {
		return n
	}
	can := float64(done) / elapsed.Seconds() * left.Seconds()
	m := n
	for m > least && float64(inFlight+m) > can {
		m /= 2
	}
	return max(m, min(least, n))
}
