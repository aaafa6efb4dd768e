// Package harness plans pairings and runs them: it starts each pairing's drivers and wire
// tap, drives the journey step by step, owns every process's lifetime, and hands the
// transcript to the checkers.
package harness

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/results"
)

// Build is one built version of the subject, as the harness needs it.
type Build struct {
	Label    string // "worktree" or a pin's ref
	Revision string // commit, or "worktree"
	Dir      string // the build's output directory: drivers run here
	// Host is the host driver's argv; Clients maps client kind to argv.
	Host     []string
	Clients  map[string][]string
	Contract *contract.Contract
	// ContractFrom says where Contract came from when not from the build's own checkout: a
	// versions row of the working tree, or the working tree laid over it; "" otherwise.
	ContractFrom string
	// Transport is how the build's host serves, from its skewtest.yaml's channels; the zero
	// value is WebSocket.
	Transport builds.Transport
	// CA is the run's certificate authority for TLS transports, the same for every build of
	// the run (see CA); whoever made the builds closes it when the run ends. Nil: a host
	// that serves TLS cannot be tapped (a build made only to plan, or to build).
	CA *CA
	// Err is set when the build failed: its pairings are errors, not findings.
	Err error
	// Env is added to the environment of this build's drivers (a negative control can
	// mutate one build through a switch its drivers read).
	Env []string
	// Journeys says the build's drivers define the journeys' actions (the working tree,
	// whose journeys they are): an action its driver does not announce in its hello is a
	// typo in the journey, reported through Options.OnUsage, not a finding.
	Journeys bool
	// DriverAt says where a driver is declared ("skewtest.yaml:9"): the host's for kind "",
	// else the client's of kind; nil when unknown. Messages about a driver name it.
	DriverAt func(kind string) string
}

// FrameNames lists the frame names the contracts of the builds declare, sorted, each once.
func FrameNames(bs ...*Build) []string {
	return channelNames(bs, func(ch *contract.Channel) []string {
		var out []string
		for _, f := range ch.Frames {
			out = append(out, f.Name)
		}
		return out
	})
}

// WhereKeys returns the bare keys a journey's where clause may name for a frame, by the
// contracts of the builds: the frame's header fields and binary payload fields (CheckWhere).
func WhereKeys(bs ...*Build) func(frame string) []string {
	return func(frame string) []string {
		var out []string
		for _, b := range bs {
			for _, k := range checks.WhereKeys(b.Contract, frame) {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		slices.Sort(out)
		return out
	}
}

// CommandNames lists the command ids the contracts of the builds declare, sorted, each once.
func CommandNames(bs ...*Build) []string {
	return channelNames(bs, func(ch *contract.Channel) []string {
		var out []string
		for _, c := range ch.Commands {
			out = append(out, c.ID)
		}
		return out
	})
}

// channelNames is what names gives for every channel of the builds' contracts, sorted, each
// once.
func channelNames(bs []*Build, names func(*contract.Channel) []string) []string {
	var out []string
	for _, b := range bs {
		if b.Contract == nil {
			continue
		}
		for i := range b.Contract.Channels {
			for _, n := range names(&b.Contract.Channels[i]) {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// argv resolves a driver command: a first word starting with "./" is relative to Dir.
func (b *Build) argv(cmd []string) []string {
	out := append([]string(nil), cmd...)
	if len(out) > 0 && strings.HasPrefix(out[0], "./") {
		out[0] = filepath.Join(b.Dir, out[0])
	}
	return out
}

// Kinds lists the client kinds the build has drivers for.
func (b *Build) Kinds() []string {
	var out []string
	for k := range b.Clients {
		out = append(out, k)
	}
	return out
}

func (b *Build) String() string {
	if b.Revision == "" || b.Revision == results.WorktreeLabel || b.Revision == b.Label {
		return b.Label
	}
	return fmt.Sprintf("%s (%.10s)", b.Label, b.Revision)
}
