package contract

import "slices"

// Directions a frame travels in: the one spelling of a direction in skewtest's code, its
// reports and its files ("H>C SnapshotStart").
const (
	HostToClient = "H>C"
	ClientToHost = "C>H"
	// Both marks a frame that either side may send (contract version 2).
	Both = "both"
)

// Directions are the two directions, host to client first.
var Directions = []string{HostToClient, ClientToHost}

// Opposite is the other direction of dir: a frame's answer travels the opposite way.
func Opposite(dir string) string {
	if dir == HostToClient {
		return ClientToHost
	}
	return HostToClient
}

// Frame is one frame of a channel's vocabulary. A frame is named either by an opcode (the
// `type` field of a binary header) or, when Type is set, by the name a JSON, protobuf or
// driver codec gives it.
type Frame struct {
	Opcode    int    `json:"opcode,omitempty"`
	Type      string `json:"type,omitempty"`
	Name      string `json:"name"`
	Direction string `json:"direction"`
	// Payload is text, json, empty, binary (fields by offset) or protobuf.
	Payload string           `json:"payload,omitempty"`
	Fields  map[string]Field `json:"fields,omitempty"`
	// Kinds lists the client kinds whose decoder knows the frame (absent: every kind).
	Kinds []string `json:"kinds,omitempty"`
	// Gates maps a path to the capability that must be negotiated before the frame may be
	// sent on it ("*": every path).
	Gates map[string]string `json:"gates,omitempty"`
	// Variants are the frame's shape where it depends on the negotiated protocol version:
	// the first variant whose range holds the version replaces the payload and fields it
	// sets (see Shape).
	Variants []Variant `json:"variants,omitempty"`
	// Never lists client kinds (of the channel's ClientKinds) the host never sends the
	// frame to: the decision for a kind that does not know the frame and is not protected
	// by a gate.
	Never []string `json:"never,omitempty"`
	// Counted says the peers' flow control counts the frame's payload bytes (an ack of
	// bytes received): a later release that adds to the frame counts the larger payload on
	// both sides, so the future-peer pass, which grows the frame in transit only, leaves it
	// as sent.
	Counted bool `json:"counted,omitempty"`
	// Periodic marks a frame a peer sends on a timer (a keepalive, a ping, a NOP), not in
	// answer to what a journey does: it is decoded, checked and counted in coverage like any
	// other, and left out of the frame sequences a pairing is compared by (the journey's
	// expected frames, the references), where it would land in whichever step its timer
	// fired. A journey that names the frame in its frames section compares it all the same.
	Periodic bool `json:"periodic,omitempty"`
}

// ByOpcode reports whether the frame is named by an opcode rather than a type name.
func (f *Frame) ByOpcode() bool { return f.Type == "" }

// Label is the frame as a sequence shows it: "H>C Delta".
func (f *Frame) Label() string { return f.Direction + " " + f.Name }

// Travels reports whether the frame may travel in dir; "" matches every direction.
func (f *Frame) Travels(dir string) bool {
	return dir == "" || f.Direction == dir || f.Direction == Both
}

// KnownBy reports whether a client of kind knows the frame; kind "" is the host, which
// knows every frame of its contract.
func (f *Frame) KnownBy(kind string) bool {
	return kind == "" || len(f.Kinds) == 0 || slices.Contains(f.Kinds, kind)
}

// Gate returns the capability that gates f on path, or "".
func (f *Frame) Gate(path string) string {
	path = stripQuery(path)
	if g, ok := f.Gates[path]; ok {
		return g
	}
	return f.Gates["*"]
}

// Lookup returns the frame a receiver knows for a decoded frame: a frame named by an opcode
// is looked up by opcode, others by type name; the frame must travel in dir (H>C or C>H; ""
// any) and be known to kind ("" for the host). A frame the driver is to name (Driver) has no
// definition until it is named: look it up with Type. It returns nil when the receiver does
// not know the frame.
func (ch *Channel) Lookup(d Decoded, dir, kind string) *Frame {
	switch {
	case d.Type != "":
		return ch.Type(d.Type, dir, kind)
	case d.Driver || !d.HasOpcode:
		return nil
	}
	return ch.Opcode(d.Opcode, dir, kind)
}

// Opcode returns the frame with that opcode travelling in dir ("" any) known to kind ("" for
// the host), or nil. A C>H frame the receiver knows only as an H>C frame of the same number
// is not known.
func (ch *Channel) Opcode(op int, dir, kind string) *Frame {
	return ch.find(func(f *Frame) bool { return f.ByOpcode() && f.Opcode == op }, dir, kind)
}

// Type returns the frame with that type name travelling in dir ("" any) known to kind, or nil.
func (ch *Channel) Type(t, dir, kind string) *Frame {
	return ch.find(func(f *Frame) bool { return !f.ByOpcode() && f.Type == t }, dir, kind)
}

// Named returns the frame called name travelling in dir ("" any) known to kind, or nil.
func (ch *Channel) Named(name, dir, kind string) *Frame {
	return ch.find(func(f *Frame) bool { return f.Name == name }, dir, kind)
}

func (ch *Channel) find(match func(*Frame) bool, dir, kind string) *Frame {
	for i := range ch.Frames {
		f := &ch.Frames[i]
		if match(f) && f.Travels(dir) && f.KnownBy(kind) {
			return f
		}
	}
	return nil
}
