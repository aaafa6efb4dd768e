package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

var (
	// ErrNoSharedVersion: the two peers speak no common version of the command (or one of
	// them does not speak the command at all).
	ErrNoSharedVersion = errors.New("no shared command version")
	// ErrImplicitVersion: a request for a command spoken in more than one version named no
	// version. Such a request is never encoded: the receiver could not tell which payload
	// shape it holds.
	ErrImplicitVersion = errors.New("multi-version command without an explicit version")
)

// ChooseVersion picks the highest version of a command that both peers speak.
func ChooseVersion(command string, own, peer []int) (int, error) {
	best := 0
	for _, v := range own {
		if v > best && slices.Contains(peer, v) {
			best = v
		}
	}
	switch {
	case best != 0:
		return best, nil
	case len(own) == 0:
		return 0, fmt.Errorf("command %s: this build does not speak it: %w", command, ErrNoSharedVersion)
	case len(peer) == 0:
		return 0, fmt.Errorf("command %s: the peer does not speak it: %w", command, ErrNoSharedVersion)
	}
	return 0, fmt.Errorf("command %s: we speak %v, the peer %v: %w", command, sortedVersions(own), sortedVersions(peer), ErrNoSharedVersion)
}

// EncodeRequest is the versioned request encoder. spoken is what the sender speaks
// (command id -> versions). It refuses a command the sender does not speak, a version it
// does not speak, and a request without a version for a command spoken in more than one.
// A request without a version for a single-version command is encoded as it is (what a
// legacy sender did), and the daemon reads it as that one version.
func EncodeRequest(r Request, spoken map[string][]int) ([]byte, error) {
	versions, ok := spoken[r.Command]
	switch {
	case !ok:
		return nil, fmt.Errorf("encode request %s: command %s: %w", r.RequestID, r.Command, ErrNoSharedVersion)
	case r.Version == 0 && len(versions) > 1:
		return nil, fmt.Errorf("encode request %s: command %s speaks %v: %w", r.RequestID, r.Command, sortedVersions(versions), ErrImplicitVersion)
	case r.Version != 0 && !slices.Contains(versions, r.Version):
		return nil, fmt.Errorf("encode request %s: command %s version %d, we speak %v: %w", r.RequestID, r.Command, r.Version, sortedVersions(versions), ErrNoSharedVersion)
	}
	if len(r.Input) == 0 {
		r.Input = json.RawMessage(`{}`)
	}
	return Encode(r)
}
