package host

import (
	"context"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/release"
)

// method is one JSON-RPC method a host serves: its handler on a connection, and read, which
// reads a request's params exactly as that handler does (jrpc2's handler package over the
// same argument type, then what the release makes of them) and answers them instead of
// acting on them.
type method struct {
	serve func(c *conn) jrpc2.Handler
	read  jrpc2.Handler
}

// methods are the methods a host of release f serves, by name: the one table a connection's
// server (conn.Assign) and ReadFromClient consult.
func methods(f release.Features) map[string]method {
	m := map[string]method{
		api.Open:    takes((*conn).openSession, nil),
		api.Put:     takes((*conn).put, func(p api.PutParams) api.PutParams { return readPut(f, p) }),
		api.Get:     takes((*conn).get, nil),
		api.List:    takesNone((*conn).list),
		api.Changes: takes((*conn).changes, nil),
		// Every release takes a client's acknowledgement of a notification and reports it
		// (only builds with the DoubleAck switch send one).
		api.Ack: told((*conn).ack),
	}
	if f.Search {
		m[api.Search] = takes((*conn).search, nil)
	}
	return m
}

// readPut is notes.put's params as release f reads them: a release without tags ignores
// them, as it does any key it does not know.
func readPut(f release.Features, p api.PutParams) api.PutParams {
	if !f.Tags {
		p.Tags = nil
	}
	return p
}

// takes is a method with params P and a result R. view, when not nil, is what the release
// makes of the params it decoded, before the method sees them.
func takes[P, R any](fn func(*conn, context.Context, P) (R, error), view func(P) P) method {
	if view == nil {
		view = func(p P) P { return p }
	}
	return method{
		serve: func(c *conn) jrpc2.Handler {
			return handler.New(func(ctx context.Context, p P) (R, error) { return fn(c, ctx, view(p)) })
		},
		read: handler.New(func(_ context.Context, p P) (any, error) { return view(p), nil }),
	}
}

// takesNone is a method without params: jrpc2 refuses a request that carries some.
func takesNone[R any](fn func(*conn, context.Context) (R, error)) method {
	return method{
		serve: func(c *conn) jrpc2.Handler {
			return handler.New(func(ctx context.Context) (R, error) { return fn(c, ctx) })
		},
		read: handler.New(func(context.Context) (any, error) { return nil, nil }),
	}
}

// told is a method with params P and no result, as a notification is.
func told[P any](fn func(*conn, context.Context, P) error) method {
	return method{
		serve: func(c *conn) jrpc2.Handler {
			return handler.New(func(ctx context.Context, p P) error { return fn(c, ctx, p) })
		},
		read: handler.New(func(_ context.Context, p P) (any, error) { return p, nil }),
	}
}
