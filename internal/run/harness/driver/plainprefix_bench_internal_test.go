package driver

import (
	"encoding/base64"
	"testing"
)

// BenchmarkPlainPrefix scans a terminal snapshot's base64 (2 MiB of bytes) to its closing
// quote, as fastLine does for every string of a driver's line.
func BenchmarkPlainPrefix(b *testing.B) {
	raw := make([]byte, 2<<20)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	s := []byte(base64.StdEncoding.EncodeToString(raw) + `"`)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if plainPrefix(s) != len(s)-1 {
			b.Fatal("stopped before the quote")
		}
	}
}
