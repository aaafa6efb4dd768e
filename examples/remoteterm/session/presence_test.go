package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("presence over a loopback WebSocket", func() {
	here := session.Presence{Focus: true, Visibility: "visible"}

	send := func(ctx SpecContext, host, client string) (*pairing, bool) {
		GinkgoHelper()
		p := startDaemon(releaseOf(host))
		c := p.dial(ctx, releaseOf(client), session.ClientOptions{ClientType: "mobile"})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		sent, err := c.Presence(ctx, here)
		Expect(err).NotTo(HaveOccurred())
		// A ping after the presence orders the daemon's handling of both.
		_, err = c.Call(ctx, "ping", 0, nil)
		Expect(err).NotTo(HaveOccurred())
		return p, sent
	}

	It("reaches a daemon that composes attention", func(ctx SpecContext) {
		p, sent := send(ctx, "v1.4.150", "v1.4.166-like")
		Expect(sent).To(BeTrue())
		Expect(p.hostObs.Find(session.EventPresenceReceived)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("focus", true), HaveKeyWithValue("visibility", "visible"), HaveKeyWithValue("deviceClass", "mobile"))))
		Expect(p.hostObs.Names()).NotTo(ContainElement(session.EventRefused))
	}, SpecTimeout(5e9))

	It("stays silent when the daemon does not advertise attention", func(ctx SpecContext) {
		p, sent := send(ctx, "v1.4.120", "v1.4.166-like")
		Expect(sent).To(BeFalse())
		Expect(p.clientObs.Names()).To(ContainElement(session.EventPresenceSkipped))
		Expect(p.hostObs.Names()).NotTo(ContainElement(session.EventPresenceReceived))
		Expect(p.hostObs.Names()).NotTo(ContainElement(session.EventRefused))
	}, SpecTimeout(5e9))

	It("v1.4.165 sends it ungated, and a daemon without attention refuses the frame", func(ctx SpecContext) {
		p, sent := send(ctx, "v1.4.120", "v1.4.165")
		Expect(sent).To(BeTrue())
		Expect(p.hostObs.Find(session.EventRefused)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("direction", "C>H"), HaveKeyWithValue("type", "presence"),
			HaveKeyWithValue("silent", false))))
		Expect(p.clientObs.Find(session.EventRPCError)).To(ConsistOf(
			HaveKeyWithValue("code", string(session.CodeUnknownFrame))))
	}, SpecTimeout(5e9))

	It("a build that predates attention has no presence", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.150"))
		c := p.dial(ctx, releaseOf("v1.4.120"), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Presence(ctx, here)
		Expect(err).To(MatchError(session.ErrUnsupported))
	}, SpecTimeout(5e9))
})
