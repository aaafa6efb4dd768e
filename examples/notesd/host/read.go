package host

import (
	"context"
	"errors"
	"strings"

	"github.com/creachadair/jrpc2"

	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// Request is one request or notification of a client's message as a host reads it: what its
// server hands the method's handler.
type Request struct {
	// Method is the request's method; ID its id as sent (JSON), "" for a notification.
	Method, ID string
	// Params are the params as the method's handler takes them (api.PutParams, …); nil for
	// a method that takes none.
	Params any
	// Err, a *RefusalError, is set instead when the host refuses the request before any
	// handler runs.
	Err error
}

// RefusalError is a client's message, or one request of a batch, that a host refuses as
// soon as it reads it: its server answers it with an error reply, drops it (a notification)
// or stops (a message that is not text).
type RefusalError struct {
	// Method is the request's method, when it has one.
	Method string
	// Reason is why: the host's refused observation's words for a method it does not serve,
	// else jrpc2's error reply (Reason) or the channel's error.
	Reason string
}

func (e *RefusalError) Error() string { return e.Reason }

// ReadFromClient reads one WebSocket message from a client as a host of release f does, as
// far as the message alone decides: it is parsed by jrpc2 (wsrpc.Read) and each request is
// assigned and its params decoded as the connection's server does, with the same method
// table (methods: what this release serves) and the same handler wrappers. batch reports a
// JSON array. A message refused whole is a *RefusalError; a request refused alone has its
// Err. What a handler then does depends on the connection (a session must be open first).
func ReadFromClient(f release.Features, binary bool, b []byte) (reqs []Request, batch bool, err error) {
	msgs, batch, err := wsrpc.Read(binary, b)
	switch {
	case errors.Is(err, wsrpc.ErrBinary):
		return nil, false, &RefusalError{Reason: err.Error()}
	case err != nil:
		return nil, false, &RefusalError{Reason: wsrpc.Reason(err)}
	case len(msgs) == 0:
		// jrpc2's server answers an empty batch with this error.
		return nil, true, &RefusalError{Reason: jrpc2.Errorf(jrpc2.InvalidRequest, "empty request batch").Error()}
	}
	table := methods(f)
	reqs = make([]Request, len(msgs))
	for i, m := range msgs {
		reqs[i] = readRequest(table, m.Parsed)
	}
	return reqs, batch, nil
}

// readRequest is one parsed message as jrpc2's server, assigning with table, takes it.
func readRequest(table map[string]method, p *jrpc2.ParsedRequest) Request {
	r := Request{Method: p.Method, ID: p.ID}
	refuse := func(reason string) Request {
		r.Err = &RefusalError{Method: p.Method, Reason: reason}
		return r
	}
	notification := p.ID == ""
	switch {
	case p.Error != nil:
		return refuse(wsrpc.Reason(p.Error))
	case p.Method == "":
		// A reply (the host calls nothing back) or a request without a method.
		return refuse(jrpc2.Errorf(jrpc2.InvalidRequest, "empty method name").Error())
	case p.Method == "rpc.serverInfo":
		return r // jrpc2's server answers it itself, with Names
	case strings.HasPrefix(p.Method, "rpc."):
		return refuse(jrpc2.MethodNotFound.String() + " (rpc. names are jrpc2's)")
	}
	m, ok := table[p.Method]
	if !ok {
		return refuse(notServed(p.Method, notification).Reason)
	}
	v, err := m.read(context.Background(), p.ToRequest())
	if err != nil {
		return refuse(wsrpc.Reason(err))
	}
	r.Params = v
	return r
}

// notServed is the refusal of a method this release does not serve: jrpc2 answers a call
// with MethodNotFound and drops a notification without a word.
func notServed(method string, notification bool) *RefusalError {
	reason := "method not found"
	if notification {
		reason = "method not found (a notification: dropped without a reply)"
	}
	return &RefusalError{Method: method, Reason: reason}
}
