package session

import (
	"encoding/json"
	"slices"
)

// Round-progress phases, in the order a round moves through them. composed and failed are
// terminal from any in-flight phase; dispatched starts a new round.
const (
	PhaseDispatched = "dispatched"
	PhasePrepared   = "prepared"
	PhaseWorking    = "working"
	PhaseDrafting   = "drafting"
	PhaseReport     = "report"
	PhaseComposed   = "composed"
	PhaseFailed     = "failed"
)

// ProgressEventSchema is the schema of roundProgress.event.
func ProgressEventSchema() Schema {
	return Schema{"phase": {Type: KindString, Required: true}}
}

func phaseRank(phase string) (rank int, terminal, known bool) {
	switch phase {
	case PhaseDispatched:
		return 0, false, true
	case PhasePrepared:
		return 1, false, true
	case PhaseWorking:
		return 2, false, true
	case PhaseDrafting:
		return 3, false, true
	case PhaseReport:
		return 4, false, true
	case PhaseComposed, PhaseFailed:
		return 5, true, true
	}
	return 0, false, false
}

// RoundState is the fold of one review's progress log: the round now running and how far
// it got.
type RoundState struct {
	// Round counts the rounds the log has started (dispatched events); 0 before any.
	Round    int    `json:"round"`
	Phase    string `json:"phase"`
	Terminal bool   `json:"terminal"`
	// Phases are the phases folded into the current round, in fold order.
	Phases []string `json:"phases"`
	// LastSeq is the highest seq merged, 0 when the events carry none.
	LastSeq uint64 `json:"lastSeq,omitempty"`
}

type loggedEvent struct {
	seq   uint64
	phase string
}

// RoundLog merges one review's roundProgress events. Events with a seq are placed by seq
// (a duplicate seq restates what the log holds and is dropped), so an event that arrives
// late or twice cannot reorder the log. Events without a seq, from a daemon that predates
// it, fold in arrival order after every sequenced one.
type RoundLog struct {
	sequenced   []loggedEvent // sorted by seq
	unsequenced []loggedEvent // arrival order
}

// Add merges one event. It reports false for a duplicate seq, which changes nothing.
func (l *RoundLog) Add(seq *uint64, event json.RawMessage) bool {
	var e struct {
		Phase string `json:"phase"`
	}
	_ = json.Unmarshal(event, &e) // tolerant: an event without a known phase folds as nothing
	if seq == nil {
		// COMPAT(round-progress-unsequenced): a daemon before v1.4.157 sends roundProgress
		// without seq; its events fold in arrival order.
		// Remove when no supported host predates v1.4.157.
		l.unsequenced = append(l.unsequenced, loggedEvent{phase: e.Phase})
		return true
	}
	i, found := slices.BinarySearchFunc(l.sequenced, *seq, func(le loggedEvent, s uint64) int {
		switch {
		case le.seq < s:
			return -1
		case le.seq > s:
			return 1
		}
		return 0
	})
	if found {
		return false
	}
	l.sequenced = slices.Insert(l.sequenced, i, loggedEvent{seq: *seq, phase: e.Phase})
	return true
}

// Len is how many events the log holds.
func (l *RoundLog) Len() int { return len(l.sequenced) + len(l.unsequenced) }

// State folds the merged log: everything before the newest dispatched belongs to a round
// that is over and is discarded; the round now running moves forward only, and composed or
// failed settle it.
func (l *RoundLog) State() RoundState {
	events := slices.Concat(l.sequenced, l.unsequenced)
	st := RoundState{Phases: []string{}}
	start := 0
	for i, e := range events {
		if e.seq > st.LastSeq {
			st.LastSeq = e.seq
		}
		if e.phase == PhaseDispatched {
			st.Round++
			start = i
		}
	}
	rank := -1
	for _, e := range events[start:] {
		r, terminal, known := phaseRank(e.phase)
		if !known || st.Terminal || r < rank || (r == rank && e.phase == st.Phase) {
			continue
		}
		rank, st.Phase, st.Terminal = r, e.phase, terminal
		st.Phases = append(st.Phases, e.phase)
	}
	return st
}
