package reports_test

import (
	"io"
	"testing"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/testkit/resultstest"
)

// BenchmarkHTML renders the report of a 675-pairing matrix of ~100 frames each.
func BenchmarkHTML(b *testing.B) {
	run := resultstest.Run(resultstest.Large)
	b.ReportAllocs()
	for b.Loop() {
		if err := reports.HTML(io.Discard, run); err != nil {
			b.Fatal(err)
		}
	}
}
