package session_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("CheckProtocolCompatibility", func() {
	type entry struct {
		local, remote session.Window
		compatible    bool
		outside       session.Side
	}
	w := func(v, min int) session.Window { return session.Window{Version: v, MinCompatible: min} }

	DescribeTable("is symmetric: each version at least the other's minimum",
		func(e entry) {
			got := session.CheckProtocolCompatibility(e.local, e.remote)
			Expect(got.Compatible).To(Equal(e.compatible))
			Expect(got.Outside).To(Equal(e.outside))
			if !e.compatible {
				Expect(got.Reason).To(ContainSubstring(string(e.outside) + " protocol"))
			}
			// The other side's check reaches the same verdict, naming the same peer.
			back := session.CheckProtocolCompatibility(e.remote, e.local)
			Expect(back.Compatible).To(Equal(e.compatible))
			switch e.outside {
			case session.Local:
				Expect(back.Outside).To(Equal(session.Remote))
			case session.Remote:
				Expect(back.Outside).To(Equal(session.Local))
			}
		},
		Entry("same window", entry{w(1, 1), w(1, 1), true, ""}),
		Entry("inside: newer remote still accepts local", entry{w(1, 1), w(2, 1), true, ""}),
		Entry("inside: newer local still accepts remote", entry{w(2, 1), w(1, 1), true, ""}),
		Entry("outside: remote below local minimum", entry{w(2, 2), w(1, 1), false, session.Remote}),
		Entry("outside: local below remote minimum", entry{w(1, 1), w(2, 2), false, session.Local}),
		Entry("outside: remote far ahead with a raised minimum", entry{w(2, 1), w(5, 3), false, session.Local}),
	)

	It("names host and client when asked to", func() {
		got := session.CheckProtocolCompatibility(w(2, 2), w(1, 1))
		Expect(got.Explain("host", "client")).To(Equal("client protocol 1 is below the host minimum 2"))
	})
})
