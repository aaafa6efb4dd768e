package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("frame codec", func() {
	one := uint64(7)
	frames := []session.Frame{
		session.Hello{ClientID: "c", ClientType: "desktop", ProtocolVersion: 2, MinCompatibleProtocolVersion: 2, Commands: map[string][]int{"ping": {1}}},
		session.ServerInfo{AppVersion: "v1", ProtocolVersion: 2, MinCompatibleProtocolVersion: 2, Features: session.Features{"attention": true}, Commands: map[string][]int{"ping": {1}}},
		session.Request{RequestID: "r1", Command: "ping", Version: 1, Input: json.RawMessage(`{"message":"hi"}`)},
		session.Response{RequestID: "r1", Output: json.RawMessage(`{"message":"hi"}`)},
		session.RPCErrorFrame{RequestID: "r1", Code: session.CodeUnknownCommand, Message: "no"},
		session.ServerRequest{ServerRequestID: "sr-1", Kind: "confirm", Payload: json.RawMessage(`{}`)},
		session.ServerResponse{ServerRequestID: "sr-1", Payload: json.RawMessage(`{"ok":true}`)},
		session.ServerRequestResolved{ServerRequestID: "sr-1"},
		session.Presence{Focus: true, Visibility: "visible", DeviceClass: "desktop"},
		session.AttentionEvent{Cleared: []string{"a"}},
		session.RoundProgress{ReviewID: "rv-1", Event: json.RawMessage(`{"phase":"dispatched"}`), Seq: &one},
	}

	It("round-trips every frame of the vocabulary, strictly", func() {
		Expect(frames).To(HaveLen(len(session.Vocabulary())))
		for _, f := range frames {
			b, err := session.Encode(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(HavePrefix(`{"type":"` + string(f.FrameType()) + `"`))
			got, err := session.DecodeStrict(b)
			Expect(err).NotTo(HaveOccurred(), string(b))
			Expect(got).To(Equal(f))
		}
	})

	It("strips an added optional field tolerantly; only the strict reader refuses it", func() {
		for _, f := range frames {
			b, err := session.Encode(f)
			Expect(err).NotTo(HaveOccurred())
			var obj map[string]any
			Expect(json.Unmarshal(b, &obj)).To(Succeed())
			obj["addedInAFutureRelease"] = map[string]any{"x": 1}
			grown, _ := json.Marshal(obj)

			got, err := session.Decode(grown)
			Expect(err).NotTo(HaveOccurred(), string(grown))
			Expect(got).To(Equal(f))

			_, err = session.DecodeStrict(grown)
			Expect(err).To(MatchError(session.ErrInvalidFrame))
			Expect(err.Error()).To(ContainSubstring("addedInAFutureRelease: unknown key"))
		}
	})

	DescribeTable("refuses what is not a frame of the vocabulary",
		func(raw string, sentinel error, typ session.Type, requestID string) {
			_, err := session.Decode([]byte(raw))
			Expect(err).To(MatchError(sentinel))
			var de *session.DecodeError
			Expect(err).To(BeAssignableToTypeOf(de))
			de = err.(*session.DecodeError)
			Expect(de.Type).To(Equal(typ))
			Expect(de.RequestID).To(Equal(requestID))
		},
		Entry("not an object", `[1]`, session.ErrInvalidFrame, session.Type(""), ""),
		Entry("no type", `{"requestId":"r1"}`, session.ErrInvalidFrame, session.Type(""), "r1"),
		Entry("unknown type", `{"type":"boardEvent","boardId":"b"}`, session.ErrUnknownFrame, session.Type("boardEvent"), ""),
		Entry("missing required key", `{"type":"request","requestId":"r2","input":{}}`, session.ErrInvalidFrame, session.TypeRequest, "r2"),
		Entry("wrong kind", `{"type":"request","requestId":"r3","command":"ping","input":"hi"}`, session.ErrInvalidFrame, session.TypeRequest, "r3"),
		Entry("enum narrowed", `{"type":"presence","focus":true,"visibility":"dimmed","deviceClass":"desktop"}`, session.ErrInvalidFrame, session.TypePresence, ""),
	)

	It("accepts rpcError codes it does not know", func() {
		f, err := session.Decode([]byte(`{"type":"rpcError","requestId":"r1","code":"rate_limited","message":"later"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(f.(session.RPCErrorFrame).Code).To(Equal(session.Code("rate_limited")))
	})

	It("reads roundProgress without seq, as older daemons send it", func() {
		f, err := session.Decode([]byte(`{"type":"roundProgress","reviewId":"rv-1","event":{"phase":"report"}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(f.(session.RoundProgress).Seq).To(BeNil())
	})
})
