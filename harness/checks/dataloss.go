package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// DataLoss reports input that did not reach the process byte-exact, and rendered output or
// snapshots that differ from what the process produced.
func DataLoss(in *Input) []results.Finding {
	t := in.Transcript
	var out []results.Finding

	// Input: what the journey typed, against what reached the process.
	var sent, arrived []byte
	sentStep := ""
	for _, a := range t.Actions {
		if a.Role == transcript.Client && a.Name == "input" && a.OK {
			sent = append(sent, Bytes(a.Args, "bytes")...)
			if sentStep == "" {
				sentStep = a.Step
			}
		}
	}
	for _, o := range t.Observed(transcript.Host, "input") {
		arrived = append(arrived, Bytes(o.Data, "bytes")...)
	}
	if !bytes.Equal(sent, arrived) {
		out = append(out, results.Finding{
			Kind:      results.DataLoss,
			Step:      divergingStep(t, sentStep),
			Direction: "C>H",
			Message:   fmt.Sprintf("input at the process differs from what the client typed (%d bytes typed, %d arrived)", len(sent), len(arrived)),
			Detail:    "typed:   " + strconv.Quote(string(sent)) + "\narrived: " + strconv.Quote(string(arrived)),
		})
	}

	// Output: the client's screen after its last render, against everything the process wrote.
	var produced []byte
	for _, o := range t.Observed(transcript.Host, "pty-output") {
		produced = append(produced, Bytes(o.Data, "bytes")...)
	}
	var last *transcript.Observation
	for i := range t.Observations {
		o := &t.Observations[i]
		if o.Role == transcript.Client && (o.What == "rendered-output" || o.What == "rendered-snapshot") {
			last = o
		}
	}
	// A client that never rendered (a session journey, or one that stalled before its first
	// snapshot, which the stall reports) has no screen to compare.
	if len(produced) > 0 && last != nil {
		screen, step := Bytes(last.Data, "screen"), divergingStep(t, last.Step)
		if !bytes.Equal(screen, produced) {
			out = append(out, results.Finding{
				Kind:      results.DataLoss,
				Step:      step,
				Direction: "H>C",
				Message:   fmt.Sprintf("the client's screen differs from what the process wrote (%d bytes written, %d on screen)", len(produced), len(screen)),
				Detail:    firstDifference(produced, screen),
			})
		}
	}

	// Snapshots: each snapshot the host serialized must arrive intact, in order.
	hostSnaps := t.Observed(transcript.Host, "snapshot-sent")
	clientSnaps := t.Observed(transcript.Client, "rendered-snapshot")
	for i := 0; i < len(hostSnaps) && i < len(clientSnaps); i++ {
		a, b := Bytes(hostSnaps[i].Data, "bytes"), Bytes(clientSnaps[i].Data, "bytes")
		if !bytes.Equal(a, b) {
			out = append(out, results.Finding{
				Kind:      results.DataLoss,
				Step:      clientSnaps[i].Step,
				Direction: "H>C",
				Message:   fmt.Sprintf("snapshot %d rendered by the client differs from the one the host serialized", i+1),
				Detail:    firstDifference(a, b),
			})
		}
	}
	return out
}

func divergingStep(t *transcript.Transcript, fallback string) string {
	if t.Stall != nil {
		return t.Stall.Step
	}
	return fallback
}

// Bytes reads a base64 []byte field of a JSON object (the driver protocol's encoding of exact
// bytes), or nil.
func Bytes(raw json.RawMessage, key string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var b []byte
	if json.Unmarshal(m[key], &b) != nil {
		return nil
	}
	return b
}

func firstDifference(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-24)
	clip := func(b []byte) string {
		hi := min(len(b), i+40)
		if lo > len(b) {
			return `""`
		}
		return strconv.Quote(string(b[lo:hi]))
	}
	return fmt.Sprintf("first difference at byte %d:\n  want …%s\n  got  …%s", i, clip(want), clip(got))
}
