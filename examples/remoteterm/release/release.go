// Package release says which release of remoteterm this tree is and what that release does.
//
// Every tag of remoteterm's history is this same source tree with a different release.json
// (written by `skewtest example` from history.yaml). Code consults Current() where a release
// changed behaviour, so each tag's binary behaves exactly as that release shipped, bugs
// included. The table of what changed when lives in history.yaml, in one place.
package release

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed release.json
var releaseJSON []byte

// Features is what one release ships. The zero value is the first release's behaviour.
type Features struct {
	// Version is the release's tag, or "worktree".
	Version string `json:"version"`

	// Terminal stream.
	Ack           bool `json:"ack"`           // v1.4.146: Ack (13); desktop acks payload bytes
	ClaimViewport bool `json:"claimViewport"` // v1.4.146: ClaimViewport (14), followed by Resize
	// OutputSpan (15) exists and the desktop decoder knows it (v1.4.147).
	OutputSpan bool `json:"outputSpan"`
	// SubscribeSpanGate: terminal.subscribe sends OutputSpan only to a client that declared
	// outputSpan, and downgrades transformed runs to text otherwise (v1.4.173).
	SubscribeSpanGate bool `json:"subscribeSpanGate"`
	// MultiplexSpanGate: terminal.multiplex sends OutputSpan only to a client that declared
	// outputSpan, and downgrades transformed runs to text otherwise (v1.4.180, the bug).
	MultiplexSpanGate bool `json:"multiplexSpanGate"`
	// DesktopDeclaresOutputSpan: the desktop client declares outputSpan:1 (v1.4.180 .. v1.4.189).
	DesktopDeclaresOutputSpan bool `json:"desktopDeclaresOutputSpan"`
	// TransformedRunsOption: the chunker takes transformedRuns: span | downgrade-to-text and
	// multiplex always frames transformed runs as OutputSpan (v1.4.190).
	TransformedRunsOption bool `json:"transformedRunsOption"`
	// LegacyDesktopSeqRebase: for a desktop client that shows no sign of knowing OutputSpan
	// (it declares none of outputSpan, ackOutput, ackOutputSourceRanges), the host downgrades
	// transformed runs to text and rebases every seq it sends that client onto the display
	// length, so the client's gap detection stays consistent (worktree: the negotiated fix).
	LegacyDesktopSeqRebase bool `json:"legacyDesktopSeqRebase"`
	ClientAckOutput        bool `json:"clientAckOutput"`       // v1.4.156: clients declare ackOutput
	ClientAckSourceRanges  bool `json:"clientAckSourceRanges"` // v1.4.157: clients declare ackOutputSourceRanges
	HostLedger             bool `json:"hostLedger"`            // v1.4.157: host keeps a source-range ledger
	OutputPause            bool `json:"outputPause"`           // v1.4.173: SetOutputPaused (16) negotiated
	WriteUnavailable       bool `json:"writeUnavailable"`      // worktree: WriteUnavailable (17) negotiated
	// PublishCwd: SnapshotStart carries cwd. v1.4.171 stopped publishing it (the bug).
	PublishCwd bool `json:"publishCwd"`
	// SnapshotOwnerFields: SnapshotStart adds optional alternateScreen and terminalOwner (worktree).
	SnapshotOwnerFields bool `json:"snapshotOwnerFields"`

	// Session frames.
	SessionProtocol      int  `json:"sessionProtocol"`      // PROTOCOL_VERSION
	SessionMinCompatible int  `json:"sessionMinCompatible"` // MIN_COMPATIBLE_PROTOCOL_VERSION
	ServerRequests       bool `json:"serverRequests"`       // daemon advertises serverRequests
	Attention            bool `json:"attention"`            // v1.4.150: daemon composes attention (presence, attentionEvent)
	// PresenceUngated: the client sends presence without checking the attention feature
	// (v1.4.165, the bug; v1.4.166 fixes it).
	PresenceUngated bool `json:"presenceUngated"`
	// CommandVersions: command id -> versions this build speaks.
	CommandVersions map[string][]int `json:"commandVersions"`
	// RoundProgressSeq: roundProgress events carry seq.
	RoundProgressSeq bool `json:"roundProgressSeq"`

	// Switches. No release turns these on: a harness turns one on in one build
	// (REMOTETERM_FEATURES, see cmd/remoteterm-driver) to make a negative control, a build
	// with one incompatibility skewtest must find, or to try a compatible change that
	// skewtest must let pass (the history's working tree can also set one in history.yaml).

	// Negative controls: each breaks one rule of the wire, on one side.
	ResizeColsAsString     bool `json:"resizeColsAsString"`     // desktop: Resize's cols is a string ("100")
	ResizeSentAsResized    bool `json:"resizeSentAsResized"`    // desktop: Resize goes out with opcode 5 (Resized, a host-to-client opcode)
	ResizeZeroRows         bool `json:"resizeZeroRows"`         // desktop: Resize asks for 0 rows, which the host rejects
	PauseIgnored           bool `json:"pauseIgnored"`           // host: SetOutputPaused is accepted but output keeps flowing
	ScrollbackRowsIgnored  bool `json:"scrollbackRowsIgnored"`  // host: a SnapshotRequest's scrollbackRows is ignored (the whole buffer is sent)
	ResizedWrongGeometry   bool `json:"resizedWrongGeometry"`   // host: Resized reports the size before the resize
	ResizeFails            bool `json:"resizeFails"`            // host: the PTY refuses every resize (reported as an internal error)
	RPCErrorWrongRequestID bool `json:"rpcErrorWrongRequestId"` // daemon: an unknown command's rpcError names the command, not the requestId
	// RPCErrorWithoutRequestID (daemon): an unknown command's rpcError carries an empty
	// requestId, as the refusal of an unreadable frame does, so it answers no request: the
	// caller never learns its call failed. An rpcError with an empty requestId is allowed
	// (the contract reserves ""), so only the rule that every request is answered once sees it.
	RPCErrorWithoutRequestID bool `json:"rpcErrorWithoutRequestId"`
	RoundProgressKeepsFirst  bool `json:"roundProgressKeepsFirst"` // session client: folds only the first roundProgress event of a review
	// StrictSessionDecoder: the session client refuses every frame that carries a key its
	// frame type does not define, breaking the rule that a newer peer may add optional fields
	// (found only by the future-peer pass: no release sends such a frame yet).
	StrictSessionDecoder bool `json:"strictSessionDecoder"`

	// Negative controls that only an edge input reaches (no journey of the subject's own
	// does; a fuzz campaign's generators must): one per generator family.

	// ChunkCutsCodePoints (host): where a multi-byte code point straddles the 48 KiB chunk
	// cap (or a multiple), the chunker ends the chunk before the code point, as it should,
	// but starts the next chunk at the cap: the code point's head is never sent and the
	// client decodes its orphaned tail. Only output with a multi-byte character across the
	// cap shows it (every journey writes ASCII).
	ChunkCutsCodePoints bool `json:"chunkCutsCodePoints"`
	// AckLedgerWraps (host): the source-range ledger keeps its byte positions in a 20-bit
	// field: once 1 MiB has been sent on a stream the committed position wraps below the
	// acknowledged one, the retained count underflows and the host parks the stream's output
	// for good (a stall). Only a stream that carries more than 1 MiB shows it (journeys write
	// ~140 KB).
	AckLedgerWraps bool `json:"ackLedgerWraps"`
	// SnapshotRowsCapped (host): a reveal snapshot keeps at most 50 rows of scrollback
	// (a fixed-size cache), whatever the SnapshotRequest asks for. Only a request for more
	// than 50 rows shows it (the journeys ask for 5).
	SnapshotRowsCapped bool `json:"snapshotRowsCapped"`
	// ResubscribeSeqAhead (host): when a client subscribes a terminal it had subscribed
	// before (a resubscribe after a reconnect), the snapshot's seq counts the output the
	// client's previous stream was sent a second time, so the snapshot claims to cover output
	// not yet written. A client that drops output the snapshot covers (desktop) then drops
	// as much of the next output as had been written before it came back. Only output after
	// a resubscribe shows it (the journeys type after theirs; nothing is written to the
	// terminal).
	ResubscribeSeqAhead bool `json:"resubscribeSeqAhead"`
	// ResizeMaxExclusive (host): the host refuses a Resize to the largest viewport the
	// clients offer (wire.MaxCols columns or wire.MaxRows rows), checking below the bound
	// where it should check up to it. Only a resize to the maximum shows it (the journeys
	// resize to 100×30 and 120×40).
	ResizeMaxExclusive bool `json:"resizeMaxExclusive"`
	// IdleCloseEarly (host): the host closes a terminal connection on which nothing has
	// happened for a second (host.IdleCloseAfter), though the contract lets a connection be
	// quiet for 3 s (the terminal channel's quiet): a client whose user reads for two
	// seconds loses its stream. Only a pause of a second or more shows it (the journeys
	// never wait that long).
	IdleCloseEarly bool `json:"idleCloseEarly"`
	// IdleDropsSilentClients (host and desktop): the host closes a terminal connection on
	// which nothing, not even a WebSocket ping, has happened for 4 s (host.IdleDropAfter),
	// which the contract allows (its terminal channel's quiet is 3 s), and the build's desktop
	// client pings every second (desktop.KeepaliveEvery), so it never looks quiet. A client
	// of an earlier release never pings: paired with this host, it loses its stream after
	// 4 s of quiet. Only a pause past the declared quiet shows it (the journeys never wait,
	// explore's idles within the quiet stop at nine tenths of it), and only differentially:
	// the build's own mobile client does not ping either, so its references show the drop
	// too, as the contract allows.
	IdleDropsSilentClients bool `json:"idleDropsSilentClients"`
	// InputTruncated (host): the host keeps at most host.InputBufferBytes (4 KiB) of one
	// Input frame, a fixed read buffer, and drops the rest. Only input larger than that shows
	// it (the journeys type a few dozen bytes).
	InputTruncated bool `json:"inputTruncated"`
	// SnapshotResumeOffByOne (host): a snapshot taken mid-stream (the terminal has written
	// output since it started) for a subscribe or a resubscribe names a resume point one byte
	// past the output it covers, so a client that drops output its snapshot covers (desktop)
	// drops the first byte of the next output. Only output right after such a snapshot shows
	// it (the journeys subscribe before any output, and write nothing after their reveal and
	// resubscribe).
	SnapshotResumeOffByOne bool `json:"snapshotResumeOffByOne"`
	// UnknownCommandErrorCached (daemon): the rpcError answering an unknown command is kept
	// per connection and command name, and a second call of the same unknown command on the
	// connection is answered with the kept frame, which names the first call's requestId: the
	// second request is never answered, and its reply answers one already answered. Only the
	// same unknown command called twice on one connection shows it (the journey probes once).
	UnknownCommandErrorCached bool `json:"unknownCommandErrorCached"`
	// RoundProgressArrivalOrder (session client): roundProgress events are merged in
	// arrival order, their seq ignored, so a late or duplicated event rolls the merged state
	// back. Only events out of order or twice show it (the journeys send them in order).
	RoundProgressArrivalOrder bool `json:"roundProgressArrivalOrder"`
	// OlderCommandVersionRefused (daemon): a request that names a version of a command below
	// the newest one the daemon speaks is answered unsupported_version, as if the daemon
	// spoke only its newest version. Only an explicit call of an older version by a client
	// that speaks a newer one shows it (the journeys call the highest version both speak,
	// and the older clients that call review.start at 1 are outside the window of a daemon
	// with two versions of it).
	OlderCommandVersionRefused bool `json:"olderCommandVersionRefused"`
	// ProgressUnknownFieldDropped (session client): a roundProgress event that carries a key
	// besides the ones its schema defines (phase) is dropped from the merge, breaking the
	// rule that a later daemon may add optional fields to an event. Only events with such a
	// field show it (the journeys send {"phase"} alone, and the future-peer pass adds fields
	// only to objects the contract lists fields for, which the event is not).
	ProgressUnknownFieldDropped bool `json:"progressUnknownFieldDropped"`

	// LoseOutputOnce (desktop) names a file: the bytes of the first Output frame the client
	// receives while the file does not exist never reach the screen (its seq is kept, so no
	// resync recovers them), and the file is created. A client that loses output once and
	// never again, in whichever process of the build comes first: the negative control of a
	// flaky verdict (--retries, a fuzz campaign's confirming run).
	LoseOutputOnce string `json:"loseOutputOnce,omitempty"`
	// FlakyWithClient (daemon) names a session client's release and a file: in the first
	// session a client of that release opens while the file does not exist, the daemon
	// sends its first response twice (one request answered twice, which the client refuses
	// the second time), and the file is created; every other session is answered right. A
	// pairing of this build with that release fails once and then passes: the negative
	// control of a flaky bisect candidate (bisect --retries,
	// cmd/skewtest/e2e_bisect_test.go). See Flaky for why a reference never trips it.
	FlakyWithClient *Flaky `json:"flakyWithClient,omitempty"`

	// Compatible changes: each adds to the wire without breaking a released peer.
	SnapshotCursor   bool `json:"snapshotCursor"`   // host: SnapshotStart adds an optional cursor {row, col}
	TitleFrame       bool `json:"titleFrame"`       // host and desktop: Title (18), gated on a new capability title
	MetadataOnResize bool `json:"metadataOnResize"` // host: Metadata (12, every release decodes it) before each Resized
	ReviewComment    bool `json:"reviewComment"`    // daemon: a new command review.comment v1
	ReviewLabels     bool `json:"reviewLabels"`     // daemon: advertises a new feature reviewLabels
}

