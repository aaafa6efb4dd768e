// Package framing names the framings a subject may declare for a byte-stream channel
// (skewtest.yaml, channels.<name>.framing, for a tcp or tls transport): how the wire tap cuts
// each direction's bytes into the messages it records and forwards. A message is recorded
// without its delimiter or length prefix, and written on with it, so the receiver gets the
// sender's bytes; a message whose length sits inside a longer header (Length) is recorded
// whole, header and all.
//
// It is one list that both sides read: builds validates a declaration against Names, and the
// tap (internal/run/harness/tap) cuts by them. It lives with the declarations, below both, so
// that validating a build's configuration does not import the run.
package framing

const (
	// Raw records what each read returns: where a stream is cut then depends on when its
	// bytes arrive, so a contract that names frames in it needs a stream codec, which puts
	// packets back together whatever the cuts (docs/contract.md). It is the default.
	Raw    = "raw"
	Lines  = "lines"  // a message per line, cut at "\n" (JSON lines, line protocols)
	U16BE  = "u16be"  // each message prefixed by its length as a u16 big-endian
	U32BE  = "u32be"  // each message prefixed by its length as a u32 big-endian
	U16LE  = "u16le"  // each message prefixed by its length as a u16 little-endian
	U32LE  = "u32le"  // each message prefixed by its length as a u32 little-endian
	Varint = "varint" // each message prefixed by its length as an unsigned varint
	// Packets cuts where the protocol says a packet ends (a contract's stream codec, by its
	// header's length field or its length prefix). A packet is recorded and written whole,
	// header and all.
	Packets = "packets"
)

// Names lists every framing, in the order messages name them.
var Names = []string{Raw, Lines, U16BE, U32BE, U16LE, U32LE, Varint, Packets}

// Fixed lists the fixed-width length framings: the ones whose length may sit inside a
// header (Length).
var Fixed = []string{U16BE, U32BE, U16LE, U32LE}

// MaxMessage is the longest message a framing reads: a longer line or length is taken as
// bytes of another framing, an error.
const MaxMessage = 64 << 20

// Width is the size of a fixed-width framing's length field (2 or 4), 0 for any other.
func Width(name string) int {
	switch name {
	case U16BE, U16LE:
		return 2
	case U32BE, U32LE:
		return 4
	}
	return 0
}
