package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/creachadair/jrpc2"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// Message is one message of a host's WebSocket message as a client reads it: a
// notification its handler takes, or a reply its pending call takes.
type Message struct {
	// Method is a notification's method; "" for a reply.
	Method string
	// ID is a reply's id as sent (JSON): the call it answers.
	ID string
	// Params are a notification's params as the client's handler takes them
	// (api.ChangedParams, api.NoticeParams; nil for notes.keepalive).
	Params any
	// Result is a reply's result as sent: which call it answers, and so the type the call
	// reads it into, is the connection's to say. Error is an error reply's error.
	Result json.RawMessage
	Error  *jrpc2.Error
	// Err, a *RefusalError, is set instead when the client refuses or drops the message.
	Err error
}

// RefusalError is a host's message, or one message of a batch, that a client refuses or
// drops as soon as it reads it.
type RefusalError struct {
	// Method is a notification's method, when it has one.
	Method string
	// Reason is why: the client's refused observation's words for a notification, else
	// jrpc2's error (wsrpc.Reason) or the channel's.
	Reason string
}

func (e *RefusalError) Error() string { return e.Reason }

// ReadFromHost reads one WebSocket message from the host as a client of kind and release f
// does, as far as the message alone decides: it is parsed by jrpc2 (wsrpc.Read) and each
// message goes where jrpc2's client sends it, a notification to the client's handler
// (readNotification, which onNotify calls), a reply to the call it answers, which is assumed
// pending. batch reports a JSON array. A message refused whole is a *RefusalError (the
// client stops on a message jrpc2 cannot parse); one message refused alone has its Err.
func ReadFromHost(f release.Features, kind string, binary bool, b []byte) (msgs []Message, batch bool, err error) {
	parsed, batch, err := wsrpc.Read(binary, b)
	switch {
	case errors.Is(err, wsrpc.ErrBinary):
		return nil, false, &RefusalError{Reason: err.Error()}
	case err != nil:
		return nil, false, &RefusalError{Reason: wsrpc.Reason(err)}
	case len(parsed) == 0:
		return nil, true, &RefusalError{Reason: "an empty batch: jrpc2's client has nothing to deliver"}
	}
	msgs = make([]Message, len(parsed))
	for i, m := range parsed {
		msgs[i] = readMessage(f, kind, m)
	}
	return msgs, batch, nil
}

// readMessage is one parsed message as jrpc2's client delivers it (Client.deliverLocked).
func readMessage(f release.Features, kind string, m wsrpc.Message) Message {
	p := m.Parsed
	out := Message{ID: p.ID}
	refuse := func(reason string) Message {
		out.Err = &RefusalError{Method: out.Method, Reason: reason}
		return out
	}
	if m.IsRequest() {
		out.Method = p.Method
		if p.ID != "" {
			// The client serves no callbacks (ClientOptions.OnCallback): jrpc2 discards them.
			return refuse(fmt.Sprintf("no handler for callback %s: discarded", p.Method))
		}
		// jrpc2 hands every notification to OnNotify, valid or not.
		params, err := readNotification(f, kind, p.ToRequest())
		if err != nil {
			return refuse(err.Error())
		}
		out.Params = params
		return out
	}
	switch {
	case p.Error != nil:
		return refuse(wsrpc.Reason(p.Error)) // the pending call fails with it
	case m.ReplyError() != nil:
		out.Error = m.ReplyError()
		return out
	}
	result, ok := m.Keys["result"]
	if !ok {
		var v any
		return refuse(json.Unmarshal(nil, &v).Error()) // every call reads a result
	}
	out.Result = result
	return out
}

// readNotification reads a notification from the host as a client of kind and release f
// handles it: notes.notice (every release, read tolerantly: only an acknowledgement depends
// on it), notes.keepalive where the release knows it (its params, if any, ignored: nil) and,
// for a sync client with push, notes.changed, whose note is read as the release reads notes
// (readNote). Any other notification has no handler and is dropped; so are params that do
// not decode. The error is the client's refused observation's reason.
func readNotification(f release.Features, kind string, req *jrpc2.Request) (any, error) {
	switch {
	case req.Method() == api.Notice:
		var p api.NoticeParams
		_ = req.UnmarshalParams(&p)
		return p, nil
	case req.Method() == api.Keepalive && f.KeepaliveKnown:
		return nil, nil
	case req.Method() != api.Changed || !f.Push || kind != KindSync:
		return nil, errors.New("no handler for notification " + req.Method())
	}
	var p api.ChangedParams
	if err := req.UnmarshalParams(&p); err != nil {
		return nil, err
	}
	p.Note = readNote(f, p.Note)
	return p, nil
}

// readNote is a note (of notes.changed or notes.changes) as release f reads it. Releases
// before slim push read the text as a plain string: a note without one is an empty note
// (the v0.3.0 skew bug). From slim push on, a missing text stays missing and the client
// fetches it.
func readNote(f release.Features, n api.Note) api.Note {
	if n.Text == nil && !f.SlimPush {
		n.Text = api.Ptr("")
	}
	return n
}
