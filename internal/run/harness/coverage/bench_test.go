package coverage_test

import (
	"testing"

	"github.com/skewtest/skewtest/internal/run/harness/coverage"
)

// BenchmarkAdd measures adding one small pairing to a tally (what a fuzz campaign pays per
// case to steer by coverage).
func BenchmarkAdd(b *testing.B) {
	t := coverage.New()
	in := pairing()
	b.ReportAllocs()
	for b.Loop() {
		t.Add(in)
	}
}
