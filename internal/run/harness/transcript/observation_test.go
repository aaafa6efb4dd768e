package transcript_test

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("an observation's decoded data", func() {
	o := transcript.Observation{What: "screen", Data: json.RawMessage(`{"bytes":"aGk="}`)}

	It("is decoded once for a memoized observation and its copies, and derived once per key", func() {
		m := o.Memoized()
		copied := m
		v, ok := copied.Value()
		Expect(ok).To(BeTrue())
		Expect(v).To(Equal(map[string]any{"bytes": "aGk="}))
		calls := 0
		derive := func() any { calls++; return calls }
		Expect(m.Derive("a", derive)).To(Equal(1))
		Expect(copied.Derive("a", derive)).To(Equal(1))
		Expect(m.Derive("b", derive)).To(Equal(2))
		Expect(calls).To(Equal(2))
	})

	It("forgets what was derived, not the decoded value, once its transcript says so (ForgetDerived)", func() {
		t := &transcript.Transcript{Observations: []transcript.Observation{o.Memoized(), o}}
		calls := 0
		derive := func() any { calls++; return calls }
		Expect(t.Observations[0].Derive("a", derive)).To(Equal(1))
		Expect(t.Observations[0].Derive("a", derive)).To(Equal(1))
		v, _ := t.Observations[0].Value()
		t.ForgetDerived()
		Expect(t.Observations[0].Derive("a", derive)).To(Equal(2), "derived again")
		Expect(t.Observations[0].Derive("a", derive)).To(Equal(2), "and kept again")
		again, ok := t.Observations[0].Value()
		Expect(ok).To(BeTrue())
		Expect(fmt.Sprintf("%p", again)).To(Equal(fmt.Sprintf("%p", v)), "the decoded value is kept, not decoded again")
	})

	It("takes the value it was parsed with (WithValue), and derives on every call when not memoized", func() {
		w := o.WithValue(map[string]any{"bytes": "parsed with the line"})
		v, ok := w.Value()
		Expect(ok).To(BeTrue())
		Expect(v).To(Equal(map[string]any{"bytes": "parsed with the line"}))

		calls := 0
		derive := func() any { calls++; return calls }
		Expect(o.Derive("a", derive)).To(Equal(1))
		Expect(o.Derive("a", derive)).To(Equal(2))
	})
})
