// Package release says which release of notesd this tree is and what that release does.
//
// Every tag of notesd's history is this same source tree with a different release.json
// (written by `skewtest example` from history.yaml) and, where a release pinned another
// version of a library, its own go.mod and go.sum (history/<tag>/). Code consults the
// Features it is given where a release changed behaviour; only the driver's main calls
// Current. The table of what changed when lives in history.yaml, in one place.
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

	// Protocol and MinCompatible are this build's protocol window: it speaks Protocol and
	// talks to peers whose protocol is at least MinCompatible (0 means 1).
	Protocol      int `json:"protocol"`
	MinCompatible int `json:"minCompatible"`

	// Push: the host accepts the push capability and sends notes.changed to sessions that
	// negotiated it; the sync client declares push and applies what it is sent (v0.2.0).
	Push bool `json:"push"`
	// Tags: notes carry an optional tags list (v0.3.0).
	Tags bool `json:"tags"`
	// SlimPush: the host leaves the text out of notes.changed and the sync client fetches it
	// with notes.get when it is missing (v0.3.0, the bug: a v0.2.0 sync client applies an
	// empty note).
	SlimPush bool `json:"slimPush"`
	// SlimPushNegotiated: the text is left out only for sessions that declared the slimPush
	// capability, which the sync client now declares (worktree: the fix).
	SlimPushNegotiated bool `json:"slimPushNegotiated"`
	// Search: the host serves notes.search and the cli client uses it (worktree).
	Search bool `json:"search"`
	// KeepaliveKnown: the clients know notes.keepalive and take it without a word, and the
	// release's contract lists it, periodic, with the keepalive capability that gates it
	// (worktree). Nothing sends it, and no client declares the capability, without the
	// Keepalive switch.
	KeepaliveKnown bool `json:"keepaliveKnown"`
	// Compress: the host accepts permessage-deflate and the Go clients offer it, so their
	// WebSocket messages cross the wire compressed where both ends have it (worktree).
	Compress bool `json:"compress"`

	// Negative-control switches: no release ships them; NOTESD_FEATURES turns them on.
	//
	// PushUngated: the host pushes notes.changed to every session, negotiated or not.
	PushUngated bool `json:"pushUngated"`
	// HideRev: the host stops publishing rev in notes.get and notes.list results.
	HideRev bool `json:"hideRev"`
	// PutSendsContent: the web client (web/, JavaScript, from v0.3.0) sends a note's text
	// in notes.put under "content" instead of "text". The Go packages do not read it; it is
	// here because this table is the whole product's (web/release.js reads the same keys).
	PutSendsContent bool `json:"putSendsContent"`
	// DropPushInCall: the sync client drops a notes.changed notification that arrives while
	// one of its own calls waits for its reply (a client that reads only its reply while it
	// waits). A race, not a skew: only a push that is late, landing during the client's next
	// call, shows it.
	DropPushInCall bool `json:"dropPushInCall"`
	// Keepalive: the host accepts the keepalive capability and sends notes.keepalive every
	// KeepaliveEvery (package host) to each session that negotiated it, from its
	// session.open reply on; the clients (cli, sync, web) declare it. Timer traffic, not a
	// skew: the contract marks the frame periodic, so wherever the timer fires in a journey
	// it is checked but not compared by step. Only builds that know the frame
	// (KeepaliveKnown) take it without a word.
	Keepalive bool `json:"keepalive"`

	// Asynchronous traffic: compatible switches (every release tolerates both frames) that
	// put frames on the wire after the exchange a journey waits for, so they may arrive after
	// a step's last barrier. skewtest's stability benchmark (scripts/stability.sh) turns
	// them on in every build: verdicts must not depend on when such a frame lands.
	//
	// NoticeAfterReply: right after each reply, the host pushes notes.notice to the
	// connection, in its own message.
	NoticeAfterReply bool `json:"noticeAfterReply"`
	// DoubleAck: a client acknowledges every notification it handles twice (notes.ack).
	DoubleAck bool `json:"doubleAck"`
}

// Window returns the protocol window with its defaults: (version, minimum compatible).
func (f Features) Window() (version, minCompatible int) {
	version, minCompatible = f.Protocol, f.MinCompatible
	if version == 0 {
		version = 1
	}
	if minCompatible == 0 {
		minCompatible = 1
	}
	return version, minCompatible
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

// Parse reads a release.json document. Unknown keys are an error, so a typo in
// history.yaml cannot silently turn a behaviour off.
func Parse(b []byte) (Features, error) {
	var f Features
	if err := decodeStrict(b, &f); err != nil {
		return Features{}, err
	}
	return f, nil
}

// Override lays the fields of a JSON object over f (the NOTESD_FEATURES switch); unknown
// keys are an error. An empty document changes nothing.
func Override(f Features, doc string) (Features, error) {
	if doc == "" {
		return f, nil
	}
	if err := decodeStrict([]byte(doc), &f); err != nil {
		return f, fmt.Errorf("features %s: %w", doc, err)
	}
	return f, nil
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
