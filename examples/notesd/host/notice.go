package host

import (
	"encoding/json"
	"sync/atomic"

	"github.com/creachadair/jrpc2/channel"

	"github.com/skewtest/skewtest/examples/notesd/api"
)

// noticeChannel is the connection's channel with the NoticeAfterReply switch: right after
// a message that carries a reply (or a batch of replies), the host sends notes.notice in a
// message of its own (a line of its own over tcp and tls). jrpc2 sends replies through the
// channel, so this is the one place that sees every reply go out.
type noticeChannel struct {
	channel.Channel
	seq atomic.Int64
}

// Send writes the record, and a notice after it when it carries a reply.
func (c *noticeChannel) Send(record []byte) error {
	if err := c.Channel.Send(record); err != nil || !carriesReply(record) {
		return err
	}
	notice, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": api.Notice,
		"params": api.NoticeParams{Seq: c.seq.Add(1)}})
	return c.Channel.Send(notice)
}

// carriesReply reports whether a JSON-RPC record is a reply or a batch of them (an object
// with an id and a result or an error).
func carriesReply(record []byte) bool {
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	is := func(r reply) bool { return r.ID != nil && (r.Result != nil || r.Error != nil) }
	var one reply
	if json.Unmarshal(record, &one) == nil {
		return is(one)
	}
	var batch []reply
	if json.Unmarshal(record, &batch) != nil {
		return false
	}
	for _, r := range batch {
		if is(r) {
			return true
		}
	}
	return false
}
