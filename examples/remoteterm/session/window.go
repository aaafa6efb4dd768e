package session

import (
	"errors"
	"fmt"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

// Window is one peer's protocol window: the version it speaks and the oldest it accepts.
type Window struct {
	Version       int `json:"protocolVersion"`
	MinCompatible int `json:"minCompatibleProtocolVersion"`
}

// WindowOf is the session protocol window of a release.
func WindowOf(rel release.Features) Window {
	return Window{Version: rel.SessionProtocol, MinCompatible: rel.SessionMinCompatible}
}

func (w Window) String() string { return fmt.Sprintf("%d (min %d)", w.Version, w.MinCompatible) }

// Side names one of the two peers of a compatibility check.
type Side string

// The sides of CheckProtocolCompatibility.
const (
	Local  Side = "local"
	Remote Side = "remote"
)

// Compatibility is the outcome of CheckProtocolCompatibility. When Compatible is false,
// Outside names the side whose version falls outside the other's window and Reason says so
// in words.
type Compatibility struct {
	Compatible    bool
	Outside       Side
	Reason        string
	Local, Remote Window
}

// Explain restates Reason with the two sides named (say "host" and "client").
func (c Compatibility) Explain(local, remote string) string {
	switch c.Outside {
	case Remote:
		return fmt.Sprintf("%s protocol %d is below the %s minimum %d", remote, c.Remote.Version, local, c.Local.MinCompatible)
	case Local:
		return fmt.Sprintf("%s protocol %d is below the %s minimum %d", local, c.Local.Version, remote, c.Remote.MinCompatible)
	}
	return fmt.Sprintf("%s %s and %s %s are compatible", local, c.Local, remote, c.Remote)
}

// ErrIncompatibleProtocol: the two peers are outside each other's protocol window.
var ErrIncompatibleProtocol = errors.New("incompatible protocol")

// CheckProtocolCompatibility is the symmetric window check both peers run: two peers are
// compatible when each one's version is at least the other's minimum.
func CheckProtocolCompatibility(local, remote Window) Compatibility {
	if remote.Version < local.MinCompatible {
		c := Compatibility{Outside: Remote, Local: local, Remote: remote}
		c.Reason = c.Explain("local", "remote")
		return c
	}
	if local.Version < remote.MinCompatible {
		c := Compatibility{Outside: Local, Local: local, Remote: remote}
		c.Reason = c.Explain("local", "remote")
		return c
	}
	return Compatibility{Compatible: true, Local: local, Remote: remote}
}
