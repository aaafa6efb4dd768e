package contract

import (
	"encoding/json"
	"strconv"
)

// Batches: how one WebSocket message carries several frames.
const (
	BatchNone      = "none"       // one frame (or, with a header length, packets back to back)
	BatchNewline   = "newline"    // JSON lines; blank lines are skipped
	BatchJSONArray = "json-array" // a JSON array of objects (JSON-RPC 2.0), or one object
	BatchVarint    = "varint"     // each frame prefixed by its length as a varint
	BatchU16BE     = "u16be"      // each frame prefixed by its length as a u16 BE
	BatchU32BE     = "u32be"      // each frame prefixed by its length as a u32 BE
	BatchU16LE     = "u16le"      // each frame prefixed by its length as a u16 LE
	BatchU32LE     = "u32le"      // each frame prefixed by its length as a u32 LE
)

// maxPacket is the largest packet or batch item a stream holds while waiting for its end; a
// length above it is malformed.
const maxPacket = 64 << 20

// Codec says how the messages of one WebSocket message type (text or binary) carry frames
// and how each frame is named. Exactly one of JSON, Header, Protobuf and Driver is set.
type Codec struct {
	JSON     *Naming   `json:"json,omitempty"`
	Header   *Header   `json:"header,omitempty"`
	Protobuf *Protobuf `json:"protobuf,omitempty"`
	// Driver says the receiving build's own driver names the frames (a decode action).
	Driver bool `json:"driver,omitempty"`
	// Batch is how one message carries several frames (BatchNone when empty).
	Batch string `json:"batch,omitempty"`
	// Stream says the messages of one direction of one connection form a byte stream: a
	// packet may span messages and a message may hold several packets, cut by the header's
	// length field or the batch's length prefix.
	Stream bool `json:"stream,omitempty"`
}

// prefixed reports whether the codec's batch prefixes each frame with its length.
func (c *Codec) prefixed() bool {
	switch c.Batch {
	case BatchVarint, BatchU16BE, BatchU32BE, BatchU16LE, BatchU32LE:
		return true
	}
	return false
}

// name is the codec's kind, for messages.
func (c *Codec) name() string {
	switch {
	case c.JSON != nil:
		return "json"
	case c.Header != nil:
		return "header"
	case c.Protobuf != nil:
		return "protobuf"
	case c.Driver:
		return "driver"
	}
	return "none"
}

// Naming says how a JSON value names its frame; the rules are tried in this order.
type Naming struct {
	// Discriminator is a top-level key holding the name as a string.
	Discriminator string `json:"discriminator,omitempty"`
	// Pointer is an RFC 6901 JSON pointer to a string, or a number named by its decimal text.
	Pointer string `json:"pointer,omitempty"`
	// Nested names the frame by the key present in an object inside the value, each entry
	// in turn (see Nested).
	Nested []Nested `json:"nested,omitempty"`
	// Keys names the frame by the first of these keys present in the object.
	Keys []string `json:"keys,omitempty"`
	// Empty is the name of the empty object {}.
	Empty string `json:"empty,omitempty"`
}

// Nested names a frame by the first of Keys present in the object at Pointer. The name is
// the pointer's last reference token (unescaped), a dot, and the key: Pointer "/push" and
// key "pub" name {"push": {"channel": "c", "pub": {}}} "push.pub".
type Nested struct {
	Pointer string   `json:"pointer"`
	Keys    []string `json:"keys"`
}

// byContent reports whether the naming has a rule that reads the value (every rule but
// empty, which only names {}).
func (n *Naming) byContent() bool {
	return n.Discriminator != "" || n.Pointer != "" || len(n.Nested) > 0 || len(n.Keys) > 0
}

// Header describes a binary header field by field.
type Header struct {
	// Length is the header's minimum (or fixed) size, when its fields do not reach it.
	Length int `json:"length,omitempty"`
	// LengthIncludesHeader says the length field counts the header too.
	LengthIncludesHeader bool          `json:"lengthIncludesHeader,omitempty"`
	Fields               []HeaderField `json:"fields"`
}

// Reserved header field names; every other name is a named field (Decoded.Header).
const (
	FieldType   = "type"   // the frame's opcode
	FieldStream = "stream" // the stream id
	FieldSeq    = "seq"    // the sequence number
	FieldLength = "length" // payload bytes after the header that belong to this packet
)

// HeaderField is one integer of a binary header.
type HeaderField struct {
	Name string `json:"name"`
	// Offset is where the field starts; nil means right after the bytes read so far.
	Offset   *int   `json:"offset,omitempty"`
	Encoding string `json:"encoding"`
	// Mask and Shift cut a bit field out of the integer: (v & Mask) >> Shift (Mask 0: all).
	Mask  uint64 `json:"mask,omitempty"`
	Shift uint   `json:"shift,omitempty"`
	// Value is a constant every frame carries (a magic number), or nil.
	Value *uint64 `json:"value,omitempty"`
}

// Protobuf says the frames are protobuf messages.
type Protobuf struct {
	// DescriptorSet is a serialized google.protobuf.FileDescriptorSet that holds the message
	// and everything it imports (protoc --include_imports), relative to the contract file.
	// Exactly one of DescriptorSet and Files is set.
	DescriptorSet string `json:"descriptorSet,omitempty"`
	// Files are .proto source files, from the repository's root, that Parse compiles from
	// the tree of the build the contract describes (WithSources); ImportPaths are protoc's
	// -I directories (default: the root).
	Files       []string `json:"files,omitempty"`
	ImportPaths []string `json:"importPaths,omitempty"`
	Message     Messages `json:"message"`
	// Naming names a frame from the message's JSON form (proto field names); without its
	// discriminator, pointer, nested or keys, a frame is named by the field set in the
	// message's first oneof. Naming.Empty names the empty message either way.
	Naming *Naming `json:"naming,omitempty"`

	set *protoSet // loaded by Parse
}

// Messages is the full name of the protobuf message each direction carries: key "" for one
// message both ways, else "H>C" and "C>H".
type Messages map[string]string

// For returns the message that carries frames travelling in dir, or "".
func (m Messages) For(dir string) string {
	if n, ok := m[""]; ok {
		return n
	}
	return m[dir]
}

func (m *Messages) decodeNode(n *node, ptr string) error {
	switch n.kind {
	case nodeString:
		*m = Messages{"": n.text}
		return nil
	case nodeObject:
		out := Messages{}
		for _, k := range n.keys {
			v := n.obj[k]
			if k != HostToClient && k != ClientToHost {
				return &docError{off: n.koff[k], ptr: child(ptr, k), msg: "key " + strconv.Quote(k) + " is not a direction: use \"H>C\" and \"C>H\""}
			}
			if v.kind != nodeString {
				return wantGot(v, child(ptr, k), "a message's full name")
			}
			out[k] = v.text
		}
		*m = out
		return nil
	}
	return wantGot(n, ptr, `a message's full name, or {"H>C": name, "C>H": name}`)
}

// MarshalJSON writes one message as a string, else the object of directions.
func (m Messages) MarshalJSON() ([]byte, error) {
	if n, ok := m[""]; ok && len(m) == 1 {
		return json.Marshal(n)
	}
	return json.Marshal(map[string]string(m))
}
