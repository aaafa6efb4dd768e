package harness

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skewtest/skewtest/results"
)

// EventKind says what a PairingEvent tells.
type EventKind int

// The kinds of progress a plan's execution tells, in the order a pairing goes through them.
const (
	PairingStarted EventKind = iota // a pairing got its slot and starts
	PairingEnded                    // a pairing ended: Status, Elapsed, Ended of Total
	FutureEnded                     // a pairing's future-peer pass ended: Status, Elapsed
	PairingsNotRun                  // the plan ended with NotRun of Total pairings not run, and Why
)

// PairingEvent is one step of a plan's progress, for ExecuteOptions.Events. Execute emits
// events; a renderer (PrintProgress, a campaign's, a test's) decides what to show.
type PairingEvent struct {
	Kind    EventKind
	Pairing Pairing
	Status  results.Status
	Elapsed time.Duration
	// Ended and Total: PairingEnded is the Ended-th pairing to end of the plan's Total.
	Ended, Total int
	// NotRun and Why: PairingsNotRun (Why is "interrupted", or why the run stopped).
	NotRun int
	Why    string
}

// String is the event's progress line, as skewtest prints it.
func (e PairingEvent) String() string {
	switch e.Kind {
	case PairingStarted:
		return fmt.Sprintf("[start] %s", e.Pairing.Label())
	case PairingEnded:
		return fmt.Sprintf("[%d/%d] %-5s %s (%s)", e.Ended, e.Total, e.Status, e.Pairing.Label(), e.Elapsed.Round(time.Millisecond))
	case FutureEnded:
		return fmt.Sprintf("[future] %-5s %s (%s)", e.Status, e.Pairing.Label(), e.Elapsed.Round(time.Millisecond))
	case PairingsNotRun:
		return fmt.Sprintf("%s: %d of %d pairings not run", e.Why, e.NotRun, e.Total)
	}
	return fmt.Sprintf("event %d", int(e.Kind))
}

// PrintProgress is the renderer of skewtest's progress lines: one per event, written whole
// to w (nil discards), the starts only when verbose. It is safe for concurrent use.
func PrintProgress(w io.Writer, verbose bool) func(PairingEvent) {
	if w == nil {
		return func(PairingEvent) {}
	}
	var mu sync.Mutex
	return func(e PairingEvent) {
		if e.Kind == PairingStarted && !verbose {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, e.String())
	}
}
