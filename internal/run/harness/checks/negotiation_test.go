package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("NegotiationReader", func() {
	It("finds, as the transcript grows, what Negotiated finds on the whole of it at each point", func() {
		c := contractJSON("1.0.2", true, true)
		b := newTranscript()
		b.t.Conns = []transcript.ConnEvent{{Conn: 1, Path: "/terminal.multiplex", Event: "open"}}
		in := input(b, c, c)
		var r checks.NegotiationReader
		named := func() []checks.Named { return checks.NameFrames(&checks.Input{Transcript: b.t, Host: c, Client: c}) }
		steps := []func(){
			func() { b.begin("a").text("H>C", map[string]any{"type": "ready"}) },
			func() {
				b.observe(transcript.Client, "subscribed", map[string]any{"capabilities": map[string]any{"outputSpan": true, "ackOutput": false}})
			},
			func() { b.observe(transcript.Client, "rendered-output", map[string]any{"screen": []byte("x")}) },
			func() {
				b.begin("b").observe(transcript.Client, "subscribed", map[string]any{"capabilities": map[string]any{"outputPause": true}})
			},
		}
		var seen []map[string]bool
		for _, step := range steps {
			step()
			want := checks.Negotiated(&checks.Input{Transcript: b.t, Journey: in.Journey, Host: c, Client: c})
			Expect(r.Negotiated(in, named)).To(Equal(want))
			seen = append(seen, want)
		}
		Expect(seen[1]).To(Equal(map[string]bool{"outputSpan": true}), "the control: the report is read")
		Expect(seen[3]).To(Equal(map[string]bool{"outputPause": true}), "the latest report of a source counts")
	})
})
