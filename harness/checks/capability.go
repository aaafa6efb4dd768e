package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/harness/transcript"

	"github.com/skewtest/skewtest/results"
)

// CapabilityMismatch reports a negotiation that differs from what the two contracts say
// (the host echoes exactly the capabilities the client declares and the host echoes), and
// gated frames sent although their capability was not negotiated (Rule 2): the gate comes
// from the sender's contract for the connection's path, the negotiation from the echo.
func CapabilityMismatch(in *Input) []results.Finding {
	out := echoMismatch(in)
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
		def := ch.Named(n.Name, n.Dir, sendKind)
		if def == nil {
			continue
		}
		g := def.Gate(n.Path)
		if g == "" && n.Dir == "C>H" {
			g = ch.FeatureOf(def.Name)
		}
		if g == "" || caps[g] {
			continue
		}
		k := key{n.Dir, n.Name, n.Step}
		if seen[k] == 0 {
			order = append(order, k)
		}
		seen[k]++
	}
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

// ExpectedEcho is the set of capabilities the host should echo: those its contract echoes
// that the client's contract declares for its kind, directly or through a capability the host
// infers it from (impliedBy). ok is false when either contract does not describe
// capabilities for the journey's channel.
func ExpectedEcho(in *Input) (caps map[string]bool, ok bool) {
	if in.Host == nil || in.Client == nil {
		return nil, false
	}
	p := path(in.Transcript)
	hc, cc := in.Host.Channel(p), in.Client.Channel(p)
	if hc == nil || cc == nil || len(hc.Capabilities) == 0 || len(cc.Capabilities) == 0 {
		return nil, false
	}
	declares := func(name string) bool {
		for i := range cc.Capabilities {
			if c := &cc.Capabilities[i]; c.Name == name && c.DeclaredByKind(in.Transcript.Kind) {
				return true
			}
		}
		return false
	}
	caps = map[string]bool{}
	for _, h := range hc.Capabilities {
		if !h.Echoed {
			continue
		}
		if declares(h.Name) || slices.ContainsFunc(h.ImpliedBy, declares) {
			caps[h.Name] = true
		}
	}
	return caps, true
}

// echoMismatch compares every subscribed echo with the contracts' expectation.
func echoMismatch(in *Input) []results.Finding {
	want, ok := ExpectedEcho(in)
	if !ok {
		return nil
	}
	var out []results.Finding
	for i, o := range in.Transcript.Observed(transcript.Client, "subscribed") {
		got := echoedIn(o)
		var extra, missing []string
		for c := range got {
			if !want[c] {
				extra = append(extra, c)
			}
		}
		for c := range want {
			if !got[c] {
				missing = append(missing, c)
			}
		}
		if len(extra)+len(missing) == 0 {
			continue
		}
		sort.Strings(extra)
		sort.Strings(missing)
		msg := fmt.Sprintf("subscribed #%d echoed %s; the contracts expect %s", i+1, setString(got), setString(want))
		out = append(out, results.Finding{Kind: results.CapabilityMismatch, Step: o.Step, Direction: "H>C",
			Frame: &results.Frame{Type: "subscribed", Name: "subscribed"}, Message: msg,
			Detail: fmt.Sprintf("echoed but not expected: %v\nexpected but not echoed: %v", extra, missing)})
	}
	return out
}

func setString(m map[string]bool) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "nothing"
	}
	return "{" + strings.Join(keys, ", ") + "}"
}
