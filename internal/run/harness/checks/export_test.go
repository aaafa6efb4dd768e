package checks

import (
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// KeptItems reports whether observation o keeps its items for endpoint e derived (what
// observedItems keeps). When it did not, it keeps an empty list from now on: ask once.
func KeptItems(o transcript.Observation, e contract.Endpoint) bool {
	kept := true
	o.Derive(keyOf(e), func() any {
		kept = false
		return []Item(nil)
	})
	return kept
}

// SentJoined is what r has joined of stream name's sending end so far (nil when it joins
// nothing), after reading what in.Transcript gained.
func SentJoined(r *StreamReader, in *Input, name string) []byte {
	for _, s := range Streams(in) {
		if s.name == name {
			_, joined := r.sentOf(in.Transcript, s)
			return joined
		}
	}
	return nil
}
