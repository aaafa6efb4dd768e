package campaign

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A finding's share of the budget", func() {
	It("ends a shrink at a share of the budget from now", func(ctx SpecContext) {
		cp := &campaign{o: &Config{Budget: 80 * time.Second}, deadline: time.Now().Add(80 * time.Second)}
		before := time.Now()
		sctx, stop := cp.shrinkWindow(ctx)
		defer stop()
		d, ok := sctx.Deadline()
		Expect(ok).To(BeTrue())
		Expect(d).To(BeTemporally(">=", before.Add(80*time.Second/ShrinkShare)))
		Expect(d).To(BeTemporally("<=", time.Now().Add(80*time.Second/ShrinkShare)))
	})

	It("never ends a shrink past the budget's end", func(ctx SpecContext) {
		cp := &campaign{o: &Config{Budget: 80 * time.Second}, deadline: time.Now().Add(time.Second)}
		end := time.Now().Add(time.Second)
		work, cancel := context.WithDeadline(ctx, end)
		defer cancel()
		sctx, stop := cp.shrinkWindow(work)
		defer stop()
		d, _ := sctx.Deadline()
		Expect(d).To(Equal(end))
	})

	It("gives a campaign without a budget no share: its shrink runs to the end (the control)", func(ctx SpecContext) {
		cp := &campaign{o: &Config{}}
		sctx, stop := cp.shrinkWindow(ctx)
		defer stop()
		_, ok := sctx.Deadline()
		Expect(ok).To(BeFalse())
	})
})
