package session_test

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("the handshake over a loopback WebSocket", func() {
	It("inside the window: serverInfo with the daemon's features and commands", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.157"))
		c := p.dial(ctx, releaseOf("v1.4.150"), session.ClientOptions{})
		info, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.AppVersion).To(Equal("v1.4.157"))
		Expect(info.Features).To(Equal(session.Features{"serverRequests": true, "attention": true}))
		Expect(info.Commands).To(HaveKeyWithValue("review.start", []int{1, 2}))
		Expect(p.clientObs.Names()).To(ContainElement(session.EventServerInfo))
		Expect(p.hostObs.Names()).To(ContainElement(session.EventHelloReceived))
	}, SpecTimeout(5e9))

	It("advertises attention only when the daemon composes it", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.120"))
		info, err := p.dial(ctx, releaseOf("v1.4.120"), session.ClientOptions{}).Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Features).To(Equal(session.Features{"serverRequests": true}))
	}, SpecTimeout(5e9))

	DescribeTable("outside the window both sides refuse with incompatible_protocol",
		func(ctx SpecContext, hostRelease, clientRelease, outside string) {
			p := startDaemon(releaseOf(hostRelease))
			c := p.dial(ctx, releaseOf(clientRelease), session.ClientOptions{})
			_, err := c.Hello(ctx)
			Expect(err).To(MatchError(session.ErrIncompatibleProtocol))
			var refused *session.RefusedPeerError
			Expect(errors.As(err, &refused)).To(BeTrue(), err.Error())
			Expect(refused.By).To(Equal("host"))
			Expect(refused.Outside).To(Equal(outside))

			// The daemon refused and said so on the wire; the client reports it too.
			Expect(p.hostObs.Find(session.EventRefusedPeer)).To(ConsistOf(
				HaveKeyWithValue("outside", outside)))
			Expect(p.clientObs.Find(session.EventRefusedPeer)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("by", "host"), HaveKeyWithValue("outside", outside))))
			Expect(p.clientObs.Find(session.EventRPCError)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("requestId", "hello"), HaveKeyWithValue("code", "incompatible_protocol"))))

			// Then the connection closes cleanly, and the session is unusable.
			Eventually(c.Done()).Should(BeClosed())
			Expect(p.clientObs.Find(session.EventTransportClosed)).To(ConsistOf(
				HaveKeyWithValue("code", session.CloseIncompatibleProtocol)))
			_, err = c.Call(ctx, "ping", 0, nil)
			Expect(err).To(MatchError(session.ErrNoHandshake))
			Expect(p.hostObs.Names()).NotTo(ContainElement(session.EventRequestReceived))
		},
		Entry("new host, old client", "v1.4.185", "v1.4.157", "client"),
		Entry("old host, new client", "v1.4.157", "v1.4.185", "host"),
	)

	It("the client refuses a serverInfo outside its window on its own", func(ctx SpecContext) {
		// A daemon that checks nothing answers serverInfo even when its minimum is above the
		// client's version. The client's own half of the symmetric check must refuse it.
		checkLeaks()
		obs := &recorder{}
		fake := newFakeDaemon(session.ServerInfo{AppVersion: "v9", ProtocolVersion: 5, MinCompatibleProtocolVersion: 4,
			Features: session.Features{}, Commands: map[string][]int{}})
		c, err := session.Dial(ctx, fake.url, releaseOf("v1.4.185"), session.ClientOptions{Observer: obs})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		_, err = c.Hello(ctx)
		Expect(err).To(MatchError(session.ErrIncompatibleProtocol))
		Expect(err.Error()).To(ContainSubstring("client protocol 2 is below the host minimum 4"))
		Expect(obs.Find(session.EventRefusedPeer)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("by", "client"), HaveKeyWithValue("outside", "client"))))
		Eventually(c.Done()).Should(BeClosed())
		Eventually(fake.closeCode).Should(Receive(Equal(session.CloseIncompatibleProtocol)))
	}, SpecTimeout(5e9))

	It("answers a frame before hello with hello_required", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.120"))
		ws := p.rawDial(ctx)
		rawSend(ws, session.Request{RequestID: "r1", Command: "ping", Version: 1, Input: json.RawMessage(`{}`)})
		Expect(rawRead(ws)).To(Equal(session.RPCErrorFrame{RequestID: "r1", Code: session.CodeHelloRequired, Message: "request before hello"}))
	}, SpecTimeout(5e9))
})
