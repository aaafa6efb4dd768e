package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// CapabilityMismatch reports a negotiation that differs from what the two contracts say
// (the host echoes exactly the capabilities the client declares and the host echoes), and
// gated frames sent although their capability was not negotiated (Rule 2): the gate comes
// from the sender's contract for the connection's path (a capability, or for a frame the
// client sends, a feature the host advertises), the negotiation from where the contracts say
// it is reported, per sub-channel where the channel declares a scope.
func CapabilityMismatch(in *Input) []results.Finding {
	out := echoMismatch(in)
	echoes := Echoes(in)
	all := negotiatedIn(echoes, nil)
	type key struct{ dir, name, step string }
	seen := map[key]int{}
	var order []key
	for _, n := range NameFrames(in) {
		send, sendKind := in.sender(n.Dir)
		if send == nil || n.Err != nil || n.Teardown {
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
		g := gateOf(ch, def, n)
		if g == "" {
			continue
		}
		caps := all
		if ch.Scope != nil && n.Decoded.Value != nil {
			scope := scopeValue(n.Decoded.Value, ch.Scope.Pointer)
			caps = negotiatedIn(echoes, &scope)
		}
		if caps[g] {
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
	caps = map[string]bool{}
	for _, h := range hc.Capabilities {
		if echoExpected(hc, cc, in.Transcript.Kind, h.Name) {
			caps[h.Name] = true
		}
	}
	return caps, true
}

// echoExpected reports whether a host whose channel is hc echoes the capability name to a
// client of kind whose channel is cc, by the two contracts: hc echoes it, and cc declares it
// for the kind, directly or through a capability the host infers it from (impliedBy).
func echoExpected(hc, cc *contract.Channel, kind, name string) bool {
	if hc == nil || cc == nil {
		return false
	}
	declares := func(name string) bool {
		for i := range cc.Capabilities {
			if c := &cc.Capabilities[i]; c.Name == name && c.DeclaredByKind(kind) {
				return true
			}
		}
		return false
	}
	for _, h := range hc.Capabilities {
		if h.Name == name && h.Echoed && (declares(h.Name) || slices.ContainsFunc(h.ImpliedBy, declares)) {
			return true
		}
	}
	return false
}

// gateExpected reports whether the contracts say a gate (a frame's capability or feature)
// is negotiated between a host whose channel is hc and a client of kind whose channel is cc:
// a capability the host echoes to that client (echoExpected), or a feature the host
// advertises. It reads no traffic: a frame condition holds or not before anything runs.
func gateExpected(hc, cc *contract.Channel, kind, gate string) bool {
	if hc == nil {
		return false
	}
	if slices.ContainsFunc(hc.Features, func(f contract.Feature) bool { return f.Name == gate }) {
		return true
	}
	return echoExpected(hc, cc, kind, gate)
}

// echoMismatch compares every negotiation report with the contracts' expectation. Only
// echoed capabilities are compared: a source may also carry other names (a host's advertised
// features), which the echo rule does not cover.
func echoMismatch(in *Input) []results.Finding {
	want, ok := ExpectedEcho(in)
	if !ok {
		return nil
	}
	p := path(in.Transcript)
	hc, cc := in.Host.Channel(p), in.Client.Channel(p)
	// Only capabilities a contract says the host echoes are judged.
	isCap := func(name string) bool {
		h, c := hc.Capability(name), cc.Capability(name)
		return (h != nil && h.Echoed) || (c != nil && c.Echoed)
	}
	var out []results.Finding
	count := map[string]int{}
	for _, e := range Echoes(in) {
		count[e.Source]++
		got := map[string]bool{}
		for n := range e.Names {
			if isCap(n) {
				got[n] = true
			}
		}
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
		msg := fmt.Sprintf("%s #%d echoed %s; the contracts expect %s", e.Source, count[e.Source], setString(got), setString(want))
		out = append(out, results.Finding{Kind: results.CapabilityMismatch, Step: e.Step, Direction: contract.HostToClient,
			Frame: &results.Frame{Name: e.Source}, Message: msg,
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
