package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("a release's own bugs", func() {
	lost := results.Finding{Kind: results.DataLoss, Step: "close", Direction: "H>C", Message: "the last output was lost"}
	refusal := results.Finding{Kind: results.DecoderRefusal, Step: "live", Direction: "C>H", Message: "host v1 refused Ack"}
	pairing := func(host, client string, fs ...results.Finding) *results.Pairing {
		return &results.Pairing{Host: host, Client: client, ClientKind: "desktop", Journey: "terminal", Status: results.StatusFail, Findings: fs}
	}

	It("labels a finding the same-build reference of either side shows too, and every finding of a reference", func() {
		ref := pairing("v1", "v1", lost)
		skew := pairing("worktree", "v1", lost, refusal) // v1's client loses data with its own host as well
		other := pairing("v1", "worktree", lost)         // the host side's reference shows it
		clean := pairing("worktree", "worktree")
		harness.MarkOwn([]*results.Pairing{ref, skew, other, clean}, []*results.Pairing{ref, clean})
		Expect(ref.Findings[0].Own).To(Equal("v1"))
		Expect(skew.Findings[0].Own).To(Equal("v1"))
		Expect(other.Findings[0].Own).To(Equal("v1"))
		Expect(skew.Findings[1].Own).To(BeEmpty(), "negative control: a refusal no reference shows is skew")
	})

	It("finds the reference among another shard's helpers, and matches kind, step, direction and frame", func() {
		helper := pairing("v1", "v1", lost)
		elsewhere := lost
		elsewhere.Step = "open"
		otherWay := lost
		otherWay.Direction = "C>H"
		skew := pairing("worktree", "v1", lost, elsewhere, otherWay)
		harness.MarkOwn([]*results.Pairing{skew}, []*results.Pairing{helper})
		Expect(skew.Findings[0].Own).To(Equal("v1"))
		Expect(skew.Findings[1].Own).To(BeEmpty(), "another step is another bug")
		Expect(skew.Findings[2].Own).To(BeEmpty(), "another direction is another bug")

		alone := pairing("worktree", "v1", lost)
		harness.MarkOwn([]*results.Pairing{alone}, nil)
		Expect(alone.Findings[0].Own).To(BeEmpty(), "no reference ran: nothing says it is the release's own")
	})
})
