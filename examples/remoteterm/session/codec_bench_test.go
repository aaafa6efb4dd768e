package session_test

import (
	"encoding/json"
	"testing"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// BenchmarkDecode decodes the frames a session mostly carries: requests, responses and
// progress events.
func BenchmarkDecode(b *testing.B) {
	seq := uint64(3)
	var raw [][]byte
	for _, f := range []session.Frame{
		session.Request{RequestID: "r1", Command: "review.start", Version: 2, Input: json.RawMessage(`{"repo":"r","base":"main"}`)},
		session.Response{RequestID: "r1", Output: json.RawMessage(`{"reviewId":"rv-1","base":"main"}`)},
		session.RoundProgress{ReviewID: "rv-1", Event: json.RawMessage(`{"phase":"dispatched"}`), Seq: &seq},
	} {
		e, err := session.Encode(f)
		if err != nil {
			b.Fatal(err)
		}
		raw = append(raw, e)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := session.Decode(raw[i%len(raw)]); err != nil {
			b.Fatal(err)
		}
	}
}
