package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// rewrite marks frame i (1-based) of b as rewritten from original.
func rewrite(b *builder, i int, data []byte, what string) {
	f := &b.t.Frames[i-1]
	f.Original, f.Data, f.Rewrite = f.Data, data, what
}

var _ = Describe("Intolerance (the future-peer oracle)", func() {
	host, client := contractJSON("v1.0.2", true, false), contractJSON("v1.0.1", true, false)
	same := func() (*checks.Input, []results.Finding) {
		in := input(compatible(true), host, client)
		return in, checks.Run(in)
	}

	It("finds nothing when the receiver did the same with the rewritten frames", func() {
		base, bf := same()
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field: added optional field /skewtestFuture0a1")
		fut := input(b, host, client)
		Expect(checks.Intolerance(base, fut, bf, checks.Run(fut))).To(BeEmpty())
	})

	It("finds nothing without a rewrite: a run that was not rewritten is no future-peer run", func() {
		base, bf := same()
		b := compatible(true)
		b.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "reason": "unknown opcode 15"})
		fut := input(b, host, client)
		Expect(checks.Intolerance(base, fut, bf, checks.Run(fut))).To(BeEmpty())
	})

	It("reports a refusal only the rewritten run has, with the rewrite as evidence", func() {
		base, bf := same()
		b := compatible(true)
		rewrite(b, len(b.t.Frames), bin(15, 9, `{"data":"out","rawLength":9,"transformed":true,"skewtestFuture0b2":1}`),
			"optional-field: added optional field /skewtestFuture0b2 = 1")
		b.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "reason": "unknown key skewtestFuture0b2"})
		fut := input(b, host, client)
		fs := checks.Intolerance(base, fut, bf, checks.Run(fut))
		Expect(fs).NotTo(BeEmpty())
		Expect(fs[0].Kind).To(Equal(results.IntolerantDecoder))
		Expect(fs[0].Step).To(Equal("output"))
		Expect(fs[0].Direction).To(Equal("H>C"))
		Expect(fs[0].Message).To(HavePrefix("with frames rewritten as a later release may send them: decoder-refusal: "))
		Expect(fs[0].Detail).To(ContainSubstring("rewrites:\n  #"))
		Expect(fs[0].Detail).To(ContainSubstring("H>C OutputSpan (step output): optional-field: added optional field /skewtestFuture0b2 = 1"))
		Expect(fs[0].Detail).To(ContainSubstring(`rewritten: t\x01\x0f`))
	})

	It("does not repeat what the unmodified run already found", func() {
		b0 := compatible(true)
		b0.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "reason": "unknown opcode 15"})
		base := input(b0, host, client)
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field")
		b.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "reason": "unknown opcode 15"})
		fut := input(b, host, client)
		Expect(checks.Intolerance(base, fut, checks.Run(base), checks.Run(fut))).To(BeEmpty())
	})

	It("reports frames the receiver sent back differently, per step", func() {
		base, bf := same()
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field")
		// The client asks for a snapshot in step output once it saw the rewritten subscribed.
		b.frame("C>H", bin(11, 0, `{"requestId":1}`))
		fut := input(b, host, client)
		var back []results.Finding
		for _, f := range checks.Intolerance(base, fut, bf, checks.Run(fut)) {
			if f.Message == "with H>C frames rewritten as a later release may send them, the receiver answered differently in step output" {
				back = append(back, f)
			}
		}
		Expect(back).To(HaveLen(1))
		Expect(back[0].Kind).To(Equal(results.IntolerantDecoder))
		Expect(back[0].Direction).To(Equal("C>H"))
		Expect(back[0].Detail).To(HavePrefix("C>H frames of step output:\n  unmodified run only: (none)\n  rewritten run only:  SnapshotRequest\nrewrites:\n  #3 H>C subscribed (step subscribe)"))
	})

	It("ignores a finding about the rewrite itself (it names what the rewrite added)", func() {
		base, bf := same()
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field")
		fut := input(b, host, client)
		ff := append(checks.Run(fut), results.Finding{Kind: results.CapabilityMismatch, Step: "subscribe",
			Message: "the host echoed capability skewtestFutureCapability001 that the client never declared"})
		Expect(checks.Intolerance(base, fut, bf, ff)).To(BeEmpty())
	})

	It("leaves out what the driver of a build that only sent rewritten frames reports, not what a receiver's reports", func() {
		base, bf := same()
		hostErr := results.Finding{Kind: results.DriverError, Step: "output", Message: "host driver reported an error: ack to byte 121: excessive"}
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field")
		fut := input(b, host, client)
		Expect(checks.Intolerance(base, fut, bf, append(checks.Run(fut), hostErr))).To(BeEmpty(), "the host only sent (H>C rewritten)")

		b = compatible(true)
		rewrite(b, 2, bin(9, 0, `{"streamId":1,"skewtestFuture0c3":true}`), "optional-field")
		fut = input(b, host, client)
		fs := checks.Intolerance(base, fut, bf, append(checks.Run(fut), hostErr))
		Expect(fs).To(HaveLen(1), "the host received (C>H rewritten)")
		Expect(fs[0].Message).To(ContainSubstring("driver-error: host driver reported an error"))
	})

	It("compares frames sent back only up to the step where the rewritten run stopped", func() {
		base, bf := same()
		b := compatible(true)
		rewrite(b, 3, []byte(`{"type":"subscribed","capabilities":{},"skewtestFuture0a1":"x"}`), "optional-field")
		// The client stops acking and sending in step input, and never reaches step output.
		b.t.Frames = b.t.Frames[:6]
		b.t.Steps[1].Done = false
		b.t.Steps = b.t.Steps[:2]
		fut := input(b, host, client)
		var steps []string
		for _, f := range checks.Intolerance(base, fut, bf, nil) {
			steps = append(steps, f.Step)
		}
		Expect(steps).To(Equal([]string{"input"}), "step output did not run: nothing to compare there")
	})
})
