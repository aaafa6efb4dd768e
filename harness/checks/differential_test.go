package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/harness/checks"
	"github.com/skewtest/skewtest/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("Differential", func() {
	// negotiating makes b's client report caps as negotiated.
	negotiating := func(b *builder, caps map[string]any) *builder {
		for i, o := range b.t.Observations {
			if o.What == "subscribed" {
				b.t.Observations[i].Data = raw(map[string]any{"capabilities": caps})
			}
		}
		return b
	}
	// judge runs the oracle on pairing with a reference (a transcript of the same shape) per build.
	judge := func(pairing, hostRef, clientRef *builder, host, client *contract.Contract) []results.Finding {
		in := input(pairing, host, client)
		hostRef.t.Host.Label, hostRef.t.Client.Label = "v1.0.2", "v1.0.2"
		clientRef.t.Host.Label, clientRef.t.Client.Label = "v1.0.1", "v1.0.1"
		in.HostReference, in.Reference = hostRef.t, clientRef.t
		return checks.Differential(in)
	}
	spanRef := func() *builder { return negotiating(compatible(true), map[string]any{"outputSpan": true}) }

	It("takes a frame in the place of a gated frame this pairing did not negotiate as a downgrade, not drift", func() {
		gated := contractJSON("v1", true, true)
		Expect(judge(compatible(false), spanRef(), spanRef(), gated, gated)).To(BeEmpty())
	})

	It("still finds drift in a step no gated frame explains", func() {
		gated := contractJSON("v1", true, true)
		p := compatible(false)
		// The client asks for a snapshot while typing, which neither reference does.
		p.t.Frames = append(p.t.Frames, transcript.Frame{Index: len(p.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: "C>H", Binary: true, Data: bin(11, 0, `{}`), Step: "input"})
		fs := judge(p, spanRef(), spanRef(), gated, gated)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Kind).To(Equal(results.SequenceDrift))
		Expect(fs[0].Detail).To(ContainSubstring("step input, C>H frames:\n  this pairing:  Input, SnapshotRequest"))
	})

	It("finds the same substitution drift where the frame is not gated", func() {
		ungated := contractJSON("v1", true, false)
		fs := judge(compatible(false), spanRef(), spanRef(), ungated, ungated)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(ContainSubstring("step output, H>C frames:\n  this pairing:  Output\n"))
	})
})
