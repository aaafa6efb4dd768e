package campaign

// batches says how many cases each batch of a campaign draws. A campaign reports what a
// batch found when the batch ends, so under a budget the batches ramp: the first is
// small, each next one twice the last, up to the full batch (-j packs of the largest
// pack), and a batch of the ramp runs its packs part-filled rather than hold cases for
// the next. The sizes follow from the configuration alone, never from timing: the same
// configuration gives the same batches, and since a case is drawn from its number alone,
// the same seed gives the same cases however they are batched.
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
