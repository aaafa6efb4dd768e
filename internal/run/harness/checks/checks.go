// Package checks turns a pairing's transcript into findings. Every check is a pure function
// of the transcript, the journey and the two builds' contracts: no processes, no sockets.
package checks

import (
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Input is what every check reads.
type Input struct {
	Transcript *transcript.Transcript
	Journey    *journeys.Journey
	Host       *contract.Contract // the host build's contract
	Client     *contract.Contract // the client build's contract
	// Reference is the client build's own reference transcript (the client build as host and
	// as client) for the same journey and kind, when it ran; nil otherwise.
	Reference *transcript.Transcript
	// HostReference is the host build's own reference transcript (the host build as host
	// and as client) for the same journey and kind, when it ran; nil otherwise.
	HostReference *transcript.Transcript
	// Support says whether the working tree's support policy requires this pairing to work
	// (one side is the working tree, the other a release it must serve).
	Support Support
	// ClientOlder says the client build is an older release than the host build (the order
	// is the caller's: checks know no version scheme).
	ClientOlder bool
	// Streams, when set, is the reader the pairing's journey read its streams with: the
	// checks continue its folds of cumulative streams instead of folding them again.
	Streams *StreamReader
	// Channels, when set, is the channel each journey line's conditions are about, as
	// ConditionChannels decided it for the pairing's contracts; nil: decided when needed.
	Channels map[int]CondChannel

	// named is NameFrames' answer for the first namedFor frames: every check reads the named
	// frames, and naming decodes each frame with the contracts.
	named    []Named
	namedFor int
}

// Protocol is the protocol version the pairing's builds speak with each other (0: their
// contracts do not say), which versioned fields and variants are read at: each build's own,
// from its contract (contract.Negotiated; the client's for its kind, contract.Protocol.Client),
// decided before anything runs, never from traffic.
func (in *Input) Protocol() int {
	if in.Host == nil || in.Client == nil {
		return 0
	}
	return contract.Negotiated(in.Host.Protocol, in.clientProtocol())
}

// clientProtocol is the protocol window the client build's contract gives its clients of the
// pairing's kind.
func (in *Input) clientProtocol() contract.Protocol {
	return in.Client.Protocol.Client(in.Transcript.Kind)
}

// Support is what the working tree's support policy says of a pairing.
type Support struct {
	// Required is set when the pairing must work: Why names the rule. Cut, when set, is
	// the reason the policy gives for no longer serving the release on purpose.
	Required bool
	Why, Cut string
	// Release is the release's label and role ("client v1.4.166").
	Release string
}

// Check is one kind of check.
type Check func(in *Input) []results.Finding

// All lists the checks in the order their findings are reported.
func All() []Check {
	return []Check{DriverErrors, Stall, Incomplete, WindowViolation, DecoderRefusal, FieldMismatch, CapabilityMismatch, CommandVersions, Invariants, PublishedFieldRemoved, SequenceDrift, Differential, Unexpected, DataLoss, FinalState}
}

// Run runs every check, its findings bounded (Bound).
func Run(in *Input) []results.Finding {
	findings := []results.Finding{}
	for _, c := range All() {
		findings = append(findings, c(in)...)
	}
	return Bound(findings)
}
