package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("command versions", func() {
	DescribeTable("ChooseVersion picks the highest version both sides speak",
		func(own, peer []int, want int) {
			got, err := session.ChooseVersion("review.start", own, peer)
			if want == 0 {
				Expect(err).To(MatchError(session.ErrNoSharedVersion))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("both speak 1 and 2", []int{1, 2}, []int{1, 2}, 2),
		Entry("new client, old daemon", []int{1, 2}, []int{1}, 1),
		Entry("old client, new daemon", []int{1}, []int{2, 1}, 1),
		Entry("disjoint", []int{1}, []int{2}, 0),
		Entry("peer lacks the command", []int{1, 2}, nil, 0),
	)

	Describe("EncodeRequest", func() {
		spoken := map[string][]int{"ping": {1}, "review.start": {1, 2}}
		in := json.RawMessage(`{"repo":"r"}`)

		It("never encodes a multi-version command implicitly", func() {
			_, err := session.EncodeRequest(session.Request{RequestID: "r1", Command: "review.start", Input: in}, spoken)
			Expect(err).To(MatchError(session.ErrImplicitVersion))
		})
		It("encodes a single-version command without a version, as legacy senders did", func() {
			b, err := session.EncodeRequest(session.Request{RequestID: "r1", Command: "ping"}, spoken)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(`{"type":"request","requestId":"r1","command":"ping","input":{}}`))
		})
		It("refuses a version or a command the sender does not speak", func() {
			_, err := session.EncodeRequest(session.Request{RequestID: "r1", Command: "review.start", Version: 3, Input: in}, spoken)
			Expect(err).To(MatchError(session.ErrNoSharedVersion))
			_, err = session.EncodeRequest(session.Request{RequestID: "r1", Command: "board.read", Version: 1, Input: in}, spoken)
			Expect(err).To(MatchError(session.ErrNoSharedVersion))
		})
	})

	It("has a migration text for every version after the first", func() {
		for id, c := range session.Commands() {
			for v, cv := range c.Versions {
				if v > 1 {
					Expect(cv.Migration).NotTo(BeEmpty(), "%s v%d", id, v)
				}
			}
		}
	})
})
