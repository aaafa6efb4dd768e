package harness_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
)

var _ = Describe("an action's arguments", func() {
	It("sends numbers and booleans as such unless quoted, JSON as it is even quoted, text as bytes", func() {
		j, err := journeys.Parse("a.txtar", []byte("kind *\n-- script --\nstep a\n"+
			`host set n=2 q="2" b=true qb="true" obj={"k":1} qobj="{\"k\":2}" word=x text="hi"`+"\n"))
		Expect(err).NotTo(HaveOccurred())
		raw, err := json.Marshal(harness.ActionArgs(j.Steps[0].Commands[0]))
		Expect(err).NotTo(HaveOccurred())
		Expect(raw).To(MatchJSON(`{"n":2,"q":"2","b":true,"qb":"true","obj":{"k":1},"qobj":{"k":2},"word":"x","bytes":"aGk="}`))
	})
})
