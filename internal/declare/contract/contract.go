// Package contract reads a build's wire contract (docs/contract.md) and decodes tapped frames
// with it. A contract says what one build speaks: its protocol window, and per channel the
// codec of each WebSocket message type, every frame with its direction, fields, gates and
// the client kinds that know it, and where the product reports what it negotiated.
//
// Contract files of version 1 are still read: Parse converts them into the version 2 model,
// so callers see one model whatever the file's version.
package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// Version is the newest contract format version this skewtest reads; it reads every version
// from 1 up to it.
const Version = 2

// Contract is one build's wire vocabulary.
type Contract struct {
	// ContractVersion is the format version of the file the contract was read from.
	ContractVersion int       `json:"contractVersion"`
	Product         string    `json:"product,omitempty"`
	Version         string    `json:"version,omitempty"`
	Protocol        Protocol  `json:"protocol"`
	Channels        []Channel `json:"channels"`

	// What the product declares about its drivers' observations (product.go).
	Streams    []StreamSpec `json:"streams,omitempty"`
	State      []StateSpec  `json:"state,omitempty"`
	Refusals   []Match      `json:"refusals,omitempty"`
	Rejections []Match      `json:"rejections,omitempty"`

	src *source // where Parse read it, for File and Line (source.go)
}

// Protocol is a build's protocol window.
type Protocol struct {
	Version       int `json:"version"`
	MinCompatible int `json:"minCompatible"`
	// Omitted is the protocol version this build takes a peer to speak when the peer's
	// contract declares none (Version 0): peers that predate protocol negotiation omit their
	// version, and a build treats them as this one. 0: no default.
	Omitted int `json:"omitted,omitempty"`
	// Kinds is the protocol version this build's clients of a kind speak, where it is not
	// Version: an MQTT 3.1.1 client kind beside an MQTT 5 one in one build (each from 1 to
	// Version). A kind it does not list speaks Version. Hosts speak Version.
	Kinds map[string]int `json:"kinds,omitempty"`
}

// Client is p as this build's client of kind speaks it: its Version is Kinds[kind] when the
// contract lists the kind. The version still comes from the build's own contract: a client
// kind never takes another kind's.
func (p Protocol) Client(kind string) Protocol {
	if v, ok := p.Kinds[kind]; ok {
		p.Version = v
	}
	p.Kinds = nil
	return p
}

// Equal reports whether p and q declare the same window, defaults and client kinds' versions.
func (p Protocol) Equal(q Protocol) bool {
	if p.Version != q.Version || p.MinCompatible != q.MinCompatible || p.Omitted != q.Omitted || len(p.Kinds) != len(q.Kinds) {
		return false
	}
	for k, v := range p.Kinds {
		if w, ok := q.Kinds[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// As is p's protocol version as a peer with window q takes it: p's own version, or, when p
// declares none, q's default for a peer that omits it (q.Omitted; 0 when q has none).
func (p Protocol) As(q Protocol) int {
	if p.Version > 0 {
		return p.Version
	}
	return q.Omitted
}

// Overlaps reports whether two builds are inside each other's protocol window: each version
// is at least the other's minCompatible. A build whose contract declares no version speaks
// the other's default (Omitted, see As). This is the one window rule: pin selection, the
// static tier and the window check all use it.
func (p Protocol) Overlaps(q Protocol) bool {
	return p.As(q) >= q.MinCompatible && q.As(p) >= p.MinCompatible
}

// String returns "protocol 2 (minCompatible 2)", "protocol 2 (minCompatible 1; a peer that
// omits its version speaks 1)" for a build with a default, and "no protocol version
// (minCompatible 0)" for a build that declares none.
func (p Protocol) String() string {
	s := fmt.Sprintf("protocol %d (minCompatible %d", p.Version, p.MinCompatible)
	if p.Version <= 0 {
		s = fmt.Sprintf("no protocol version (minCompatible %d", p.MinCompatible)
	}
	if p.Omitted > 0 {
		s += fmt.Sprintf("; a peer that omits its version speaks %d", p.Omitted)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Kinds)) {
		s += fmt.Sprintf("; its %s clients speak %d", k, p.Kinds[k])
	}
	return s + ")"
}

// ErrUnsupported is returned for a contract of a format version this skewtest cannot read.
var ErrUnsupported = errors.New("unsupported contract version")

// Option changes how Parse reads a contract.
type Option func(*options)

type options struct {
	files   fs.FS
	sources *ProtoSources
}

// WithFiles makes Parse read the files a contract refers to (protobuf descriptor sets) from
// fsys, with paths relative to its root, instead of from the contract file's directory.
func WithFiles(fsys fs.FS) Option {
	return func(o *options) { o.files = fsys }
}

// WithSources makes Parse compile the .proto files a protobuf codec names (files,
// importPaths: paths from the repository's root) from src: the tree of the build the
// contract describes. Without it they are read from the disk, from the repository that
// holds the contract file (else its directory), or from WithFiles' fsys.
func WithSources(src ProtoSources) Option {
	return func(o *options) { o.sources = &src }
}

// Load reads and validates a contract file.
func Load(path string, opts ...Option) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, opts...)
}

// Channel returns the channel serving a WebSocket path, or nil.
func (c *Contract) Channel(path string) *Channel {
	path = stripQuery(path)
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

func stripQuery(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[:i]
	}
	return path
}
