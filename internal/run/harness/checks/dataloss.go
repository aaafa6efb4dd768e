package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// DataLoss compares, for every stream the contracts declare, what was sent with what was
// delivered: concatenations (bytes), the last delivered value against everything sent
// (cumulative), value by value (each), or items by id (set).
func DataLoss(in *Input) []results.Finding {
	t := in.Transcript
	var out []results.Finding
	for _, s := range Streams(in) {
		var sent []Item
		var sentBytes []byte // joined, for the streams that compare bytes
		if in.Streams != nil {
			sent, sentBytes = in.Streams.sentOf(t, s) // read on from the last look
		} else {
			sent = Values(t, s.sent)
			sentBytes = join(sent)
		}
		var delivered []Item
		if s.compare != contract.CompareCumulative { // a cumulative stream is folded below
			delivered = Values(t, s.delivered)
		}
		dir := contract.HostToClient
		switch {
		case s.sent.Role == s.delivered.Role:
			dir = "" // both ends in one process: no direction on the wire
		case s.sent.Role == contract.RoleClient:
			dir = contract.ClientToHost
		}
		add := func(step, msg, detail string) {
			out = append(out, results.Finding{Kind: results.DataLoss, Step: step, Direction: dir,
				Message: "stream " + s.name + ": " + msg, Detail: detail})
		}
		switch s.compare {
		case contract.CompareBytes:
			a, b := sentBytes, join(delivered)
			if !bytes.Equal(a, b) {
				add(divergingStep(t, firstStep(sent, delivered)),
					fmt.Sprintf("what was delivered differs from what was sent (%d bytes sent, %d delivered)", len(a), len(b)),
					"sent:      "+strconv.Quote(string(a))+"\ndelivered: "+strconv.Quote(string(b)))
			}
		case contract.CompareCumulative:
			// A receiver that never delivered anything (one that stalled before its first
			// value, which the stall reports) has nothing to compare.
			last := &fold{e: s.delivered}
			if in.Streams != nil {
				last = in.Streams.foldOf(s) // what the journey's barriers folded so far
			}
			last.advance(t)
			if len(sent) == 0 || !last.any {
				continue
			}
			if a := sentBytes; !bytes.Equal(last.value, a) {
				add(divergingStep(t, last.step),
					fmt.Sprintf("the last delivered value differs from everything sent (%d bytes sent, %d delivered)", len(a), len(last.value)),
					firstDifference(a, last.value))
			}
		case contract.CompareEach:
			for i := 0; i < len(sent) && i < len(delivered); i++ {
				if !bytes.Equal(sent[i].Value, delivered[i].Value) {
					add(delivered[i].Step, fmt.Sprintf("value %d delivered differs from the one sent", i+1),
						firstDifference(sent[i].Value, delivered[i].Value))
				}
			}
		case contract.CompareSet:
			if f, ok := setLoss(t, sent, delivered); ok {
				add(f.Step, f.Message, f.Detail)
			}
		}
	}
	return out
}

// setLoss compares items by id: for every id sent, the last value delivered for it equals
// the last value sent (an item may be sent again, edited); ids delivered but never sent are
// not this stream's business.
func setLoss(t *transcript.Transcript, sent, delivered []Item) (results.Finding, bool) {
	got := map[string][]byte{}
	for _, it := range delivered {
		got[it.ID] = it.Value
	}
	last := map[string]Item{}
	var ids []string
	for _, it := range sent {
		if _, ok := last[it.ID]; !ok {
			ids = append(ids, it.ID)
		}
		last[it.ID] = it
	}
	var missing, changed []string
	step := ""
	for _, id := range ids {
		it := last[id]
		v, ok := got[id]
		switch {
		case !ok:
			missing = append(missing, id)
		case !bytes.Equal(v, it.Value):
			changed = append(changed, fmt.Sprintf("%s: sent %q, delivered %q", id, it.Value, v))
		default:
			continue
		}
		if step == "" {
			step = it.Step
		}
	}
	if len(missing)+len(changed) == 0 {
		return results.Finding{}, false
	}
	sort.Strings(missing)
	var detail []string
	if len(missing) > 0 {
		detail = append(detail, "never delivered: "+strings.Join(missing, ", "))
	}
	detail = append(detail, changed...)
	return results.Finding{Step: divergingStep(t, step),
		Message: fmt.Sprintf("%d of %d items sent were not delivered as last sent", len(missing)+len(changed), len(ids)),
		Detail:  strings.Join(detail, "\n")}, true
}

func firstStep(lists ...[]Item) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0].Step
		}
	}
	return ""
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
	if jsonv1.Unmarshal(raw, &m) != nil {
		return nil
	}
	var b []byte
	if jsonv1.Unmarshal(m[key], &b) != nil {
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
