package bisect

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/results"
)

var _ = Describe("search", func() {
	// verdicts says position i's verdict: bad from firstBad on, with some set aside.
	verdicts := func(firstBad int, unjudged map[int]string) func(int) (string, error) {
		return func(i int) (string, error) {
			if v, ok := unjudged[i]; ok {
				return v, nil
			}
			if i >= firstBad {
				return results.VerdictBad, nil
			}
			return results.VerdictGood, nil
		}
	}
	line := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}

	It("finds the first bad position of every line, testing about log2 of them", func() {
		for n := 2; n <= 40; n++ {
			for fb := 1; fb < n; fb++ {
				tested := 0
				test := verdicts(fb, nil)
				lg, got, unjudged, err := search(line(n), func(i int) (string, error) { tested++; return test(i) })
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(Equal(fb), "n=%d", n)
				Expect(lg).To(Equal(fb - 1))
				Expect(unjudged).To(BeEmpty())
				Expect(tested).To(BeNumerically("<=", 6), "n=%d fb=%d", n, fb)
			}
		}
	})

	It("steps around a candidate that does not build, and names it when it is the one", func() {
		// 0 good … 9 bad; 5 does not build.
		lg, fb, unjudged, err := search(line(10), verdicts(7, map[int]string{5: results.VerdictSkipped}))
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{lg, fb}).To(Equal([]int{6, 7}))
		Expect(unjudged).To(BeEmpty())

		// The first bad is 5 or 6: 5 cannot be judged, 4 is good, 6 is bad.
		lg, fb, unjudged, err = search(line(10), verdicts(5, map[int]string{5: results.VerdictSkipped}))
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{lg, fb}).To(Equal([]int{4, 6}))
		Expect(unjudged).To(Equal([]int{5}), "the skipped one may be the first bad")
	})

	It("never takes a flaky candidate as good or bad", func() {
		lg, fb, unjudged, err := search(line(3), verdicts(1, map[int]string{1: results.VerdictFlaky}))
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{lg, fb}).To(Equal([]int{0, 2}))
		Expect(unjudged).To(Equal([]int{1}))
	})

	It("searches only the positions given (the tags), in their order", func() {
		var tested []int
		test := verdicts(6, nil)
		lg, fb, _, err := search([]int{0, 3, 6, 9}, func(i int) (string, error) { tested = append(tested, i); return test(i) })
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{lg, fb}).To(Equal([]int{3, 6}))
		Expect(tested).To(ConsistOf(3, 6))
	})
})

var _ = Describe("movingSide", func() {
	It("moves the working tree's side, else the newer release's", func() {
		Expect(movingSide("worktree", "v1.0.0")).To(Equal(Host))
		Expect(movingSide("v1.0.0", "worktree")).To(Equal(Client))
		Expect(movingSide("v1.2.0", "v1.0.0")).To(Equal(Host))
		Expect(movingSide("v1.0.0", "v1.10.0")).To(Equal(Client))
	})

	It("asks for the side when it cannot tell", func() {
		_, err := movingSide("main", "feature")
		Expect(err).To(MatchError(ContainSubstring("give the side")))
	})
})
