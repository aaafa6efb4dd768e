package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("serverRequest over a loopback WebSocket", func() {
	It("round-trips: serverRequest, serverResponse, serverRequestResolved", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.157"))
		c := p.dial(ctx, releaseOf("v1.4.120"), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())

		id, err := p.daemon.SendServerRequest(ctx, "confirm", json.RawMessage(`{"question":"push?"}`))
		Expect(err).NotTo(HaveOccurred())
		Eventually(c.OpenServerRequests).Should(ConsistOf(session.ServerRequest{
			ServerRequestID: id, Kind: "confirm", Payload: json.RawMessage(`{"question":"push?"}`)}))

		Expect(c.AnswerServerRequest(ctx, id, json.RawMessage(`{"answer":"yes"}`))).To(Succeed())
		Eventually(p.clientObs.Names).Should(ContainElement(session.EventServerRequestResolved))
		Expect(c.OpenServerRequests()).To(BeEmpty())
		Expect(p.hostObs.Find(session.EventServerResponseReceived)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("serverRequestId", id),
			HaveKeyWithValue("payload", BeEquivalentTo(`{"answer":"yes"}`)))))

		// The request is resolved: answering it again is refused by the client itself.
		Expect(c.AnswerServerRequest(ctx, id, nil)).To(MatchError(ContainSubstring("not open")))
	}, SpecTimeout(5e9))

	It("answers automatically when the client is told to", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.120"))
		c := p.dial(ctx, releaseOf("v1.4.120"), session.ClientOptions{
			AnswerServerRequest: func(session.ServerRequest) json.RawMessage { return json.RawMessage(`{"ok":true}`) },
		})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = p.daemon.SendServerRequest(ctx, "confirm", nil)
		Expect(err).NotTo(HaveOccurred())
		Eventually(p.clientObs.Names).Should(Equal([]string{
			session.EventServerInfo, session.EventServerRequest, session.EventServerResponseSent, session.EventServerRequestResolved,
		}))
	}, SpecTimeout(5e9))

	It("has nobody to ask before a client completed its hello", func(ctx SpecContext) {
		p := startDaemon(releaseOf("v1.4.120"))
		_, err := p.daemon.SendServerRequest(ctx, "confirm", nil)
		Expect(err).To(MatchError(session.ErrNoClient))
	}, SpecTimeout(5e9))
})
