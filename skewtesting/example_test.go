package skewtesting_test

import (
	"fmt"

	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

// Failures is what a failing skew test prints: each finding with the line that reruns its
// pairing alone. BeCompatible, the Gomega matcher, fails with the same lines. The run here
// is written by hand; in a test it comes from Run or Matrix.
func ExampleFailures() {
	run := &results.Run{Pairings: []*results.Pairing{{
		Host: "v0.3.0", Client: "v0.2.0", ClientKind: "sync", Journey: "sync", Status: results.StatusFail,
		Findings: []results.Finding{{Kind: results.PublishedFieldRemoved, Step: "host-writes", Direction: "H>C",
			Message: `host v0.3.0 no longer publishes "body" in H>C note.changed, which v0.2.0's own reference showed`}},
		Repro: "skewtest repro --repo /src/notesd --host v0.3.0 --client v0.2.0 --kind sync --journey sync --seed 1",
	}}}
	for _, line := range skewtesting.Failures(run) {
		fmt.Println(line)
	}
	compatible, _ := skewtesting.BeCompatible().Match(run)
	fmt.Println("compatible:", compatible)
	// Output:
	// host v0.3.0 × sync client v0.2.0 · sync: published-field-removed in step host-writes: host v0.3.0 no longer publishes "body" in H>C note.changed, which v0.2.0's own reference showed
	// repro: skewtest repro --repo /src/notesd --host v0.3.0 --client v0.2.0 --kind sync --journey sync --seed 1
	// compatible: false
}
