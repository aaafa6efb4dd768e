package ledger_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/ledger"
)

func rng(start, end uint64) []ledger.SourceRange {
	return []ledger.SourceRange{{Start: start, End: end}}
}

var _ = Describe("Ledger", func() {
	var l *ledger.Ledger
	BeforeEach(func() { l = ledger.New("gen-1") })

	admit := func(bytes int, ranges []ledger.SourceRange) {
		GinkgoHelper()
		a, err := l.Prepare(bytes, bytes, 0, ranges)
		Expect(err).NotTo(HaveOccurred())
		a.Commit()
	}

	It("refuses a zero-byte admission (not fatal: the frame stays parked)", func() {
		_, err := l.Prepare(0, 0, 87, rng(75, 87))
		Expect(err).To(MatchError(ledger.ErrZeroBytes))
		Expect(ledger.Fatal(err)).To(BeFalse())
	})

	It("admits in two phases and allows one pending admission", func() {
		a, err := l.Prepare(10, 10, 10, rng(0, 10))
		Expect(err).NotTo(HaveOccurred())
		_, err = l.Prepare(5, 5, 15, rng(10, 15))
		Expect(err).To(MatchError(ledger.ErrAdmissionPending))
		a.Rollback()
		Expect(l.Retained()).To(BeZero())
		a, err = l.Prepare(10, 10, 10, rng(0, 10))
		Expect(err).NotTo(HaveOccurred())
		a.Commit()
		a.Rollback() // after a commit, a no-op
		Expect(l.Retained()).To(Equal(uint64(10)))
	})

	It("requires contiguous source ranges", func() {
		admit(10, rng(0, 10))
		_, err := l.Prepare(5, 5, 0, rng(12, 17))
		Expect(err).To(MatchError(ledger.ErrNotContiguous))
		Expect(ledger.Fatal(err)).To(BeTrue())
		l.Recover(12)
		admit(5, rng(12, 17))
	})

	It("refuses a frame whose mapping mode differs from the ledger's, fatally", func() {
		admit(10, rng(0, 10))
		_, err := l.Prepare(49152, 49152, 0, nil)
		Expect(err).To(MatchError(ledger.ErrMappingChanged))
		Expect(ledger.Fatal(err)).To(BeTrue())
	})

	It("refuses more than MaxRetainedBytes until acks free credit", func() {
		admit(ledger.MaxRetainedBytes-10, rng(0, ledger.MaxRetainedBytes-10))
		_, err := l.Prepare(11, 11, 0, rng(ledger.MaxRetainedBytes-10, ledger.MaxRetainedBytes+1))
		Expect(err).To(MatchError(ledger.ErrRetainedLimit))
		Expect(l.Acknowledge("gen-1", ledger.MaxRetainedBytes-10)).To(Equal(ledger.Accepted))
		admit(11, rng(ledger.MaxRetainedBytes-10, ledger.MaxRetainedBytes+1))
	})

	It("classifies acknowledgements", func() {
		admit(10, rng(0, 10))
		admit(20, rng(10, 30))
		admit(5, rng(30, 35))
		Expect(l.Acknowledge("gen-0", 10)).To(Equal(ledger.StaleGeneration))
		Expect(l.Acknowledge("gen-1", 36)).To(Equal(ledger.Excessive))
		Expect(l.Acknowledge("gen-1", 15)).To(Equal(ledger.Invalid))
		Expect(l.Acknowledge("gen-1", 30)).To(Equal(ledger.Accepted))
		Expect(l.Entries()).To(HaveLen(1))
		Expect(l.Retained()).To(Equal(uint64(5)))
		Expect(l.Acknowledge("gen-1", 10)).To(Equal(ledger.Duplicate))
		Expect(l.Acknowledge("gen-1", 30)).To(Equal(ledger.Duplicate))
		Expect(l.Acknowledge("gen-1", 35)).To(Equal(ledger.Accepted))
		Expect(l.Entries()).To(BeEmpty())
		Expect(ledger.Accepted.String()).To(Equal("accepted"))
		Expect(ledger.StaleGeneration.String()).To(Equal("stale-generation"))
	})

	It("WrapPositions: past the field's width the committed position wraps and the output is parked for good", func() {
		const mib = 1 << 20
		for _, wraps := range []bool{false, true} {
			l = ledger.New("gen-1")
			if wraps {
				l.WrapPositions(20)
			}
			admit(mib-16, rng(0, mib-16))
			Expect(l.Acknowledge("gen-1", mib-16)).To(Equal(ledger.Accepted), "below the wrap")
			admit(32, rng(mib-16, mib+16))
			_, err := l.Prepare(8, 8, 0, rng(mib+16, mib+24))
			if wraps {
				Expect(err).To(MatchError(ledger.ErrRetainedLimit))
				Expect(ledger.Fatal(err)).To(BeFalse())
				Expect(l.Acknowledge("gen-1", mib+16)).To(Equal(ledger.Duplicate))
				_, err = l.Prepare(8, 8, 0, rng(mib+16, mib+24))
				Expect(err).To(MatchError(ledger.ErrRetainedLimit), "still parked after the ack")
			} else {
				Expect(err).NotTo(HaveOccurred())
			}
		}
	})

	It("refuses everything once closed", func() {
		l.Close()
		_, err := l.Prepare(1, 1, 0, rng(0, 1))
		Expect(err).To(MatchError(ledger.ErrClosed))
	})
})