// Flaky is the FlakyWithClient switch: which session client it misbehaves with, and the
// file that says it has. The daemon learns a client's release from the User-Agent of its
// WebSocket handshake (session.UserAgent), the only place a session client names it.
//
// A reference pairs a build with itself, and the switch never trips for a client of the
// daemon's own release, so a reference run with the switch on always passes: a matrix (and
// each of bisect's candidates, whose references run before the pairing) stays checkable.
// Keyed on one release, it reaches the pairing of one candidate of a bisection whose fixed
// side is the daemon (the fixed side's build label is the one --env can name in every
// candidate's run) and leaves the others, the walk's ends included, alone. It misbehaves
// once, not on every other session: how many sessions an attempt opens does not change
// which attempt fails (the first).
type Flaky struct {
	// Version is the session client's release, e.g. "v1.4.165-dev.1" (the first commit
	// towards v1.4.165, history.yaml).
	Version string `json:"version"`
	// File is created by the session that misbehaves; while it exists none does.
	File string `json:"file"`
}

// Current is this build's release.
func Current() Features {
	f, err := Parse(releaseJSON)
	if err != nil {
		// release.json is written by the history generator and embedded at build time; a tree
		// whose release.json does not parse must not build a driver that pretends otherwise.
		panic(fmt.Sprintf("release.json: %v", err))
	}
	return f
}

// Parse reads a release.json document. Unknown keys are an error, so a typo in history.yaml
// cannot silently turn a behaviour off.
func Parse(b []byte) (Features, error) {
	var f Features
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Features{}, err
	}
	if f.SessionProtocol == 0 {
		f.SessionProtocol = 1
	}
	if f.SessionMinCompatible == 0 {
		f.SessionMinCompatible = 1
	}
	return f, nil
}
