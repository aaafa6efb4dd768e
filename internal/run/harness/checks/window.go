package checks

import (
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// refusal is one observation of a side refusing its peer's protocol window.
type refusal struct {
	role transcript.Role
	step string
}

// refusals lists the observations that report a refusal, as either contract declares them
// (refusals: an observation, a role, top-level values).
func refusals(in *Input) []refusal {
	var decls []contract.Match
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c != nil {
			decls = append(decls, c.Refusals...)
		}
	}
	var out []refusal
	for _, o := range in.Transcript.Observations {
		if slices.ContainsFunc(decls, func(m contract.Match) bool { return matches(m, o) }) {
			out = append(out, refusal{o.Role, o.Step})
		}
	}
	return out
}

// matches reports whether an observation is one a Match picks.
func matches(m contract.Match, o transcript.Observation) bool {
	if m.Role != "" && m.Role != contract.RoleAny && m.Role != string(o.Role) {
		return false
	}
	if o.What != m.Observation {
		return false
	}
	v, ok := o.Value()
	return ok && whereMatches(v, m.Where)
}

// exercisesWindow reports whether the journey meets the protocol window on purpose: a
// [window] condition or an end expected-refusal line.
func exercisesWindow(j *journeys.Journey) bool {
	uses := func(cs []journeys.Cond) bool {
		return slices.ContainsFunc(cs, func(c journeys.Cond) bool { return c.Name == "window" })
	}
	for _, s := range j.Steps {
		for _, c := range s.Commands {
			if uses(c.Conds) || c.Verb == "end" {
				return true
			}
		}
	}
	return slices.ContainsFunc(j.Frames, func(f journeys.FrameLine) bool { return uses(f.Conds) })
}

// WindowViolation checks the protocol window: peers outside each other's window must both
// refuse cleanly, peers inside it must not refuse. Refusals are what the contracts declare
// (refusals); a pairing is judged when a refusal was reported or its journey meets the
// window on purpose (a [window] condition, an end expected-refusal), so a journey that never
// reaches a handshake is not held to one.
//
// A pairing the working tree's support policy requires (support: clients/hosts) must not
// end in a refusal at all, inside the window or not: the release it refuses is one it must
// still serve. A declared cut releases it.
func WindowViolation(in *Input) []results.Finding {
	t := in.Transcript
	refused := refusals(in)
	if in.Support.Required && (len(refused) > 0 || t.End != nil) {
		return []results.Finding{{Kind: results.WindowViolation, Step: handshakeStep(t, refused),
			Message: fmt.Sprintf("the working tree and %s refused each other, but the support policy says it must still be served (%s); declare a cut under support.cuts if this is deliberate",
				in.Support.Release, in.Support.Why)}}
	}
	if len(refused) == 0 && !exercisesWindow(in.Journey) {
		return nil
	}
	by := map[transcript.Role]bool{}
	for _, r := range refused {
		by[r.role] = true
	}
	window := fmt.Sprintf("host speaks %s, client speaks %s", protocolOf(in.Host, in.Client, "client", ""), protocolOf(in.Client, in.Host, "host", t.Kind))
	step := handshakeStep(t, refused)
	var out []results.Finding
	add := func(msg string) {
		out = append(out, results.Finding{Kind: results.WindowViolation, Step: step, Message: msg + " (" + window + ")"})
	}
	if InWindow(in) {
		for _, r := range []transcript.Role{transcript.Host, transcript.Client} {
			if by[r] {
				add(fmt.Sprintf("the %s refused a peer inside its protocol window", r))
			}
		}
		return out
	}
	for _, r := range []transcript.Role{transcript.Host, transcript.Client} {
		if !by[r] {
			add(fmt.Sprintf("the %s did not refuse a peer outside its protocol window", r))
		}
	}
	return out
}

// handshakeStep is the step in which the peers met: the expected-refusal ending, else the
// first refusal's step, else the first step.
func handshakeStep(t *transcript.Transcript, refused []refusal) string {
	switch {
	case t.End != nil:
		return t.End.Step
	case len(refused) > 0:
		return refused[0].step
	case len(t.Steps) > 0:
		return t.Steps[0].Name
	}
	return ""
}

// InWindow reports whether the two builds' contracts put each other inside their protocol
// windows (a missing contract counts as outside nothing: true). A build whose contract
// declares no protocol version speaks the other's default for a peer that omits it
// (protocol.omitted; contract.Protocol.Overlaps).
func InWindow(in *Input) bool {
	if in.Host == nil || in.Client == nil {
		return true
	}
	return in.Host.Protocol.Overlaps(in.clientProtocol())
}

// protocolOf says what c speaks, as its peer (whose role is peerRole) takes it; kind is c's
// client kind when c is the client's contract ("" for the host's).
func protocolOf(c, peer *contract.Contract, peerRole, kind string) string {
	if c == nil {
		return "an unknown protocol"
	}
	p := c.Protocol.Client(kind)
	if kind == "" {
		p = c.Protocol
	}
	if p.Version <= 0 && peer != nil && peer.Protocol.Omitted > 0 {
		return fmt.Sprintf("no protocol version, taken as %d (the %s's default for a peer that omits it), accepting %d and up", p.As(peer.Protocol), peerRole, p.MinCompatible)
	}
	return fmt.Sprintf("protocol %d, accepting %d and up", p.Version, p.MinCompatible)
}
