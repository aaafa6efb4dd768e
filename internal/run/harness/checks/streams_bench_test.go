package checks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// BenchmarkStreamTextCumulative is one evaluation of a barrier on a cumulative stream (await
// client doc text=…) over a transcript of 100 reports of a document growing by 16 KiB: the
// cost a long stream pays on every transcript change.
func BenchmarkStreamTextCumulative(b *testing.B) {
	c, err := contract.Parse("doc.json", []byte(docContract))
	if err != nil {
		b.Fatal(err)
	}
	j, err := journeys.Parse("d.txtar", []byte("kind *\n-- script --\nstep a\n"))
	if err != nil {
		b.Fatal(err)
	}
	t := &transcript.Transcript{Kind: "cli"}
	doc := ""
	for i := 0; i < 100; i++ {
		doc += strings.Repeat("x", 16<<10)
		raw, _ := json.Marshal(map[string]any{"doc": doc, "final": true})
		t.Observations = append(t.Observations, transcript.Observation{Role: transcript.Client, What: "shown", Data: raw, Step: "a"})
	}
	in := &checks.Input{Transcript: t, Journey: j, Host: c, Client: c}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(checks.StreamText(in, transcript.Client, "doc")) != len(doc) {
			b.Fatal("not the last value")
		}
	}
}
