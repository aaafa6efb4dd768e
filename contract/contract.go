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
	"os"
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
}

// Overlaps reports whether two builds are inside each other's protocol window: each version
// is at least the other's minCompatible. This is the one window rule: pin selection and the
// window check both use it.
func (p Protocol) Overlaps(q Protocol) bool {
	return p.Version >= q.MinCompatible && q.Version >= p.MinCompatible
}

// String returns "protocol 2 (minCompatible 2)".
func (p Protocol) String() string {
	return fmt.Sprintf("protocol %d (minCompatible %d)", p.Version, p.MinCompatible)
}

// ErrUnsupported is returned for a contract of a format version this skewtest cannot read.
var ErrUnsupported = errors.New("unsupported contract version")

// Option changes how Parse reads a contract.
type Option func(*options)

type options struct {
	files fs.FS
}

// WithFiles makes Parse read the files a contract refers to (protobuf descriptor sets) from
// fsys, with paths relative to its root, instead of from the contract file's directory.
func WithFiles(fsys fs.FS) Option {
	return func(o *options) { o.files = fsys }
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
