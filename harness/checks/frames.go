package checks

import (
	"encoding/json"
	"fmt"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/harness/transcript"
)

// Named is a tapped frame read with the receiver's contract.
type Named struct {
	transcript.Frame
	Decoded contract.Decoded
	// Name is the frame's name in the receiver's contract, else the sender's, else Opcode<n>.
	Name string
	// Known says the receiver's contract lists the frame for its client kind.
	Known bool
	// Def is the receiver's definition, or the sender's when the receiver has none.
	Def *contract.Frame
	// Err is set when the frame does not even carry the channel's framing.
	Err error
}

// Label is the frame as the sequence shows it: "H>C SnapshotStart".
func (n Named) Label() string { return n.Dir + " " + n.Name }

// receiver returns the receiving contract of a frame and the kind it decodes as.
func (in *Input) receiver(dir string) (*contract.Contract, string) {
	if dir == "H>C" {
		return in.Client, in.Transcript.Kind
	}
	return in.Host, ""
}

func (in *Input) sender(dir string) (*contract.Contract, string) {
	if dir == "H>C" {
		return in.Host, ""
	}
	return in.Client, in.Transcript.Kind
}

// NameFrames decodes every tapped frame with its receiver's contract.
func NameFrames(in *Input) []Named {
	out := make([]Named, 0, len(in.Transcript.Frames))
	for _, f := range in.Transcript.Frames {
		out = append(out, in.name(f))
	}
	return out
}

func (in *Input) name(f transcript.Frame) Named {
	n := Named{Frame: f}
	if f.Control != "" {
		// A WebSocket control frame (ping, pong, close): every peer speaks it, no contract
		// names it.
		n.Name, n.Known = f.Control, true
		return n
	}
	recv, kind := in.receiver(f.Dir)
	send, sendKind := in.sender(f.Dir)
	ch := channelFor(recv, send, f.Path)
	if ch == nil {
		n.Name, n.Err = "Unknown", fmt.Errorf("no channel serves %s in either contract", f.Path)
		return n
	}
	d, err := ch.Decode(f.Binary, f.Data)
	n.Decoded = d
	if err != nil {
		n.Name, n.Err = "Malformed", err
		return n
	}
	lookup := func(c *contract.Contract, k string) *contract.Frame {
		if c == nil {
			return nil
		}
		rc := c.Channel(f.Path)
		if rc == nil {
			return nil
		}
		if d.Binary {
			return rc.Opcode(d.Opcode, k)
		}
		return rc.Type(d.Type, k)
	}
	if def := lookup(recv, kind); def != nil {
		n.Name, n.Known, n.Def = def.Name, true, def
		return n
	}
	if def := lookup(send, sendKind); def != nil {
		n.Name, n.Def = def.Name, def
		return n
	}
	if d.Binary {
		n.Name = fmt.Sprintf("Opcode%d", d.Opcode)
	} else {
		n.Name = d.Type
	}
	return n
}

func channelFor(a, b *contract.Contract, path string) *contract.Channel {
	for _, c := range []*contract.Contract{a, b} {
		if c == nil {
			continue
		}
		if ch := c.Channel(path); ch != nil {
			return ch
		}
	}
	return nil
}

// Negotiated returns what the host negotiated with the client in this pairing.
func Negotiated(in *Input) map[string]bool { return Echoed(in.Transcript) }

// Echoed returns what the host negotiated: the capabilities it echoed in the client's last
// subscribed event, and the features it advertised in the last serverInfo.
func Echoed(t *transcript.Transcript) map[string]bool {
	caps := map[string]bool{}
	if obs := t.Observed(transcript.Client, "subscribed"); len(obs) > 0 {
		caps = echoedIn(obs[len(obs)-1])
	}
	for k := range advertised(t) {
		caps[k] = true
	}
	return caps
}

// advertised returns the features of the last serverInfo the client saw.
func advertised(t *transcript.Transcript) map[string]bool {
	out := map[string]bool{}
	for _, o := range t.Observed(transcript.Client, "session") {
		var ev struct {
			Event    string          `json:"event"`
			Features map[string]bool `json:"features"`
		}
		if json.Unmarshal(o.Data, &ev) != nil || ev.Event != "server-info" {
			continue
		}
		out = map[string]bool{}
		for k, v := range ev.Features {
			if v {
				out[k] = true
			}
		}
	}
	return out
}

// echoedIn reads the echoed capabilities of one subscribed observation.
func echoedIn(o transcript.Observation) map[string]bool {
	caps := map[string]bool{}
	var ev struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	_ = json.Unmarshal(o.Data, &ev)
	for k, v := range ev.Capabilities {
		var on bool
		switch v := v.(type) {
		case bool:
			on = v
		case float64:
			on = v != 0
		case string:
			on = v != ""
		default:
			on = v != nil
		}
		if on {
			caps[k] = true
		}
	}
	return caps
}

// path is the WebSocket path the journey's client used first.
func path(t *transcript.Transcript) string {
	for _, c := range t.Conns {
		return c.Path
	}
	for _, f := range t.Frames {
		return f.Path
	}
	return ""
}

func (c *condContext) named(k *contract.Contract, name, kind string) *contract.Frame {
	if k == nil {
		return nil
	}
	ch := k.Channel(c.path)
	if ch == nil {
		return nil
	}
	return ch.Named(name, kind)
}

// InWindow reports whether the two builds' contracts put each other inside their protocol
// windows (a missing contract counts as outside nothing: true).
func InWindow(in *Input) bool {
	if in.Host == nil || in.Client == nil {
		return true
	}
	h, c := in.Host.Protocol, in.Client.Protocol
	return h.Version >= c.MinCompatible && c.Version >= h.MinCompatible
}
