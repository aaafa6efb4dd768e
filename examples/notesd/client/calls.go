package client

import (
	"context"
	"sync/atomic"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// call makes one call on the connection and reads its result; the call counts as waiting
// for its reply until it returns.
func (conn *connection) call(ctx context.Context, method string, params, result any) error {
	conn.waiting.Add(1)
	defer conn.waiting.Add(-1)
	return conn.rpc.CallResult(ctx, method, params, result)
}

// batch sends specs as one JSON-RPC batch and waits for every reply, as one call.
func (conn *connection) batch(ctx context.Context, specs []jrpc2.Spec) ([]*jrpc2.Response, error) {
	conn.waiting.Add(1)
	defer conn.waiting.Add(-1)
	return conn.rpc.Batch(ctx, specs)
}

// replyReader is the DropPushInCall switch (a negative control: no release ships it): the
// connection as a client reads it that, while one of its calls waits for its reply, reads
// only replies, so a notes.changed that arrives meanwhile is dropped without a word. A push
// that arrives between calls is read as always.
//
// It decides as each record is read, in the order the host sent them: a push read before the
// reply of a call in flight is dropped, whatever the scheduler does next. (Past Recv, jrpc2's
// client delivers each record on a goroutine of its own and the inbox hands notifications to
// another, so a check there would race the call's return.)
type replyReader struct {
	channel.Channel
	waiting *atomic.Int64
	logf    func(format string, args ...any)
}

// Recv returns the next record, less a notes.changed notification read while a call waits.
func (r *replyReader) Recv() ([]byte, error) {
	for {
		rec, err := r.Channel.Recv()
		if err != nil || r.waiting.Load() == 0 || !isChanged(rec) {
			return rec, err
		}
		r.logf("dropped %s while a call waits for its reply: %s", api.Changed, rec)
	}
}

// isChanged reports whether a record is one notes.changed notification, as jrpc2 parses it
// (wsrpc.Read; a line of linerpc is the same JSON).
func isChanged(rec []byte) bool {
	msgs, batch, err := wsrpc.Read(false, rec)
	if err != nil || batch || len(msgs) != 1 {
		return false
	}
	m := msgs[0]
	return m.IsRequest() && m.Parsed.Method == api.Changed && m.Parsed.ID == ""
}
