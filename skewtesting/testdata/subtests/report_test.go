// Package subtests is run by the skewtesting spec as `go test`: Report must make each
// pairing a subtest, pass the compatible one and fail the other with its repro line.
package subtests

import (
	"testing"

	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

func TestReport(t *testing.T) {
	run := &results.Run{
		Findings: []results.Finding{
			{Kind: results.ContractViolation, Message: "v1.4.120 → worktree: field-removed: cwd", Allowed: "skewtest.yaml:9: reviewed"},
		},
		Pairings: []*results.Pairing{
			{Host: "worktree", Client: "v1.4.190", ClientKind: "desktop", Journey: "terminal", Status: results.StatusPass,
				Repro: "skewtest repro --host worktree --client v1.4.190"},
			{Host: "v1.4.190", Client: "v1.4.120", ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail,
				Repro:    "skewtest repro --repo /tmp/rt --host v1.4.190 --client v1.4.120 --kind desktop --journey terminal --seed 7",
				Findings: []results.Finding{{Kind: results.DecoderRefusal, Step: "spans", Message: "client refused opcode 15 (OutputSpan)"}}},
		},
	}
	skewtesting.Report(t, run)
}
