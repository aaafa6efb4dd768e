package wsrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/creachadair/jrpc2"
)

// Record is what Recv makes of one WebSocket message: a text message is one record; a
// binary message is ErrBinary, which ends the channel (jrpc2 stops on a Recv error).
func Record(binary bool, data []byte) ([]byte, error) {
	if binary {
		return nil, fmt.Errorf("%w (%d bytes)", ErrBinary, len(data))
	}
	return data, nil
}

// Message is one JSON-RPC message of a WebSocket message (a batch carries several) as jrpc2
// parses it on the receiving side.
type Message struct {
	// Parsed is jrpc2's parse: Method, ID and Params of a request or a notification, and
	// Error when jrpc2 finds the message invalid.
	Parsed *jrpc2.ParsedRequest
	// Keys are the message's keys, as jrpc2 splits the object; nil when it is not an object.
	// A reply's result and error are here (ParsedRequest does not carry them).
	Keys map[string]json.RawMessage
}

// IsRequest reports whether jrpc2 takes m as a request or a notification: a method, and
// neither a result nor an error. Anything else is a reply.
func (m Message) IsRequest() bool {
	_, result := m.Keys["result"]
	return m.Parsed.Method != "" && !result && m.ReplyError() == nil
}

// ReplyError is the error object of an error reply, decoded as jrpc2 decodes it; nil when
// the message carries none.
func (m Message) ReplyError() *jrpc2.Error {
	raw, ok := m.Keys["error"]
	if !ok {
		return nil
	}
	var e *jrpc2.Error
	if json.Unmarshal(raw, &e) != nil {
		return nil // jrpc2 marks the message invalid: Parsed.Error says so
	}
	return e
}

// Read is what a notesd peer's receiving side makes of one WebSocket message before it acts
// on any of it: Recv's record (Record), parsed by jrpc2.ParseRequests, the parser behind
// jrpc2's server and client read loops. batch reports a JSON array (whose messages may be
// none). A message that is neither a JSON object nor an array is jrpc2's *jrpc2.Error: its
// server answers it with a parse error, its client stops.
func Read(binary bool, data []byte) (msgs []Message, batch bool, err error) {
	rec, err := Record(binary, data)
	if err != nil {
		return nil, false, err
	}
	parsed, err := jrpc2.ParseRequests(rec)
	if err != nil {
		return nil, false, err
	}
	var raws []json.RawMessage
	if t := bytes.TrimSpace(rec); len(t) > 0 && t[0] == '[' {
		batch = true
		if err := json.Unmarshal(t, &raws); err != nil {
			return nil, true, err // jrpc2 parsed the same array: not reached
		}
	} else {
		raws = []json.RawMessage{rec}
	}
	if len(raws) != len(parsed) {
		return nil, batch, fmt.Errorf("jrpc2 parsed %d messages of %d", len(parsed), len(raws))
	}
	msgs = make([]Message, len(parsed))
	for i, p := range parsed {
		msgs[i].Parsed = p
		_ = json.Unmarshal(raws[i], &msgs[i].Keys) // not an object: Parsed.Error says so
	}
	return msgs, batch, nil
}

// Reason is a JSON-RPC error in words: jrpc2's "[code] message", and its data when there is
// some (why params did not decode, the extra keys of a request).
func Reason(err error) string {
	var jerr *jrpc2.Error
	if !errors.As(err, &jerr) || len(jerr.Data) == 0 {
		return err.Error()
	}
	var s string
	if json.Unmarshal(jerr.Data, &s) == nil {
		return jerr.Error() + ": " + s
	}
	return jerr.Error() + ": " + string(jerr.Data)
}
