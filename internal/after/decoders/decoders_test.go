package decoders_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/decoders"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("Questions to decoders about recorded traffic", func() {
	frames := []transcript.Frame{
		{Index: 0, Dir: "C>H", Data: []byte(`{"t":"hello"}`), Step: "connect"},
		{Index: 1, Dir: "H>C", Data: []byte{1, 2}, Binary: true, Step: "output", Read: []transcript.ReadFrame{{Name: "Output"}}},
		{Index: 2, Dir: "H>C", Control: "ping"},
		{Index: 3, Dir: "H>C", Data: []byte{9}, Original: []byte{8}, Step: "output"},
		{Index: 4, Dir: "H>C", Data: []byte{1, 3}, Binary: true, Step: "output"},
	}
	rec := decoders.Recording{From: "host v1 × desktop client v1 · terminal", Host: "v1", Client: "v1", Kind: "desktop", Journey: "terminal",
		T: &transcript.Transcript{Frames: frames}}
	desktop := &harness.Build{Label: "v2", Clients: map[string][]string{"desktop": {"./d"}}}

	It("asks a build's client about the host's messages and its host about the client's, leaving out control frames and rewritten ones", func() {
		cells := decoders.Cells(rec, desktop)
		Expect(cells).To(HaveLen(2))
		Expect(cells[0].Dir).To(Equal("H>C"))
		Expect(cells[0].Role()).To(Equal(transcript.Client))
		Expect(cells[0].Recorder()).To(Equal("v1"))
		Expect(cells[0].Frames).To(HaveLen(2))
		Expect(cells[0].Frames[0].Index).To(Equal(1))
		Expect(cells[0].Frames[1].Index).To(Equal(4))
		Expect(cells[1].Dir).To(Equal("C>H"))
		Expect(cells[1].Role()).To(Equal(transcript.Host))

		Expect(decoders.Cells(rec, &harness.Build{Label: "v2"})).To(HaveLen(1), "a build without that kind of client is asked as a host only")
		Expect(decoders.Cells(rec, desktop, "C>H")).To(HaveLen(1))
	})

	answer := func(into string, decoded map[int]transcript.DriverDecode) decoders.Answer {
		cell := decoders.Cells(rec, &harness.Build{Label: into, Clients: desktop.Clients}, "H>C")[0]
		return decoders.Answer{Cell: cell, Decoded: decoded}
	}
	output := func(fields string) transcript.DriverDecode {
		return transcript.DriverDecode{Frames: []transcript.DecodedFrame{{Type: "Output", Fields: json.RawMessage(fields)}}}
	}

	It("makes a decoder-refusal of each frame refused or not answered, placed where it was recorded", func() {
		a := answer("v2", map[int]transcript.DriverDecode{1: {Refused: true, Reason: "unknown opcode"}})
		fs := a.Refusals()
		Expect(fs).To(HaveLen(2))
		Expect(fs[0]).To(And(HaveField("Kind", results.DecoderRefusal), HaveField("Step", "output"), HaveField("Direction", "H>C"),
			HaveField("Frame", Equal(&results.Frame{Name: "Output"})),
			HaveField("Message", "desktop client v2 refused H>C Output (message 1 of host v1 × desktop client v1 · terminal): unknown opcode")))
		Expect(fs[1].Message).To(HaveSuffix("no answer from its decoder"))

		Expect(answer("v2", map[int]transcript.DriverDecode{1: output(`{}`), 4: output(`{}`)}).Refusals()).To(BeEmpty())
	})

	It("makes a field-mismatch of a field two decoders read differently from the same frame, and nothing of fields only one names", func() {
		recorder := answer("v1", map[int]transcript.DriverDecode{
			1: output(`{"seq":4,"data":"aGk=","extra":1}`),
			4: output(`{"seq":5}`),
		})
		a := answer("v2", map[int]transcript.DriverDecode{
			1: output(`{"seq":3, "data": "aGk=", "new":true}`),
			4: output(`{"seq":5}`),
		})
		fs := a.Mismatches(recorder)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0]).To(And(HaveField("Kind", results.FieldMismatch), HaveField("Step", "output"),
			HaveField("Message", "desktop client v2 reads H>C Output (message 1 of host v1 × desktop client v1 · terminal): Output.seq as 3 where v1 (which received it) read 4")))

		Expect(answer("v1", recorder.Decoded).Mismatches(recorder)).To(BeEmpty(), "the recorder agrees with itself")
	})

	It("compares no further a frame either refused, or named or split differently", func() {
		recorder := answer("v1", map[int]transcript.DriverDecode{1: output(`{"seq":4}`), 4: output(`{"seq":5}`)})
		a := answer("v2", map[int]transcript.DriverDecode{
			1: {Refused: true},
			4: {Frames: []transcript.DecodedFrame{{Type: "OutputSpan", Fields: json.RawMessage(`{"seq":6}`)}}},
		})
		Expect(a.Mismatches(recorder)).To(BeEmpty())
	})

	It("answers with the reason a driver could not be started, per cell", func(ctx SpecContext) {
		k := &decoders.Asker{LogDir: GinkgoT().TempDir()}
		defer k.Stop(ctx)
		b := &harness.Build{Label: "broken", Dir: GinkgoT().TempDir(), Host: []string{"./no-such-driver"}}
		answers := k.Ask(ctx, decoders.Cells(rec, b))
		Expect(answers).To(HaveLen(1))
		Expect(answers[0].Err).To(HaveOccurred())
		Expect(errors.Is(answers[0].Err, harness.ErrNoDecode)).To(BeFalse())
	})

	It("starts no driver once the context is done: every cell not yet asked carries the context's error", func(ctx SpecContext) {
		k := &decoders.Asker{LogDir: GinkgoT().TempDir(), Parallel: 1}
		defer k.Stop(ctx)
		dir := GinkgoT().TempDir()
		b := &harness.Build{Label: "broken", Dir: dir, Host: []string{"./no-such-driver"}}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		answers := k.Ask(cancelled, append(decoders.Cells(rec, b), decoders.Cells(rec, b)...))
		Expect(answers).To(HaveLen(2))
		for _, a := range answers {
			Expect(a.Err).To(MatchError(context.Canceled))
		}
		Expect(os.ReadDir(k.LogDir)).To(BeEmpty(), "no driver was started, so none logged")
	})
})
