package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("roundProgress over a loopback WebSocket", func() {
	ev := func(seq uint64, phase string) session.ProgressEvent {
		return session.ProgressEvent{Seq: seq, Event: json.RawMessage(`{"phase":"` + phase + `"}`)}
	}
	// Round 1 completes, round 2 starts, then round 1's terminal event is replayed late.
	late := []session.ProgressEvent{ev(1, "dispatched"), ev(2, "composed"), ev(3, "dispatched"), ev(4, "working"), ev(2, "composed")}

	run := func(ctx SpecContext, host string) (*pairing, *session.Client) {
		GinkgoHelper()
		p := startDaemon(releaseOf(host))
		c := p.dial(ctx, releaseOf("v1.4.157"), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.daemon.SendRoundProgress(ctx, "rv-1", late)).To(Succeed())
		Eventually(func() []map[string]any { return p.clientObs.Find(session.EventRoundProgress) }).Should(HaveLen(len(late)))
		return p, c
	}

	It("merges by seq: the late frame of the previous round is dropped", func(ctx SpecContext) {
		p, c := run(ctx, "v1.4.157")
		Expect(c.RoundState("rv-1")).To(Equal(session.RoundState{
			Round: 2, Phase: "working", Phases: []string{"dispatched", "working"}, LastSeq: 4}))
		events := p.clientObs.Find(session.EventRoundProgress)
		Expect(events[4]).To(SatisfyAll(HaveKeyWithValue("seq", uint64(2)), HaveKeyWithValue("merged", false)))
	}, SpecTimeout(5e9))

	It("without seq (a daemon before roundProgressSeq) folds in arrival order", func(ctx SpecContext) {
		p, c := run(ctx, "v1.4.150")
		Expect(c.RoundState("rv-1")).To(SatisfyAll(
			HaveField("Round", 2), HaveField("Phase", "composed"), HaveField("LastSeq", uint64(0))))
		Expect(p.clientObs.Find(session.EventRoundProgress)[0]).NotTo(HaveKey("seq"))
	}, SpecTimeout(5e9))

	It("assigns the next seq of the review's log when none is given", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.157"))
		c := p.dial(ctx, releaseOf("v1.4.157"), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.daemon.SendRoundProgress(ctx, "rv-9", []session.ProgressEvent{ev(0, "dispatched"), ev(0, "report"), ev(0, "failed")})).To(Succeed())
		Eventually(func() session.RoundState { return c.RoundState("rv-9") }).Should(Equal(session.RoundState{
			Round: 1, Phase: "failed", Terminal: true, Phases: []string{"dispatched", "report", "failed"}, LastSeq: 3}))
	}, SpecTimeout(5e9))

	It("reports the merged state's phase with every event; roundProgressKeepsFirst folds only the first", func(ctx SpecContext) {
		for _, keepsFirst := range []bool{false, true} {
			p := startDaemon(releaseOf("v1.4.157"))
			rel := releaseOf("v1.4.157")
			rel.RoundProgressKeepsFirst = keepsFirst
			c := p.dial(ctx, rel, session.ClientOptions{})
			_, err := c.Hello(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.daemon.SendRoundProgress(ctx, "rv-1", []session.ProgressEvent{ev(0, "dispatched"), ev(0, "composed")})).To(Succeed())
			Eventually(func() []map[string]any { return p.clientObs.Find(session.EventRoundProgress) }).Should(HaveLen(2))
			last := p.clientObs.Find(session.EventRoundProgress)[1]
			if keepsFirst {
				Expect(last).To(SatisfyAll(HaveKeyWithValue("phase", "dispatched"), HaveKeyWithValue("merged", false)))
			} else {
				Expect(last).To(SatisfyAll(HaveKeyWithValue("phase", "composed"), HaveKeyWithValue("merged", true)))
			}
		}
	}, SpecTimeout(5e9))

	It("merges a late duplicate and a reordered event by seq; roundProgressArrivalOrder folds them as they arrive", func(ctx SpecContext) {
		for _, arrival := range []bool{false, true} {
			p := startDaemon(releaseOf("v1.4.157"))
			rel := releaseOf("v1.4.157")
			rel.RoundProgressArrivalOrder = arrival
			c := p.dial(ctx, rel, session.ClientOptions{})
			_, err := c.Hello(ctx)
			Expect(err).NotTo(HaveOccurred())
			// rv-1: a late duplicate of its first event; rv-2: its events swapped.
			Expect(p.daemon.SendRoundProgress(ctx, "rv-1", []session.ProgressEvent{ev(0, "dispatched"), ev(0, "composed"), ev(1, "dispatched")})).To(Succeed())
			Expect(p.daemon.SendRoundProgress(ctx, "rv-2", []session.ProgressEvent{ev(2, "composed"), ev(1, "dispatched")})).To(Succeed())
			Eventually(func() []map[string]any { return p.clientObs.Find(session.EventRoundProgress) }).Should(HaveLen(5))
			want := "composed"
			if arrival {
				want = "dispatched"
			}
			Expect(c.RoundState("rv-1").Phase).To(Equal(want))
			Expect(c.RoundState("rv-2").Phase).To(Equal(want))
		}
	}, SpecTimeout(5e9))

	It("merges an event with a field a later daemon may add; progressUnknownFieldDropped drops it", func(ctx SpecContext) {
		for _, drops := range []bool{false, true} {
			p := startDaemon(releaseOf("v1.4.157"))
			rel := releaseOf("v1.4.157")
			rel.ProgressUnknownFieldDropped = drops
			c := p.dial(ctx, rel, session.ClientOptions{})
			_, err := c.Hello(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.daemon.SendRoundProgress(ctx, "rv-1", []session.ProgressEvent{ev(0, "dispatched"),
				{Event: json.RawMessage(`{"phase":"composed","detail":{"reviewer":"x"}}`)}})).To(Succeed())
			Eventually(func() []map[string]any { return p.clientObs.Find(session.EventRoundProgress) }).Should(HaveLen(2))
			last := p.clientObs.Find(session.EventRoundProgress)[1]
			if drops {
				Expect(last).To(SatisfyAll(HaveKeyWithValue("phase", "dispatched"), HaveKeyWithValue("merged", false)))
			} else {
				Expect(last).To(SatisfyAll(HaveKeyWithValue("phase", "composed"), HaveKeyWithValue("merged", true)))
			}
		}
	}, SpecTimeout(5e9))

	It("refuses an event without a phase before sending anything", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.157"))
		err := p.daemon.SendRoundProgress(ctx, "rv-1", []session.ProgressEvent{{Event: json.RawMessage(`{}`)}})
		Expect(err).To(MatchError(ContainSubstring("phase: required string is missing")))
	}, SpecTimeout(5e9))
})
