package bisect

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
)

var _ = Describe("defaults", func() {
	pairing := func(side, good string) *Config {
		return &Config{Repo: "r", Host: "v1.2.0", Client: "worktree", Kind: "desktop", Journey: "j", Side: side, Good: good}
	}

	DescribeTable("refuses a good end that is the working tree, naming Good",
		func(c *Config, want string) {
			err := c.defaults()
			Expect(err).To(MatchError(want))
			var oe *usage.OptionError
			Expect(errors.As(err, &oe)).To(BeTrue())
			Expect(oe.Option).To(Equal("Good"))
		},
		Entry("given", pairing(Host, "worktree"),
			"Good worktree: the walk goes from a commit to a later one: give the ref of a commit where the pairing passes"),
		Entry("by default, the fixed side's build", pairing(Host, ""),
			"Good defaults to the fixed side's build, the working tree: the walk goes from a commit to a later one: give the ref of a commit where the pairing passes"),
	)

	It("takes a commit as the good end (control)", func() {
		c := pairing(Host, "v1.0.0")
		Expect(c.defaults()).To(Succeed())
		Expect([]string{c.Good, c.Bad}).To(Equal([]string{"v1.0.0", "v1.2.0"}))
	})
})
