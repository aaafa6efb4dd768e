package checks

import (
	"fmt"

	"github.com/skewtest/skewtest/results"
)

// CapabilityMismatch reports gated frames sent although their capability was not negotiated
// (Rule 2): the gate comes from the sender's contract for the connection's path, the
// negotiation from the host's subscribed echo.
func CapabilityMismatch(in *Input) []results.Finding {
	caps := Echoed(in.Transcript)
	type key struct{ dir, name, step string }
	seen := map[key]int{}
	var order []key
	for _, n := range NameFrames(in) {
		send, sendKind := in.sender(n.Dir)
		if send == nil || n.Err != nil {
			continue
		}
		ch := send.Channel(n.Path)
		if ch == nil {
			continue
		}
		def := ch.Named(n.Name, sendKind)
		if def == nil {
			continue
		}
		g := def.Gate(n.Path)
		if g == "" || caps[g] {
			continue
		}
		k := key{n.Dir, n.Name, n.Step}
		if seen[k] == 0 {
			order = append(order, k)
		}
		seen[k]++
	}
	var out []results.Finding
	for _, k := range order {
		out = append(out, results.Finding{
			Kind:      results.CapabilityMismatch,
			Step:      k.step,
			Direction: k.dir,
			Frame:     &results.Frame{Name: k.name},
			Message:   fmt.Sprintf("%s %s sent %d time(s) without negotiating its capability", k.dir, k.name, seen[k]),
		})
	}
	return out
}
