package campaign

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

var _ = Describe("A campaign's heartbeat", func() {
	It("tells how many pairings a long batch has ended, and only when no progress line did", func(ctx SpecContext) {
		out := gbytes.NewBuffer()
		cp := &campaign{progress: out, started: time.Now()}
		cp.reported.Store(time.Now().Add(time.Hour).UnixNano()) // a progress line "now", for the first part
		cp.ended.Add(3)
		bctx, stop := context.WithCancel(ctx)
		defer stop()
		go cp.beat(bctx, 30*time.Millisecond)
		Consistently(out, 150*time.Millisecond).ShouldNot(gbytes.Say("batch under way"))

		cp.reported.Store(0) // the last line long ago
		cp.ended.Add(2)
		Eventually(out).Should(gbytes.Say(`fuzz: a batch under way: 2 pairings ended since the last line`))
	})
})
