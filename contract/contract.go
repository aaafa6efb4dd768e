// Package contract reads a build's wire contract (docs/contract.md) and decodes tapped frames
// with it. A contract says what one build speaks: its protocol window, and per channel the
// framing, every frame with its direction, fields, gates and the client kinds that know it.
package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Version is the contract format version this skewtest reads.
const Version = 1

// Contract is one build's wire vocabulary.
type Contract struct {
	ContractVersion int       `json:"contractVersion"`
	Product         string    `json:"product"`
	Version         string    `json:"version"`
	Protocol        Protocol  `json:"protocol"`
	Channels        []Channel `json:"channels"`
}

// Protocol is a build's protocol window.
type Protocol struct {
	Version       int `json:"version"`
	MinCompatible int `json:"minCompatible"`
}

// Channel is one kind of traffic: a set of WebSocket paths with one framing.
type Channel struct {
	Name         string        `json:"name"`
	Paths        []string      `json:"paths"`
	Binary       *BinaryHeader `json:"binary,omitempty"`
	JSON         *JSONFraming  `json:"json,omitempty"`
	Capabilities []Capability  `json:"capabilities,omitempty"`
	Frames       []Frame       `json:"frames"`
	Features     []Feature     `json:"features,omitempty"`
	Commands     []Command     `json:"commands,omitempty"`
}

// BinaryHeader says where a binary frame's header fields are.
type BinaryHeader struct {
	HeaderLength int         `json:"headerLength"`
	Magic        []MagicByte `json:"magic"`
	OpcodeOffset int         `json:"opcodeOffset"`
	StreamOffset int         `json:"streamOffset"`
	SeqOffset    int         `json:"seqOffset"`
}

// MagicByte is a byte every binary frame carries at Offset.
type MagicByte struct {
	Offset int  `json:"offset"`
	Value  byte `json:"value"`
}

// JSONFraming says how a text frame names its type.
type JSONFraming struct {
	Discriminator string `json:"discriminator"`
}

// Capability is a capability a client declares and a host may echo.
type Capability struct {
	Name string `json:"name"`
	// DeclaredBy lists the client kinds that declare it; absent means every kind, and an
	// empty list means none (the host infers it, see ImpliedBy).
	DeclaredBy []string `json:"declaredBy,omitempty"`
	Echoed     bool     `json:"echoed"`
	// ImpliedBy lists capabilities from which the host infers this one: a client that
	// declares any of them is treated as declaring it (they shipped after it).
	ImpliedBy []string `json:"impliedBy,omitempty"`
}

// DeclaredByKind reports whether a client of kind declares the capability.
func (c *Capability) DeclaredByKind(kind string) bool {
	if c.DeclaredBy == nil {
		return true
	}
	for _, k := range c.DeclaredBy {
		if k == kind {
			return true
		}
	}
	return false
}

// Feature is a session feature a host may advertise, and the frames it gates.
type Feature struct {
	Name   string   `json:"name"`
	Frames []string `json:"frames,omitempty"`
}

// Command is a session command and the versions a build speaks.
type Command struct {
	ID       string `json:"id"`
	Versions []int  `json:"versions"`
}

// Frame is one frame of a channel's vocabulary.
type Frame struct {
	Opcode    int               `json:"opcode,omitempty"`
	Type      string            `json:"type,omitempty"`
	Name      string            `json:"name"`
	Direction string            `json:"direction"`
	Payload   string            `json:"payload,omitempty"`
	Fields    map[string]Field  `json:"fields,omitempty"`
	Kinds     []string          `json:"kinds,omitempty"`
	Gates     map[string]string `json:"gates,omitempty"`
}

// Field is one field of a JSON payload.
type Field struct {
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Enum     []string `json:"enum,omitempty"`
}

// ErrUnsupported is returned for a contract of a format version this skewtest cannot read.
var ErrUnsupported = errors.New("unsupported contract version")

// Load reads and validates a contract file.
func Load(path string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads and validates a contract document; name is used in errors.
func Parse(name string, data []byte) (*Contract, error) {
	var c Contract
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, locate(data, err))
	}
	if c.ContractVersion != Version {
		return nil, fmt.Errorf("%s: contractVersion %d: %w (this skewtest reads %d)", name, c.ContractVersion, ErrUnsupported, Version)
	}
	for i, ch := range c.Channels {
		if ch.Name == "" || len(ch.Paths) == 0 {
			return nil, fmt.Errorf("%s: channels[%d]: a channel needs a name and at least one path", name, i)
		}
		for j, f := range ch.Frames {
			if f.Name == "" || (f.Opcode == 0 && f.Type == "") {
				return nil, fmt.Errorf("%s: channel %s frames[%d]: a frame needs a name and an opcode or a type", name, ch.Name, j)
			}
			if f.Direction != "H>C" && f.Direction != "C>H" {
				return nil, fmt.Errorf("%s: channel %s frame %s: direction %q is not H>C or C>H", name, ch.Name, f.Name, f.Direction)
			}
		}
	}
	return &c, nil
}

// locate adds a line number to a JSON syntax or type error.
func locate(data []byte, err error) error {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return err
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// Channel returns the channel serving a WebSocket path, or nil.
func (c *Contract) Channel(path string) *Channel {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	for i := range c.Channels {
		for _, p := range c.Channels[i].Paths {
			if p == path {
				return &c.Channels[i]
			}
		}
	}
	return nil
}

// ChannelNamed returns the channel with that name, or nil.
func (c *Contract) ChannelNamed(name string) *Channel {
	for i := range c.Channels {
		if c.Channels[i].Name == name {
			return &c.Channels[i]
		}
	}
	return nil
}

// Opcode returns the frame with that opcode that a client of kind knows (kind "" for a
// host, which knows every frame of its contract), or nil.
func (ch *Channel) Opcode(op int, kind string) *Frame {
	for i := range ch.Frames {
		f := &ch.Frames[i]
		if f.Opcode == op && f.knownBy(kind) {
			return f
		}
	}
	return nil
}

// Type returns the JSON frame with that discriminator value known to kind, or nil.
func (ch *Channel) Type(t string, kind string) *Frame {
	for i := range ch.Frames {
		f := &ch.Frames[i]
		if f.Opcode == 0 && f.Type == t && f.knownBy(kind) {
			return f
		}
	}
	return nil
}

// Named returns the frame called name known to kind, or nil.
func (ch *Channel) Named(name string, kind string) *Frame {
	for i := range ch.Frames {
		f := &ch.Frames[i]
		if f.Name == name && f.knownBy(kind) {
			return f
		}
	}
	return nil
}

// FeatureOf returns the session feature that gates the frame called name, or "".
func (ch *Channel) FeatureOf(name string) string {
	for _, f := range ch.Features {
		for _, fr := range f.Frames {
			if fr == name {
				return f.Name
			}
		}
	}
	return ""
}

// Capability returns the capability called name, or nil.
func (ch *Channel) Capability(name string) *Capability {
	for i := range ch.Capabilities {
		if ch.Capabilities[i].Name == name {
			return &ch.Capabilities[i]
		}
	}
	return nil
}

func (f *Frame) knownBy(kind string) bool {
	if kind == "" || len(f.Kinds) == 0 {
		return true
	}
	for _, k := range f.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Gate returns the capability that gates f on path, or "".
func (f *Frame) Gate(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if g, ok := f.Gates[path]; ok {
		return g
	}
	return f.Gates["*"]
}
