package contract

import (
	"slices"
	"time"
)

// Channel is one kind of traffic: a set of WebSocket paths, the codec of each message type,
// and the frames it carries.
type Channel struct {
	Name  string   `json:"name"`
	Paths []string `json:"paths"`
	// Text and Binary decode the text and binary WebSocket messages of the channel; a
	// message of a type with no codec is malformed.
	Text   *Codec `json:"text,omitempty"`
	Binary *Codec `json:"binary,omitempty"`

	Capabilities []Capability  `json:"capabilities,omitempty"`
	Negotiation  []Negotiation `json:"negotiation,omitempty"`
	Scope        *Scope        `json:"scope,omitempty"`
	Frames       []Frame       `json:"frames"`
	Features     []Feature     `json:"features,omitempty"`
	Commands     []Command     `json:"commands,omitempty"`
	// Calls says which frames call commands and where they carry the command's id and
	// version (commands.go); nil: no frame does, as far as the contract says.
	Calls      *Calls      `json:"calls,omitempty"`
	Invariants []Invariant `json:"invariants,omitempty"`
	// ClientKinds, when set, lists every client kind that uses the channel: each frame the
	// host sends must then say, for each kind, whether it is sent to it (the kind knows it),
	// gated or never sent (Frame.Never); Warnings names the frames that do not.
	ClientKinds []string `json:"clientKinds,omitempty"`
	// Quiet is how long a connection of the channel may carry nothing, in either direction,
	// and stay open: no peer may close it as idle sooner ("3s", a Go duration). skewtest
	// explore leaves connections quiet for parts of it. Empty: the contract says nothing.
	Quiet string `json:"quiet,omitempty"`
}

// QuietFor is the channel's Quiet as a duration (0 when not set; validated when parsed).
func (ch *Channel) QuietFor() time.Duration {
	d, _ := time.ParseDuration(ch.Quiet)
	return d
}

// Codec returns the codec for text or binary messages, or nil.
func (ch *Channel) Codec(isBinary bool) *Codec {
	if isBinary {
		return ch.Binary
	}
	return ch.Text
}

// Capability is a capability a client declares and a host may echo.
type Capability struct {
	Name string `json:"name"`
	// DeclaredBy lists the client kinds that declare it; absent means every kind, and an
	// empty list means none (the host infers it, see ImpliedBy).
	DeclaredBy []string `json:"declaredBy,omitempty"`
	// Echoed says the host reports it back when accepted (where: Channel.Negotiation).
	Echoed bool `json:"echoed,omitempty"`
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

// Feature is a feature a host may advertise, and the frames it gates.
type Feature struct {
	Name   string   `json:"name"`
	Frames []string `json:"frames,omitempty"`
}

// Command is a command and the versions a build speaks.
type Command struct {
	ID       string `json:"id"`
	Versions []int  `json:"versions"`
	// Migration says, per version (its decimal text), how a caller moves to it from the
	// version before: a new version exists only for a breaking change, so every version
	// above 1 a build adds carries its text (the command-version-undocumented rule).
	Migration map[string]string `json:"migration,omitempty"`
}

// Speaks reports whether the channel declares command id at version.
func (ch *Channel) Speaks(id string, version int) bool {
	for _, c := range ch.Commands {
		if c.ID == id && slices.Contains(c.Versions, version) {
			return true
		}
	}
	return false
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

// FeatureOf returns the feature that gates the frame called name, or "".
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
