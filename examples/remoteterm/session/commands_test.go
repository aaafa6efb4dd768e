package session_test

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("requests over a loopback WebSocket", func() {
	var (
		p *pairing
		c *session.Client
	)
	connect := func(ctx SpecContext, host, client string) {
		p = startDaemon(releaseOf(host))
		c = p.dial(ctx, releaseOf(client), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
	}
	rpcErr := func(err error) *session.RPCError {
		GinkgoHelper()
		var re *session.RPCError
		Expect(errors.As(err, &re)).To(BeTrue(), "%v", err)
		return re
	}

	It("ping echoes its input", func(ctx SpecContext) {
		connect(ctx, "v1.4.120", "v1.4.120")
		out, err := c.Call(ctx, "ping", 0, json.RawMessage(`{"message":"hi"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`{"message":"hi"}`))
		Expect(p.clientObs.Find(session.EventResponse)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("command", "ping"), HaveKeyWithValue("version", 1))))
	}, SpecTimeout(5e9))

	DescribeTable("review.start runs the highest version both sides speak",
		func(ctx SpecContext, host, client string, input, want string) {
			connect(ctx, host, client)
			out, err := c.Call(ctx, "review.start", 0, json.RawMessage(input))
			Expect(err).NotTo(HaveOccurred())
			Expect(out).To(MatchJSON(want))
		},
		Entry("both v2", "v1.4.157", "v1.4.157", `{"repo":"r","base":"main"}`, `{"reviewId":"rv-1","base":"main"}`),
		Entry("new client, old host: v1", "v1.4.150", "v1.4.157", `{"repo":"r"}`, `{"reviewId":"rv-1"}`),
		Entry("old client, new host: v1", "v1.4.157", "v1.4.150", `{"repo":"r"}`, `{"reviewId":"rv-1"}`),
	)

	It("refuses before sending when no version is shared", func(ctx SpecContext) {
		connect(ctx, "v1.4.150", "v1.4.157")
		_, err := c.Call(ctx, "review.start", 2, json.RawMessage(`{"repo":"r","base":"main"}`))
		Expect(err).To(MatchError(session.ErrNoSharedVersion))
		_, err = c.Call(ctx, "board.read", 0, json.RawMessage(`{}`))
		Expect(err).To(MatchError(session.ErrNoSharedVersion))
		Expect(p.hostObs.Names()).NotTo(ContainElement(session.EventRequestReceived))
	}, SpecTimeout(5e9))

	It("answers bad input with invalid_input and a failing command with command_failed", func(ctx SpecContext) {
		connect(ctx, "v1.4.157", "v1.4.157")
		_, err := c.Call(ctx, "review.start", 2, json.RawMessage(`{"repo":"r"}`))
		Expect(rpcErr(err).Code).To(Equal(session.CodeInvalidInput))
		Expect(err.Error()).To(ContainSubstring("base: required string is missing"))

		_, err = c.Call(ctx, "workspace.open", 0, json.RawMessage(`{"path":"relative/dir"}`))
		Expect(rpcErr(err).Code).To(Equal(session.CodeCommandFailed))

		out, err := c.Call(ctx, "workspace.open", 0, json.RawMessage(`{"path":"/src/app"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(MatchJSON(`{"workspaceId":"ws-934c40a0"}`))
	}, SpecTimeout(5e9))

	Describe("what a real client never sends", func() {
		DescribeTable("is answered with an rpcError, never silence",
			func(ctx SpecContext, req session.Request, code session.Code) {
				p = startDaemon(releaseOf("v1.4.157"))
				ws := p.rawDial(ctx)
				rawSend(ws, session.Hello{ClientID: "raw", ClientType: "desktop", ProtocolVersion: 1, MinCompatibleProtocolVersion: 1})
				Expect(rawRead(ws)).To(BeAssignableToTypeOf(session.ServerInfo{}))
				rawSend(ws, req)
				got := rawRead(ws)
				Expect(got).To(BeAssignableToTypeOf(session.RPCErrorFrame{}))
				Expect(got.(session.RPCErrorFrame).RequestID).To(Equal(req.RequestID))
				Expect(got.(session.RPCErrorFrame).Code).To(Equal(code))
			},
			Entry("unknown command", session.Request{RequestID: "r1", Command: "board.read", Version: 1, Input: json.RawMessage(`{}`)}, session.CodeUnknownCommand),
			Entry("multi-version command without a version", session.Request{RequestID: "r2", Command: "review.start", Input: json.RawMessage(`{"repo":"r"}`)}, session.CodeInvalidInput),
			Entry("a version the daemon lacks", session.Request{RequestID: "r3", Command: "review.start", Version: 3, Input: json.RawMessage(`{"repo":"r"}`)}, session.CodeUnsupportedVersion),
		)

		DescribeTable("negative controls: an unknown command's rpcError tied to the wrong request, or to none",
			func(ctx SpecContext, set func(*release.Features), requestID string) {
				rel := releaseOf("v1.4.157")
				set(&rel)
				p = startDaemon(rel)
				ws := p.rawDial(ctx)
				rawSend(ws, session.Hello{ClientID: "raw", ClientType: "desktop", ProtocolVersion: 1, MinCompatibleProtocolVersion: 1})
				rawRead(ws)
				rawSend(ws, session.Request{RequestID: "r1", Command: "board.read", Version: 1, Input: json.RawMessage(`{}`)})
				got := rawRead(ws).(session.RPCErrorFrame)
				Expect(got.RequestID).To(Equal(requestID))
				Expect(got.Code).To(Equal(session.CodeUnknownCommand))
			},
			Entry("rpcErrorWrongRequestId: it names the command, not the request",
				func(f *release.Features) { f.RPCErrorWrongRequestID = true }, "board.read", SpecTimeout(5e9)),
			Entry("rpcErrorWithoutRequestId: its requestId is empty",
				func(f *release.Features) { f.RPCErrorWithoutRequestID = true }, "", SpecTimeout(5e9)),
		)

		It("answers each call of an unknown command; unknownCommandErrorCached answers the second with the first's requestId", func(ctx SpecContext) {
			for _, cached := range []bool{false, true} {
				rel := releaseOf("v1.4.157")
				rel.UnknownCommandErrorCached = cached
				p = startDaemon(rel)
				ws := p.rawDial(ctx)
				rawSend(ws, session.Hello{ClientID: "raw", ClientType: "desktop", ProtocolVersion: 1, MinCompatibleProtocolVersion: 1})
				rawRead(ws)
				var ids []string
				for _, r := range []struct{ id, command string }{{"r1", "board.read"}, {"r2", "board.write"}, {"r3", "board.read"}} {
					rawSend(ws, session.Request{RequestID: r.id, Command: r.command, Input: json.RawMessage(`{}`)})
					got := rawRead(ws)
					Expect(got).To(BeAssignableToTypeOf(session.RPCErrorFrame{}))
					Expect(got.(session.RPCErrorFrame).Code).To(Equal(session.CodeUnknownCommand))
					ids = append(ids, got.(session.RPCErrorFrame).RequestID)
				}
				want := []string{"r1", "r2", "r3"}
				if cached {
					want = []string{"r1", "r2", "r1"} // r3 is never answered
				}
				Expect(ids).To(Equal(want), "cached=%v", cached)
			}
		}, SpecTimeout(5e9))

		It("answers an explicit older version; olderCommandVersionRefused answers it unsupported_version", func(ctx SpecContext) {
			for _, refused := range []bool{false, true} {
				rel := releaseOf("v1.4.157")
				rel.OlderCommandVersionRefused = refused
				p = startDaemon(rel)
				ws := p.rawDial(ctx)
				rawSend(ws, session.Hello{ClientID: "raw", ClientType: "desktop", ProtocolVersion: 1, MinCompatibleProtocolVersion: 1})
				rawRead(ws)
				rawSend(ws, session.Request{RequestID: "r1", Command: "review.start", Version: 1, Input: json.RawMessage(`{"repo":"r"}`)})
				rawSend(ws, session.Request{RequestID: "r2", Command: "review.start", Version: 2, Input: json.RawMessage(`{"repo":"r","base":"main"}`)})
				first, second := rawRead(ws), rawRead(ws)
				if refused {
					Expect(first).To(BeAssignableToTypeOf(session.RPCErrorFrame{}))
					Expect(first.(session.RPCErrorFrame).Code).To(Equal(session.CodeUnsupportedVersion))
				} else {
					Expect(first).To(BeAssignableToTypeOf(session.Response{}))
				}
				Expect(second).To(BeAssignableToTypeOf(session.Response{}), "the newest version is answered either way")
			}
		}, SpecTimeout(5e9))

		It("reads a single-version command without a version as that version", func(ctx SpecContext) {
			p = startDaemon(releaseOf("v1.4.120"))
			ws := p.rawDial(ctx)
			rawSend(ws, session.Hello{ClientID: "raw", ClientType: "desktop", ProtocolVersion: 1, MinCompatibleProtocolVersion: 1})
			rawRead(ws)
			rawSend(ws, session.Request{RequestID: "r1", Command: "ping", Input: json.RawMessage(`{"message":"x"}`)})
			Expect(rawRead(ws)).To(Equal(session.Response{RequestID: "r1", Output: json.RawMessage(`{"message":"x"}`)}))
		}, SpecTimeout(5e9))

		It("refuses an unknown frame type, reporting it and answering unknown_frame", func(ctx SpecContext) {
			p = startDaemon(releaseOf("v1.4.120"))
			ws := p.rawDial(ctx)
			Expect(ws.WriteMessage(1, []byte(`{"type":"boardEvent","boardId":"b"}`))).To(Succeed())
			got := rawRead(ws).(session.RPCErrorFrame)
			Expect(got.Code).To(Equal(session.CodeUnknownFrame))
			Expect(p.hostObs.Find(session.EventRefused)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("direction", "C>H"), HaveKeyWithValue("type", "boardEvent"))))
		}, SpecTimeout(5e9))
	})
})
