package session_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("RoundLog", func() {
	type arrival struct {
		seq   uint64 // 0: the event carries no seq
		phase string
	}
	fold := func(arrivals ...arrival) session.RoundState {
		var l session.RoundLog
		for _, a := range arrivals {
			var seq *uint64
			if a.seq != 0 {
				seq = &a.seq
			}
			l.Add(seq, json.RawMessage(fmt.Sprintf(`{"phase":%q}`, a.phase)))
		}
		return l.State()
	}

	It("merges by seq, so a terminal event that overtook its predecessors still settles the round", func() {
		st := fold(arrival{1, "dispatched"}, arrival{4, "composed"}, arrival{2, "working"}, arrival{3, "report"})
		Expect(st).To(Equal(session.RoundState{Round: 1, Phase: "composed", Terminal: true,
			Phases: []string{"dispatched", "working", "report", "composed"}, LastSeq: 4}))
	})

	It("drops a duplicated seq", func() {
		var l session.RoundLog
		seq := uint64(1)
		Expect(l.Add(&seq, json.RawMessage(`{"phase":"dispatched"}`))).To(BeTrue())
		Expect(l.Add(&seq, json.RawMessage(`{"phase":"composed"}`))).To(BeFalse())
		Expect(l.State().Phase).To(Equal("dispatched"))
	})

	It("does not let a late event of the previous round settle the round now running", func() {
		st := fold(arrival{1, "dispatched"}, arrival{3, "dispatched"}, arrival{2, "composed"}, arrival{4, "working"})
		Expect(st.Round).To(Equal(2))
		Expect(st.Phase).To(Equal("working"))
		Expect(st.Terminal).To(BeFalse())
	})

	It("folds events without seq in arrival order, late frames included", func() {
		st := fold(arrival{0, "dispatched"}, arrival{0, "dispatched"}, arrival{0, "composed"}, arrival{0, "working"})
		Expect(st.Round).To(Equal(2))
		Expect(st.Phase).To(Equal("composed"), "without seq the late terminal frame settles the new round")
		Expect(st.LastSeq).To(BeZero())
	})

	It("moves forward only and ignores phases it does not know", func() {
		st := fold(arrival{1, "dispatched"}, arrival{2, "report"}, arrival{3, "working"}, arrival{4, "coverage"})
		Expect(st.Phase).To(Equal("report"))
		Expect(st.Phases).To(Equal([]string{"dispatched", "report"}))
	})
})
