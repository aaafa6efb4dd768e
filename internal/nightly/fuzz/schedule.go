package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Schedule is how a case's traffic is timed: whether its steps settle, and how late the
// tap makes each direction's messages, from the first message on (the handshake
// included). It is part of the case: written into its journey (a settle none header, tap
// delay lines at the start of its first step), so a replay, a shrunk case and a repro
// line run it again. The zero Schedule is the campaign's own timing.
type Schedule struct {
	// Settle is the journey's settle line: "" leaves the campaign's own timing; SettleZero
	// turns the quiet period off (each step still waits for its replies and for what the
	// references owe); SettleNone ends each step but the last as soon as its commands
	// returned: what a step caused may still be on its way when the next one acts.
	Settle string
	// Lag is each direction's delay, by index: ClientToHost (0) and HostToClient (1).
	Lag [2]Lag
}

// Lag is how late the tap makes a direction's messages: D, plus up to Jitter more,
// each message's share fixed by its place on its connection. Different connections get
// different shares, so a reply on one may overtake a push on another; on one connection
// no message overtakes another.
type Lag struct{ D, Jitter time.Duration }

// Schedule settle lines.
const (
	SettleZero = "0"
	SettleNone = "none"
)

// directions name Lag's indexes as the journey's tap lines write them.
var directions = [2]string{contract.ClientToHost, contract.HostToClient}

// lags are the delays a perturbed direction draws from: a little late, late with jitter
// as long, and late enough for a whole round trip to overtake.
var lags = []Lag{{D: time.Millisecond}, {D: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}, {D: 25 * time.Millisecond, Jitter: 25 * time.Millisecond}}

// scheduleStream keeps a case's schedule draw apart from its events' and values': the
// same seed and index draw the same events with or without schedules.
const scheduleStream = 0x5c4ed01e

// DrawSchedule draws case index's schedule from the campaign's seed alone: half of the
// cases keep the campaign's timing; the others end steps without settling (SettleNone),
// delay a direction, or both.
func DrawSchedule(seed int64, index int) Schedule {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(index)^scheduleStream))
	var s Schedule
	if r.IntN(2) == 0 {
		return s
	}
	if r.IntN(3) != 0 {
		s.Settle = SettleNone
	}
	for i := range s.Lag {
		if k := r.IntN(len(lags) + 1); k > 0 {
			s.Lag[i] = lags[k-1]
		}
	}
	if s.Zero() {
		s.Settle = SettleNone
	}
	return s
}

// Zero reports whether s is the campaign's own timing.
func (s Schedule) Zero() bool { return s == Schedule{} }

// String says the schedule in a few words: "settle none, H>C 25ms±25ms", or "settled".
func (s Schedule) String() string {
	var parts []string
	if s.Settle != "" {
		parts = append(parts, "settle "+s.Settle)
	}
	for i, l := range s.Lag {
		if l == (Lag{}) {
			continue
		}
		w := directions[i] + " " + l.D.String()
		if l.Jitter > 0 {
			w += "±" + l.Jitter.String()
		}
		parts = append(parts, w)
	}
	if len(parts) == 0 {
		return "settled"
	}
	return strings.Join(parts, ", ")
}

// header is the schedule's journey header lines.
func (s Schedule) header() []string {
	if s.Zero() {
		return nil
	}
	out := []string{"# schedule: " + s.String()}
	if s.Settle != "" {
		out = append(out, "settle "+s.Settle)
	}
	return out
}

// lagLines are the tap lines that change the delays in effect from was to is: a direction
// that is no longer delayed gets tap delay DIR 0.
func lagLines(was, is [2]Lag) []string {
	var out []string
	for i, l := range is {
		if l == was[i] {
			continue
		}
		line := fmt.Sprintf("tap delay %s %s", directions[i], l.D)
		if l.Jitter > 0 {
			line += " jitter=" + l.Jitter.String()
		}
		out = append(out, line)
	}
	return out
}

// tapLines are the schedule's commands at the start of the case's first step.
func (s Schedule) tapLines() []string {
	var out []string
	for i, l := range s.Lag {
		if l == (Lag{}) {
			continue
		}
		line := fmt.Sprintf("tap delay %s %s", directions[i], l.D)
		if l.Jitter > 0 {
			line += " jitter=" + l.Jitter.String()
		}
		out = append(out, line)
	}
	return out
}

// Lateness is how late the case's schedule makes its traffic, at the delays' means (D plus
// half the jitter, both directions), counted once for each of its events (an event is a
// step or a few, each waiting for what it caused to come through the tap): a measure to
// order cases by, not a prediction of their time. A case drawn without delays is 0.
func (c *Case) Lateness() time.Duration {
	var d time.Duration
	for _, e := range c.Events {
		lag := c.Schedule.Lag
		if e.Lagged {
			lag = e.Lag
		}
		for _, l := range lag {
			d += l.D + l.Jitter/2
		}
	}
	return d
}
