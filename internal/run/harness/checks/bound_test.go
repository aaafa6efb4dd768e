package checks_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("Bound", func() {
	It("cuts a long value to its start and end, saying how much was cut and where the whole is", func() {
		long := "field text: got \"" + strings.Repeat("A", 100_000) + "\" want \"hi\""
		fs := checks.Bound([]results.Finding{{Kind: results.FieldMismatch, Message: long}})
		m := fs[0].Message
		Expect(len(m)).To(BeNumerically("<=", checks.LineBound))
		Expect(m).To(HavePrefix("field text: got \"AAA"))
		Expect(m).To(HaveSuffix("\" want \"hi\""))
		Expect(m).To(MatchRegexp(`…\[99,[0-9]{3} of 100,028 bytes cut: the whole value is in the transcript\]…`))
	})

	It("keeps a detail's first and last lines and cuts each line", func() {
		var lines []string
		for i := range 5000 {
			lines = append(lines, strings.Repeat("x", i%700))
		}
		lines[0], lines[4999] = "first", "last"
		d := checks.Bound([]results.Finding{{Detail: strings.Join(lines, "\n")}})[0].Detail
		got := strings.Split(d, "\n")
		Expect(got).To(HaveLen(checks.DetailLines))
		Expect(got[0]).To(Equal("first"))
		Expect(got[len(got)-1]).To(Equal("last"))
		Expect(d).To(ContainSubstring("…[4,941 of 5,000 lines cut: the whole evidence is in the transcript]…"))
		for _, l := range got {
			Expect(len(l)).To(BeNumerically("<=", checks.LineBound))
		}
	})

	It("cuts between code points and leaves a bounded finding as it is", func() {
		long := strings.Repeat("é", 1000) + strings.Repeat("日本", 500)
		once := checks.Bound([]results.Finding{{Message: long, Detail: long + "\n" + long}})
		Expect(strings.ToValidUTF8(once[0].Message, "?")).To(Equal(once[0].Message))
		twice := checks.Bound([]results.Finding{once[0]})
		Expect(twice[0]).To(Equal(once[0]))
	})

	It("leaves short findings alone (negative control)", func() {
		f := results.Finding{Kind: results.Stall, Message: "await frame H>C Output not reached within 5s", Detail: "last frames seen:\n  #3 H>C ready (step connect)"}
		Expect(checks.Bound([]results.Finding{f})[0]).To(Equal(f))
	})
})
