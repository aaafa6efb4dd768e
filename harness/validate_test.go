package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/journeys"
)

var _ = Describe("Validate", func() {
	It("accepts every built-in journey", func() {
		for _, n := range journeys.BuiltinNames() {
			j, err := journeys.Builtin(n)
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(j)).To(Succeed(), n)
		}
	})

	DescribeTable("refuses what the vocabulary does not know, with file:line",
		func(script, want string) {
			j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep a\n"+script+"\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(j)).To(MatchError(want))
		},
		Entry("unknown verb", "wait client x", `j.txtar:4: unknown verb "wait" (want client, host, await, tap or end)`),
		Entry("action without a name", "client", "j.txtar:4: client needs an action name (client subscribe …)"),
		Entry("await without what", "await client", "j.txtar:4: await needs a role and what to wait for (await client rendered-snapshot)"),
		Entry("await frame without a direction", "await frame Unsubscribe x", "j.txtar:4: await frame needs a direction and a name (await frame C>H Unsubscribe)"),
		Entry("await an unknown role", "await server ready", "j.txtar:4: await server: want host, client or frame"),
		Entry("tap", "tap cut", "j.txtar:4: tap knows only: tap drop"),
		Entry("end", "end now", "j.txtar:4: end knows only: end expected-refusal"),
		Entry("condition", "[capability:x] tap drop", "j.txtar:4: unknown condition [capability:x] (want kind:K, cap:NAME, frame:NAME, client-frame:NAME or window)"),
	)
})
