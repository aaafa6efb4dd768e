package harness_test

import (
	"bytes"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("progress events", func() {
	p := harness.Pairing{Host: &harness.Build{Label: "v1.2.0"}, Client: &harness.Build{Label: "worktree"}, Kind: "desktop",
		Journey: &journeys.Journey{Name: "terminal"}}
	events := []harness.PairingEvent{
		{Kind: harness.PairingStarted, Pairing: p},
		{Kind: harness.PairingEnded, Pairing: p, Status: results.StatusFail, Elapsed: 1500 * time.Microsecond, Ended: 3, Total: 8},
		{Kind: harness.FutureEnded, Pairing: p, Status: results.StatusPass, Elapsed: 2 * time.Second},
		{Kind: harness.PairingsNotRun, NotRun: 5, Total: 8, Why: "interrupted"},
	}

	It("print as skewtest's progress lines, the starts only when verbose", func() {
		var quiet, verbose bytes.Buffer
		for _, e := range events {
			harness.PrintProgress(&quiet, false)(e)
			harness.PrintProgress(&verbose, true)(e)
		}
		Expect(quiet.String()).To(Equal("[3/8] fail  host v1.2.0 × desktop client worktree · terminal (2ms)\n" +
			"[future] pass  host v1.2.0 × desktop client worktree · terminal (2s)\n" +
			"interrupted: 5 of 8 pairings not run\n"))
		Expect(verbose.String()).To(HavePrefix("[start] host v1.2.0 × desktop client worktree · terminal\n[3/8] fail "))
	})

	It("go nowhere without a writer", func() {
		print := harness.PrintProgress(nil, true)
		for _, e := range events {
			Expect(func() { print(e) }).NotTo(Panic())
		}
	})
})
