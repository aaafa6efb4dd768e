package checks

import (
	"encoding/json"
	"fmt"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// refusedPeer is the session observation a side makes when it refuses its peer's protocol.
const refusedPeer = "refused-peer"

// refusals returns, per role, whether the driver reported refusing its peer.
func refusals(t *transcript.Transcript) map[transcript.Role]bool {
	out := map[transcript.Role]bool{}
	for _, o := range t.Observations {
		if o.What != "session" {
			continue
		}
		var ev struct {
			Event string `json:"event"`
		}
		if json.Unmarshal(o.Data, &ev) == nil && ev.Event == refusedPeer {
			out[o.Role] = true
		}
	}
	return out
}

// WindowViolation checks the protocol window: peers outside each other's window must both
// refuse cleanly, peers inside it must not refuse. Only journeys that speak the session
// protocol (session observations, or an expected-refusal ending) are judged: the window is
// the session protocol's.
func WindowViolation(in *Input) []results.Finding {
	t := in.Transcript
	if !sessionJourney(t) && t.End == nil {
		return nil
	}
	ref := refusals(t)
	window := fmt.Sprintf("host speaks %s, client speaks %s", protocolOf(in.Host), protocolOf(in.Client))
	step := handshakeStep(t)
	var out []results.Finding
	add := func(msg string) {
		out = append(out, results.Finding{Kind: results.WindowViolation, Step: step, Message: msg + " (" + window + ")"})
	}
	if InWindow(in) {
		for _, r := range []transcript.Role{transcript.Host, transcript.Client} {
			if ref[r] {
				add(fmt.Sprintf("the %s refused a peer inside its protocol window", r))
			}
		}
		return out
	}
	for _, r := range []transcript.Role{transcript.Host, transcript.Client} {
		if !ref[r] {
			add(fmt.Sprintf("the %s did not refuse a peer outside its protocol window", r))
		}
	}
	return out
}

// handshakeStep is the step in which the peers met: the expected-refusal ending, else the
// first session observation's step.
func handshakeStep(t *transcript.Transcript) string {
	if t.End != nil {
		return t.End.Step
	}
	for _, o := range t.Observations {
		if o.What == "session" {
			return o.Step
		}
	}
	return ""
}

func sessionJourney(t *transcript.Transcript) bool {
	for _, o := range t.Observations {
		if o.What == "session" {
			return true
		}
	}
	return false
}

func protocolOf(c *contract.Contract) string {
	if c == nil {
		return "an unknown protocol"
	}
	return fmt.Sprintf("protocol %d, accepting %d and up", c.Protocol.Version, c.Protocol.MinCompatible)
}
