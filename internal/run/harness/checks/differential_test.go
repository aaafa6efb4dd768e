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

	Describe("answers to requests that crossed", func() {
		// A host answers Resize with Resized and then Redrawn (an echo invariant ties both to
		// the Resize), Input it cannot take with Error (which no invariant ties to anything).
		frames := terminalFrames + `,
		  {"opcode":5,"name":"Resized","direction":"H>C","payload":"json"},
		  {"opcode":6,"name":"Error","direction":"H>C","payload":"text"},
		  {"opcode":8,"name":"Resize","direction":"C>H","payload":"json"},
		  {"opcode":14,"name":"Redrawn","direction":"H>C","payload":"empty"}`
		answering := contractOf("v1", frames, `{"kind":"echo","request":["Resize"],"reply":["Resized","Redrawn"],"pointer":"/cols"}`)
		frame := func(dir string, op byte, payload string) transcript.Frame {
			return transcript.Frame{Conn: 1, Path: "/terminal.multiplex", Dir: dir, Binary: true, Data: bin(op, 0, payload), Step: "input"}
		}
		resize, input := frame("C>H", 8, `{"cols":90}`), frame("C>H", 7, "hi\r")
		resized, redrawn, refused := frame("H>C", 5, `{"cols":90}`), frame("H>C", 14, ""), frame("H>C", 6, "terminal_write_unavailable")
		// inStep is compatible's transcript whose step input carries frames (in their place of
		// the Input and the Ack it has), the other steps as they are.
		inStep := func(frames ...transcript.Frame) *builder {
			b := compatible(false)
			var out []transcript.Frame
			for _, f := range b.t.Frames {
				if f.Step != "input" {
					out = append(out, f)
				} else if len(frames) > 0 {
					out, frames = append(out, frames...), nil
				}
			}
			for i := range out {
				out[i].Index = i + 1
			}
			b.t.Frames = out
			return b
		}
		// The references: the client sends Resize then Input, the host answers Resized,
		// Redrawn, then Error.
		ref := func() *builder { return inStep(resize, input, resized, redrawn, refused) }

		It("takes the answers to two requests sent before either was answered in either order", func() {
			Expect(judge(ref(), ref(), ref(), answering, answering)).To(BeEmpty())
			// The host answered the Input first: its Error came before the Resize's answers.
			Expect(judge(inStep(resize, input, refused, resized, redrawn), ref(), ref(), answering, answering)).To(BeEmpty())
			// Or between them.
			Expect(judge(inStep(resize, input, resized, refused, redrawn), ref(), ref(), answering, answering)).To(BeEmpty())
		})

		It("still finds the answers of one request out of their order, and frames no invariant ties", func() {
			// One request's answers: Redrawn before Resized is an order neither reference shows.
			fs := judge(inStep(resize, input, redrawn, resized, refused), ref(), ref(), answering, answering)
			Expect(fs).To(ConsistOf(HaveField("Kind", results.SequenceDrift)))
			Expect(fs[0].Detail).To(ContainSubstring("step input, H>C frames:\n  this pairing:  Redrawn, Resized, Error\n"))

			// The same Error ahead of the Resize's answers where the Resize is all the client
			// sent in the step: nothing crossed it, so its answers keep their place.
			alone := func(frames ...transcript.Frame) *builder {
				return inStep(append([]transcript.Frame{resize}, frames...)...)
			}
			fs = judge(alone(refused, resized, redrawn), alone(resized, redrawn, refused), alone(resized, redrawn, refused), answering, answering)
			Expect(fs).To(ConsistOf(HaveField("Kind", results.SequenceDrift)))
			Expect(fs[0].Detail).To(ContainSubstring("this pairing:  Error, Resized, Redrawn\n"))

			// Without the invariant, the contract ties nothing: the crossed order is drift.
			plain := contractOf("v1", frames, "")
			Expect(judge(inStep(resize, input, refused, resized, redrawn), ref(), ref(), plain, plain)).To(ConsistOf(HaveField("Kind", results.SequenceDrift)))
		})
	})

	It("finds the same substitution drift where the frame is not gated", func() {
		ungated := contractJSON("v1", true, false)
		fs := judge(compatible(false), spanRef(), spanRef(), ungated, ungated)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(ContainSubstring("step output, H>C frames:\n  this pairing:  Output\n"))
	})
})
