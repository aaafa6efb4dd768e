package checks

import (
	"encoding/json"
	"fmt"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Named is one frame read with the receiver's contract. A tapped WebSocket message may carry
// several frames (a batch), and a frame may span messages (a stream codec): a frame is
// attributed to the message that completes it, and Part numbers the frames of one message.
type Named struct {
	transcript.Frame
	Part    int
	Decoded contract.Decoded
	// Name is the frame's name in the receiver's contract, else the sender's, else Opcode<n>
	// or its type.
	Name string
	// Known says the receiver's contract lists the frame for its client kind and direction.
	Known bool
	// Def is the receiver's definition, or the sender's when the receiver has none, as
	// written: Shape is the frame as the pairing's builds speak it.
	Def *contract.Frame
	// Version is the protocol version the pairing's builds negotiated (Input.Protocol), which
	// the frame was read at: 0 when their contracts do not say.
	Version int
	// Err is set when the bytes do not even carry the channel's framing, and for a frame the
	// receiving driver refused (driver decoding).
	Err error
	// Undecoded is set for a frame of a driver-decoded channel that the receiving driver did
	// not name (it was not asked, or did not answer): no verdict either way.
	Undecoded bool
	// Arrived is the step the frame arrived in when that is not the step that caused it
	// (Step): a reply that came after its request's step ended (see attribution).
	Arrived string
}

// Shape is the frame's definition as the pairing's builds speak it: Def at Version
// (contract.Frame.At, the one answer to which fields a frame has at a protocol version).
// Every reader of a frame's fields goes through it: decode (contract.Stream.At), the field
// checks, where clauses, coverage and what a transcript keeps. Nil when Def is.
func (n Named) Shape() *contract.Frame { return n.Def.At(n.Version) }

// Label is the frame as the sequence shows it: "H>C SnapshotStart".
func (n Named) Label() string { return n.Dir + " " + n.Name }

// receiver returns the receiving contract of a frame and the kind it decodes as.
func (in *Input) receiver(dir string) (*contract.Contract, string) {
	if dir == contract.HostToClient {
		return in.Client, in.Transcript.Kind
	}
	return in.Host, ""
}

func (in *Input) sender(dir string) (*contract.Contract, string) {
	if dir == contract.HostToClient {
		return in.Host, ""
	}
	return in.Client, in.Transcript.Kind
}

// NameFrames decodes every tapped frame with its receiver's contract. The answer is kept in
// in while the transcript has as many frames: callers must not modify it.
func NameFrames(in *Input) []Named {
	if in.named != nil && in.namedFor == len(in.Transcript.Frames) {
		return in.named
	}
	// A sealed transcript keeps its names for every Input with the same contracts (a
	// reference is read by the checks of many pairings).
	key := namedKey{in.Host, in.Client, in.Transcript.Kind}
	out := in.Transcript.Derived(key, func() any {
		nm := NewNamer(in)
		out := make([]Named, 0, len(in.Transcript.Frames))
		for _, f := range in.Transcript.Frames {
			out = append(out, nm.Name(f)...)
		}
		return out
	}).([]Named)
	in.named, in.namedFor = out, len(in.Transcript.Frames)
	return out
}

// KeepNamed gives a sealed transcript the names of its frames, as NameFrames would find them
// with in's contracts: a running pairing named them as they arrived (a Namer over every
// frame, in order), so its checks need not name them again.
func KeepNamed(in *Input, named []Named) {
	if len(named) == 0 && len(in.Transcript.Frames) > 0 {
		return
	}
	in.Transcript.Derived(namedKey{in.Host, in.Client, in.Transcript.Kind}, func() any { return named })
}

// namedKey keys a transcript's named frames: they follow from its frames and the contracts
// they are read with.
type namedKey struct {
	host, client *contract.Contract
	kind         string
}

// Namer names frames one message at a time, keeping each connection's and direction's
// stream state (a frame that spans messages), so a caller can name frames as they arrive.
type Namer struct {
	in      *Input
	streams map[streamKey]*contract.Stream
	attr    *attribution
}

type streamKey struct {
	conn int
	dir  string
}

// NewNamer returns a Namer for the pairing in (its transcript is not read).
func NewNamer(in *Input) *Namer {
	return &Namer{in: in, streams: map[streamKey]*contract.Stream{}, attr: newAttribution(in)}
}

// Unanswered lists the correlated requests of step, among the frames named so far, that no
// reply answered yet; with last (the journey's last step), also those of every step that an
// invariant says are answered once.
func (nm *Namer) Unanswered(step string, last bool) []Request { return nm.attr.unanswered(step, last) }

// Name names the frames one tapped message carries (none while a spanning frame is
// incomplete).
func (nm *Namer) Name(f transcript.Frame) []Named {
	in := nm.in
	n := Named{Frame: f, Version: in.Protocol()}
	if f.Control != "" {
		// A WebSocket control frame (ping, pong, close): every peer speaks it, no contract
		// names it.
		n.Name, n.Known = f.Control, true
		return []Named{n}
	}
	recv, kind := in.receiver(f.Dir)
	send, sendKind := in.sender(f.Dir)
	ch := channelFor(recv, send, f.Path)
	if ch == nil {
		n.Name, n.Err = "Unknown", fmt.Errorf("no channel serves %s in either contract", f.Path)
		return []Named{n}
	}
	if c := ch.Codec(f.Binary); c != nil && c.Driver {
		out := in.driverNamed(n, recv, kind, send, sendKind)
		for i := range out {
			nm.attr.attribute(&out[i], ch)
		}
		return out
	}
	k := streamKey{f.Conn, f.Dir}
	st := nm.streams[k]
	if st == nil {
		st = ch.NewStream(f.Dir).At(n.Version)
		nm.streams[k] = st
	}
	var out []Named
	for i, p := range st.Feed(f.Binary, f.Data) {
		m := n
		m.Part, m.Decoded = i, p.Decoded
		if p.Err != nil {
			m.Name, m.Err = "Malformed", p.Err
		} else {
			in.lookup(&m, recv, kind, send, sendKind)
			nm.attr.attribute(&m, ch)
		}
		out = append(out, m)
	}
	return out
}

// lookup names a decoded frame: by the receiver's contract, else the sender's.
func (in *Input) lookup(n *Named, recv *contract.Contract, kind string, send *contract.Contract, sendKind string) {
	find := func(c *contract.Contract, k string) *contract.Frame {
		if c == nil {
			return nil
		}
		ch := c.Channel(n.Path)
		switch {
		case ch == nil:
			return nil
		case !n.Decoded.Driver:
			return ch.Lookup(n.Decoded, n.Dir, k)
		case n.Decoded.Type != "":
			return ch.Type(n.Decoded.Type, n.Dir, k)
		case n.Decoded.HasOpcode:
			return ch.Opcode(n.Decoded.Opcode, n.Dir, k)
		}
		return nil
	}
	if def := find(recv, kind); def != nil {
		n.Name, n.Known, n.Def = def.Name, true, def
		return
	}
	if def := find(send, sendKind); def != nil {
		n.Name, n.Def = def.Name, def
		return
	}
	switch {
	case n.Decoded.Type != "":
		n.Name = n.Decoded.Type
	case n.Decoded.HasOpcode:
		n.Name = fmt.Sprintf("Opcode%d", n.Decoded.Opcode)
	default:
		n.Name = "Unnamed"
	}
}

// driverNamed names a frame of a channel whose receiving driver decodes it (decode action):
// the driver's verdict, looked up in the contracts like any decoded frame.
func (in *Input) driverNamed(n Named, recv *contract.Contract, kind string, send *contract.Contract, sendKind string) []Named {
	dd := n.Frame.Decoded
	switch {
	case dd == nil:
		n.Name, n.Known, n.Undecoded = "Undecoded", true, true
		return []Named{n}
	case dd.Refused:
		n.Name, n.Err = "Refused", fmt.Errorf("the receiving driver's decoder refused it: %s", dd.Reason)
		n.Decoded = contract.Decoded{Binary: n.Binary, Payload: n.Data, Driver: true}
		return []Named{n}
	}
	var out []Named
	for i, df := range dd.Frames {
		m := n
		m.Part = i
		m.Decoded = contract.Decoded{Binary: n.Binary, Type: df.Type, Opcode: df.Opcode, HasOpcode: df.Type == "" && df.Opcode != 0, Payload: n.Data, Driver: true}
		if len(df.Fields) > 0 {
			var v any
			if json.Unmarshal(df.Fields, &v) == nil {
				m.Decoded.Value = v
				if obj, ok := v.(map[string]any); ok {
					m.Decoded.JSON = obj
				}
			}
		}
		in.lookup(&m, recv, kind, send, sendKind)
		out = append(out, m)
	}
	return out
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

// named is the frame called name that contract k knows on the current line's channel, for
// kind ("" for the host), or nil.
func (c *condContext) named(k *contract.Contract, name, kind string) *contract.Frame {
	if k == nil {
		return nil
	}
	lc, _ := c.channel()
	ch := k.ChannelNamed(lc.Name)
	if ch == nil {
		return nil
	}
	return ch.Named(name, "", kind)
}
