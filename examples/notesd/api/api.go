// Package api is notesd's JSON-RPC vocabulary: method names, capabilities, error codes and
// the shapes of params and results, shared by the host and the clients. Which fields a
// release sends is decided where they are filled in (host, client), from release.Features.
package api

import "github.com/creachadair/jrpc2"

// Methods a client calls.
const (
	// Open starts a session: the client says who it is, its protocol window and the
	// capabilities it declares; the host answers with its window and the capabilities it
	// accepts. Every other method needs an open session.
	Open = "session.open"
	// Put writes a note (a new revision).
	Put = "notes.put"
	// Get reads a note; an unknown id is an error reply with CodeNotFound.
	Get = "notes.get"
	// List reads every note and the current cursor.
	List = "notes.list"
	// Changes reads every revision written after a cursor: how a client catches up.
	Changes = "notes.changes"
	// Search finds notes by text or tag (worktree).
	Search = "notes.search"
)

// Changed is the notification the host pushes to sessions that negotiated CapPush when a
// note is written by someone else.
const Changed = "notes.changed"

// Notice and Ack are asynchronous traffic that every release tolerates and only builds with
// a switch send (release.Features NoticeAfterReply, DoubleAck): the host's notice, pushed in
// its own message right after a reply, and a client's acknowledgement of a notification.
// Neither is answered.
const (
	Notice = "notes.notice"
	Ack    = "notes.ack"
)

// Keepalive is the notification a host sends on a timer, without params, to a session that
// negotiated CapKeepalive (only builds with the Keepalive switch do): it says nothing but
// that the connection is alive, and is not answered.
const Keepalive = "notes.keepalive"

// Capabilities a client declares in session.open.
const (
	// CapPush: send me notes.changed.
	CapPush = "push"
	// CapSlimPush: notes.changed may leave the text out; I fetch it (worktree).
	CapSlimPush = "slimPush"
	// CapKeepalive: send me notes.keepalive on a timer (only builds with the Keepalive
	// switch declare or accept it).
	CapKeepalive = "keepalive"
)

// Application error codes (JSON-RPC reserves -32768..-32000 for itself; these sit in the
// implementation-defined server range, as jrpc2's own do).
const (
	// CodeNotFound: no note with that id.
	CodeNotFound jrpc2.Code = -32004
	// CodeNoSession: the connection has not opened a session.
	CodeNoSession jrpc2.Code = -32003
	// CodeIncompatible: the peers are outside each other's protocol window.
	CodeIncompatible jrpc2.Code = -32010
)

// OpenParams are session.open's params.
type OpenParams struct {
	Client        string   `json:"client"`  // the client kind
	Version       string   `json:"version"` // the client's release
	Protocol      int      `json:"protocol"`
	MinCompatible int      `json:"minCompatible"`
	Capabilities  []string `json:"capabilities"`
}

// OpenResult is session.open's result.
type OpenResult struct {
	Session       string   `json:"session"`
	Server        string   `json:"server"` // the host's release
	Protocol      int      `json:"protocol"`
	MinCompatible int      `json:"minCompatible"`
	Capabilities  []string `json:"capabilities"` // the declared capabilities the host accepts
	Cursor        int64    `json:"cursor"`       // the store's change counter now
}

// Incompatible is the data of a CodeIncompatible error: the refusing side's window.
type Incompatible struct {
	Protocol      int `json:"protocol"`
	MinCompatible int `json:"minCompatible"`
}

// PutParams are notes.put's params.
type PutParams struct {
	ID   string   `json:"id"`
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"` // v0.3.0
}

// PutResult is notes.put's result.
type PutResult struct {
	ID     string `json:"id"`
	Rev    int64  `json:"rev"`
	Cursor int64  `json:"cursor"`
}

// GetParams are notes.get's params.
type GetParams struct {
	ID string `json:"id"`
}

// Note is a note as results and notifications carry it. Rev is a pointer so a host can
// leave it out (the hideRev negative control); Text, so notes.changed can (slim push).
type Note struct {
	ID   string   `json:"id"`
	Text *string  `json:"text,omitempty"`
	Tags []string `json:"tags,omitempty"` // v0.3.0
	Rev  *int64   `json:"rev,omitempty"`
}

// ListResult is notes.list's result.
type ListResult struct {
	Notes  []Note `json:"notes"`
	Cursor int64  `json:"cursor"`
}

// ChangesParams are notes.changes' params.
type ChangesParams struct {
	Since int64 `json:"since"`
}

// ChangesResult is notes.changes' result: every revision after Since, oldest first.
type ChangesResult struct {
	Changes []Note `json:"changes"`
	Cursor  int64  `json:"cursor"`
}

// SearchParams are notes.search's params.
type SearchParams struct {
	Query string `json:"query"`
}

// SearchResult is notes.search's result.
type SearchResult struct {
	Notes []Note `json:"notes"`
}

// ChangedParams are notes.changed's params.
type ChangedParams struct {
	Note
	Cursor int64 `json:"cursor"`
}

// NoticeParams are notes.notice's params: the connection's count of notices.
type NoticeParams struct {
	Seq int64 `json:"seq"`
}

// AckParams are notes.ack's params: which notification it acknowledges (its method, and
// the notice's seq or the change's cursor).
type AckParams struct {
	Of  string `json:"of"`
	Seq int64  `json:"seq"`
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }
