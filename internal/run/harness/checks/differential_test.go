package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
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

	Describe("a reference that stopped before a step", func() {
		gated := contractJSON("v1", true, true)
		// stopped makes b a reference that stalled in step: that step and the later ones are
		// not done, and the frames they would have carried never came.
		stopped := func(b *builder, step string) *builder {
			gone := false
			for i := range b.t.Steps {
				gone = gone || b.t.Steps[i].Name == step
				b.t.Steps[i].Done = b.t.Steps[i].Done && !gone
			}
			var kept []transcript.Frame
			for _, f := range b.t.Frames {
				if f.Step != step && f.Step != "output" {
					kept = append(kept, f)
				}
			}
			b.t.Frames = kept
			b.t.Stall = &transcript.Stall{Step: step, Barrier: "await frame H>C Output"}
			return b
		}
		// snooping is the pairing of the drift spec above: a SnapshotRequest in step input
		// that neither complete reference shows.
		snooping := func() *builder {
			p := compatible(false)
			p.t.Frames = append(p.t.Frames, transcript.Frame{Index: len(p.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: "C>H", Binary: true, Data: bin(11, 0, `{}`), Step: "input"})
			return p
		}

		It("says the references are incomplete, naming where they stopped, instead of drift", func() {
			fs := judge(snooping(), stopped(spanRef(), "input"), stopped(spanRef(), "input"), gated, gated)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Kind).To(Equal(results.IncompleteReference))
			Expect(fs[0].Step).To(Equal("input"))
			Expect(fs[0].Message).To(ContainSubstring("host v1.0.2 × its own client stopped at step input"))
			Expect(fs[0].Message).To(ContainSubstring("client v1.0.1 × its own host stopped at step input"))
			Expect(fs[0].Detail).To(ContainSubstring("step input, C>H frames: Input, SnapshotRequest"))
			// One reference stopped: the complete one alone cannot tell drift from what the
			// other build does.
			fs = judge(snooping(), stopped(spanRef(), "input"), spanRef(), gated, gated)
			Expect(fs).To(ConsistOf(HaveField("Kind", results.IncompleteReference)))
			Expect(fs[0].Message).NotTo(ContainSubstring("client v1.0.1"))
		})

		It("still judges a step by the reference that completed it, and steps before the stop by both", func() {
			// The complete reference shows what the pairing does: nothing to report.
			Expect(judge(compatible(false), stopped(spanRef(), "input"), spanRef(), gated, gated)).To(BeEmpty())
			// A step both references completed is still drift (negative control).
			p := compatible(false)
			p.t.Frames = append(p.t.Frames, transcript.Frame{Index: len(p.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: "C>H", Binary: true, Data: bin(11, 0, `{}`), Step: "subscribe"})
			fs := judge(p, stopped(spanRef(), "output"), stopped(spanRef(), "output"), gated, gated)
			Expect(fs).To(ConsistOf(
				And(HaveField("Kind", results.SequenceDrift), HaveField("Step", "subscribe")),
				// The pairing's Output in step output: no reference got there.
				And(HaveField("Kind", results.IncompleteReference), HaveField("Step", "output"),
					HaveField("Detail", "frames no complete reference shows:\n  step output, H>C frames: Output"))))
		})
	})

	It("says what a skew step owes and every frame it may carry, and not the latter where a gated frame was left out", func() {
		owing := func(hostRef, clientRef *builder, c *contract.Contract) *checks.Owing {
			in := input(compatible(false), c, c)
			hostRef.t.Host.Label, hostRef.t.Client.Label = "v1.0.2", "v1.0.2"
			clientRef.t.Host.Label, clientRef.t.Client.Label = "v1.0.1", "v1.0.1"
			in.HostReference, in.Reference = hostRef.t, clientRef.t
			return checks.NewOwing(in)
		}
		plain := contractJSON("v1", true, false)
		o := owing(compatible(false), compatible(false), plain)
		Expect(o.Step("output", nil)).To(HaveKeyWithValue("H>C", []string{"Output"}))
		shown, decided := o.Shown("output", nil)
		Expect(decided).To(BeTrue())
		Expect(shown).To(HaveKeyWithValue("H>C", []string{"Output"}))
		shown, decided = o.Shown("input", nil)
		Expect(decided).To(BeTrue())
		Expect(shown).To(HaveKey("C>H"))
		Expect(shown).NotTo(HaveKey("H>C"), "neither reference shows an H>C frame in step input")

		// Both references negotiated outputSpan, this pairing did not: their OutputSpan is left
		// out of step output, and what the pairing sends in its place is not known.
		gated := contractJSON("v1", true, true)
		o = owing(spanRef(), spanRef(), gated)
		_, decided = o.Shown("output", map[string]bool{})
		Expect(decided).To(BeFalse())
		_, decided = o.Shown("input", map[string]bool{})
		Expect(decided).To(BeTrue(), "a step no gated frame is left out of")
		// Control: a pairing that negotiated it too.
		shown, decided = o.Shown("output", map[string]bool{"outputSpan": true})
		Expect(decided).To(BeTrue())
		Expect(shown).To(HaveKeyWithValue("H>C", []string{"OutputSpan"}))

		var none *checks.Owing
		_, decided = none.Shown("output", nil)
		Expect(decided).To(BeFalse(), "no references: not known")
	})

	Describe("a frame that crosses a step boundary", func() {
		contract := contractJSON("v1", true, false)
		// late moves the frame at index i (0-based) of b to step.
		late := func(b *builder, i int, step string) *builder {
			b.t.Frames[i].Step = step
			return b
		}
		// The Input frame (index 6) belongs to step input; a second one, as a client that
		// sends its input twice would, lands wherever it lands.
		twice := func(b *builder, step string) *builder {
			f := b.t.Frames[6]
			f.Index, f.Step = len(b.t.Frames)+1, step
			b.t.Frames = append(b.t.Frames, f)
			return b
		}

		It("gives the verdict it gives when nothing crosses, whichever transcript it crossed in", func() {
			Expect(judge(compatible(true), compatible(true), compatible(true), contract, contract)).To(BeEmpty())
			// The pairing's Input arrived after its step settled.
			Expect(judge(late(compatible(true), 6, "output"), compatible(true), compatible(true), contract, contract)).To(BeEmpty())
			// A reference's did.
			Expect(judge(compatible(true), late(compatible(true), 6, "output"), late(compatible(true), 6, "output"), contract, contract)).To(BeEmpty())
			// A second Input after the step's barrier, in the pairing only.
			Expect(judge(twice(compatible(true), "output"), compatible(true), compatible(true), contract, contract)).To(BeEmpty())
		})

		It("is still drift two steps away, or where neither reference shows the frame", func() {
			// Subscribe belongs to step subscribe: two steps later is no crossing.
			p := compatible(true)
			f := p.t.Frames[1]
			f.Index, f.Step = len(p.t.Frames)+1, "output"
			p.t.Frames = append(p.t.Frames, f)
			fs := judge(p, compatible(true), compatible(true), contract, contract)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Step).To(Equal("output"))
			Expect(fs[0].Detail).To(ContainSubstring("step output, C>H frames:\n  this pairing:  Subscribe\n"))
			Expect(fs[0].Detail).To(ContainSubstring("(next to it, input: Input)"))

			// A snapshot request at the step boundary that no reference sends anywhere near.
			p = compatible(true)
			p.t.Frames = append(p.t.Frames, transcript.Frame{Index: len(p.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: "C>H", Binary: true, Data: bin(11, 0, `{}`), Step: "output"})
			Expect(judge(p, compatible(true), compatible(true), contract, contract)).To(HaveLen(1))
		})
	})

	It("holds a frame sent at several moments of a step to its presence, not its place", func() {
		contract := contractJSON("v1", true, false)
		input := func(step string, index int) transcript.Frame {
			return transcript.Frame{Index: index, Conn: 1, Path: "/terminal.multiplex", Dir: "C>H", Binary: true, Data: bin(7, 0, "x"), Step: step}
		}
		// Input ahead of Subscribe: an order neither reference shows.
		p := compatible(true)
		p.t.Frames = append([]transcript.Frame{input("subscribe", 0)}, p.t.Frames...)
		fs := judge(p, compatible(true), compatible(true), contract, contract)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(ContainSubstring("step subscribe, C>H frames:\n  this pairing:  Input, Subscribe\n"))

		// Input ahead of Subscribe and after it: sent at several moments, so where it lands
		// among the rest is timing, as a second acknowledgement's is.
		p = compatible(true)
		p.t.Frames = append([]transcript.Frame{input("subscribe", 0)}, p.t.Frames...)
		p.t.Frames = append(p.t.Frames[:3], append([]transcript.Frame{input("subscribe", 0)}, p.t.Frames[3:]...)...)
		Expect(judge(p, compatible(true), compatible(true), contract, contract)).To(BeEmpty())
	})

	It("finds the same substitution drift where the frame is not gated", func() {
		ungated := contractJSON("v1", true, false)
		fs := judge(compatible(false), spanRef(), spanRef(), ungated, ungated)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(ContainSubstring("step output, H>C frames:\n  this pairing:  Output\n"))
	})
})
