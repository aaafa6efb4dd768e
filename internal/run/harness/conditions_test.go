package harness_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/results"
)

// firstLineJourney opens with a frame condition, before any connection: the builds'
// contracts decide it, so the host writes "early" before the client subscribes only where
// a build does not know OutputSpan, and the client types "span" where both know it and
// "plain" elsewhere, however the run is scheduled. (Read from the connection, the first line
// was false before the client connected: the host wrote "early" between two new builds.)
const firstLineJourney = `# first-line: a frame condition as the journey's first line
kind desktop
timeout 5s
-- script --
step subscribe
[!frame:OutputSpan] host emit-output text="early\r\n"
[frame:OutputSpan] client subscribe
[!frame:OutputSpan] client subscribe
await client rendered-snapshot
step input
[frame:OutputSpan] client input text="span\r"
[!frame:OutputSpan] client input text="plain\r"
[frame:OutputSpan] await host input text="span\r"
[!frame:OutputSpan] await host input text="plain\r"
`

var _ = Describe("conditions", func() {
	var pids string
	BeforeEach(func() { pids = pidDir() })
	AfterEach(func() {
		Eventually(func() []int { return alive(pids) }).Should(BeEmpty(), "no process may outlive its pairing")
	})

	// typed runs the journey and says its status, whether the host wrote "early" (the
	// snapshot carries it) and what the client typed.
	typed := func(ctx context.Context, j *journeys.Journey, host, client *harness.Build) (results.Status, string) {
		GinkgoHelper()
		p, t := harness.Run(ctx, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: j}, harness.Options{Dir: GinkgoT().TempDir()})
		what := ""
		for _, f := range t.Frames {
			if f.Dir == "H>C" && strings.Contains(string(f.Data), "early") && !strings.Contains(what, "early") {
				what += "early "
			}
			for _, w := range []string{"span", "plain"} {
				if f.Dir == "C>H" && strings.Contains(string(f.Data), w) {
					what += w
				}
			}
		}
		return p.Status, what
	}

	It("decides a journey's first-line frame condition from the contracts: the same verdict in 20 runs under saturation", func(ctx SpecContext) {
		j, err := journeys.Parse("first-line.txtar", []byte(firstLineJourney))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(j)).To(Succeed())

		stop := proctest.Saturate()
		defer stop()
		for i := range 20 {
			status, what := typed(ctx, j, build("a", "ok", true), build("b", "ok", true))
			Expect(status).To(Equal(results.StatusPass), "run %d", i+1)
			Expect(what).To(Equal("span"), "run %d: both builds know OutputSpan", i+1)
		}
		// Negative control: a client that does not know the frame takes the other line.
		status, what := typed(ctx, j, build("a", "ok", true), build("b", "ok", false))
		Expect(status).To(Equal(results.StatusPass))
		Expect(what).To(Equal("early plain"))
	}, SpecTimeout(4*time.Minute)) // a busy machine: each run takes about a second

	It("refuses a frame condition whose channel the contracts do not decide, before any driver starts", func(ctx SpecContext) {
		two := func(span bool) *harness.Build {
			b := build("a", "ok", span)
			second := b.Contract.Channels[0]
			second.Name, second.Paths = "other", []string{"/other"}
			b.Contract = &contract.Contract{ContractVersion: b.Contract.ContractVersion, Channels: []contract.Channel{b.Contract.Channels[0], second},
				Streams: b.Contract.Streams}
			return b
		}
		j, err := journeys.Parse("first-line.txtar", []byte(firstLineJourney))
		Expect(err).NotTo(HaveOccurred())
		var usage []error
		p, _ := harness.Run(ctx, harness.Pairing{Host: two(true), Client: two(true), Kind: "desktop", Journey: j},
			harness.Options{Dir: GinkgoT().TempDir(), OnUsage: func(err error) { usage = append(usage, err) }})
		Expect(p.Status).To(Equal(results.StatusError))
		Expect(p.Error).To(HavePrefix("first-line.txtar:6: condition [!frame:OutputSpan]: which channel's frame? The contracts have the channels other, terminal"))
		Expect(p.Error).To(HaveSuffix("(channel other or channel terminal)"))
		Expect(usage).To(HaveLen(1), "the journey's to fix: a usage error")
		Expect(harness.CheckChannels(j, two(true))).To(MatchError(p.Error), "the plan refuses it the same way")

		// Negative control: the channel header decides it.
		j, err = journeys.Parse("first-line.txtar", []byte(strings.Replace(firstLineJourney, "timeout 5s\n", "timeout 5s\nchannel terminal\n", 1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.CheckChannels(j, two(true))).To(Succeed())
		status, what := typed(ctx, j, two(true), two(true))
		Expect(status).To(Equal(results.StatusPass))
		Expect(what).To(Equal("span"))
	}, SpecTimeout(time.Minute))
})
