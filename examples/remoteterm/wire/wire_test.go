package wire_test

import (
	"encoding/json"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// everything is every opcode any build may know (titleFrame is a switch no release turns on).
var everything = release.Features{Ack: true, ClaimViewport: true, OutputSpan: true, OutputPause: true, WriteUnavailable: true, TitleFrame: true}

var _ = Describe("the frame header", func() {
	It("lays out kind, version, opcode, stream and seq as documented", func() {
		b := wire.Encode(wire.Header{Opcode: wire.OpOutput, Stream: 0x04030201, Seq: 0x1122334455667788}, []byte("hi"))
		Expect(b).To(Equal([]byte{
			0x74, 1, 1, 0,
			0x01, 0x02, 0x03, 0x04,
			0x44, 0x33, 0x22, 0x11, // high u32 LE
			0x88, 0x77, 0x66, 0x55, // low u32 LE
			'h', 'i',
		}))
	})

	It("round-trips through the decoder", func() {
		d := wire.NewDecoder(wire.Opcodes(everything))
		for _, seq := range []uint64{0, 1, 1<<32 - 1, 1 << 32, 9_007_199_254_740_992, 1<<64 - 1} {
			h := wire.Header{Opcode: wire.OpOutputSpan, Stream: 7, Seq: seq}
			f, err := d.Decode(wire.Encode(h, []byte(`{}`)))
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Header).To(Equal(h))
			Expect(f.Payload).To(Equal([]byte(`{}`)))
		}
	})

	DescribeTable("decodes every opcode its table knows",
		func(op wire.Opcode, name string, dir wire.Direction) {
			d := wire.NewDecoder(wire.Opcodes(everything))
			f, err := d.Decode(wire.Encode(wire.Header{Opcode: op, Stream: 3, Seq: 9}, nil))
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Opcode).To(Equal(op))
			Expect(op.String()).To(Equal(name))
			Expect(op.Direction()).To(Equal(dir))
		},
		Entry(nil, wire.OpOutput, "Output", wire.HostToClient),
		Entry(nil, wire.OpSnapshotStart, "SnapshotStart", wire.HostToClient),
		Entry(nil, wire.OpSnapshotChunk, "SnapshotChunk", wire.HostToClient),
		Entry(nil, wire.OpSnapshotEnd, "SnapshotEnd", wire.HostToClient),
		Entry(nil, wire.OpResized, "Resized", wire.HostToClient),
		Entry(nil, wire.OpError, "Error", wire.HostToClient),
		Entry(nil, wire.OpInput, "Input", wire.ClientToHost),
		Entry(nil, wire.OpResize, "Resize", wire.ClientToHost),
		Entry(nil, wire.OpSubscribe, "Subscribe", wire.ClientToHost),
		Entry(nil, wire.OpUnsubscribe, "Unsubscribe", wire.ClientToHost),
		Entry(nil, wire.OpSnapshotRequest, "SnapshotRequest", wire.ClientToHost),
		Entry(nil, wire.OpMetadata, "Metadata", wire.HostToClient),
		Entry(nil, wire.OpAck, "Ack", wire.ClientToHost),
		Entry(nil, wire.OpClaimViewport, "ClaimViewport", wire.ClientToHost),
		Entry(nil, wire.OpOutputSpan, "OutputSpan", wire.HostToClient),
		Entry(nil, wire.OpSetOutputPaused, "SetOutputPaused", wire.ClientToHost),
		Entry(nil, wire.OpWriteUnavailable, "WriteUnavailable", wire.HostToClient),
		Entry(nil, wire.OpTitle, "Title", wire.HostToClient),
	)

	It("names an opcode nobody assigned", func() {
		Expect(wire.Opcode(200).String()).To(Equal("Opcode200"))
		Expect(wire.Opcode(200).Direction()).To(BeEmpty())
		Expect(wire.All()).To(HaveLen(18))
	})
})

var _ = Describe("the decoder", func() {
	d := wire.NewDecoder(wire.Opcodes(release.Features{}))

	refusal := func(b []byte) *wire.DecodeError {
		_, err := d.Decode(b)
		var de *wire.DecodeError
		ExpectWithOffset(1, errors.As(err, &de)).To(BeTrue(), "error %v", err)
		return de
	}

	It("refuses a frame under 16 bytes, still naming its opcode when it has one", func() {
		de := refusal([]byte{0x74, 1, 7, 0, 1})
		Expect(de.Err).To(MatchError(wire.ErrShortFrame))
		Expect(de.HasOpcode).To(BeTrue())
		Expect(de.Opcode).To(Equal(wire.OpInput))
		Expect(de.Length).To(Equal(5))
		Expect(refusal([]byte{0x74}).HasOpcode).To(BeFalse())
	})

	It("refuses a bad kind and a bad version", func() {
		b := wire.Encode(wire.Header{Opcode: wire.OpOutput}, nil)
		b[0] = 0x75
		Expect(refusal(b).Err).To(MatchError(wire.ErrBadKind))
		b = wire.Encode(wire.Header{Opcode: wire.OpOutput}, nil)
		b[1] = 2
		Expect(refusal(b).Err).To(MatchError(wire.ErrBadVersion))
	})

	It("refuses an opcode its release does not know, and reports which", func() {
		b := wire.Encode(wire.Header{Opcode: wire.OpOutputSpan, Stream: 1, Seq: 75}, []byte(`{"data":"x"}`))
		de := refusal(b)
		Expect(errors.Is(de, wire.ErrUnknownOpcode)).To(BeTrue())
		Expect(de.Opcode).To(Equal(wire.OpOutputSpan))
		Expect(de.Length).To(Equal(len(b)))
		Expect(de.Error()).To(ContainSubstring("opcode 15"))
	})

	DescribeTable("knows opcodes by release",
		func(f release.Features, want []wire.Opcode) {
			known := wire.Opcodes(f)
			var above12 []wire.Opcode
			for _, o := range known.List() {
				if o > wire.OpMetadata {
					above12 = append(above12, o)
				}
			}
			Expect(above12).To(Equal(want))
			for o := wire.OpOutput; o <= wire.OpMetadata; o++ {
				Expect(known.Has(o)).To(BeTrue(), "opcode %v", o)
			}
		},
		Entry("v1.4.120", release.Features{}, []wire.Opcode(nil)),
		Entry("v1.4.146", release.Features{Ack: true, ClaimViewport: true}, []wire.Opcode{13, 14}),
		Entry("v1.4.147", release.Features{Ack: true, ClaimViewport: true, OutputSpan: true}, []wire.Opcode{13, 14, 15}),
		Entry("v1.4.173", release.Features{Ack: true, ClaimViewport: true, OutputSpan: true, OutputPause: true}, []wire.Opcode{13, 14, 15, 16}),
		Entry("worktree", release.Features{Ack: true, ClaimViewport: true, OutputSpan: true, OutputPause: true, WriteUnavailable: true}, []wire.Opcode{13, 14, 15, 16, 17}),
		Entry("the titleFrame switch", everything, []wire.Opcode{13, 14, 15, 16, 17, 18}),
	)

	It("can be built without an opcode, as a negative control", func() {
		d := wire.NewDecoder(wire.Opcodes(everything).Without(wire.OpInput))
		_, err := d.Decode(wire.Encode(wire.Header{Opcode: wire.OpInput, Stream: 1}, []byte("x")))
		Expect(err).To(MatchError(wire.ErrUnknownOpcode))
	})
})

var _ = Describe("payloads", func() {
	It("omits optional SnapshotStart fields a release does not publish", func() {
		b, err := json.Marshal(wire.SnapshotStart{Kind: "scrollback", Cols: 120, Rows: 40, Source: "headless"})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(MatchJSON(`{"kind":"scrollback","cols":120,"rows":40,"seq":0,"source":"headless","truncated":false}`))
	})

	It("accepts exactly the two forms of Ack", func() {
		n := uint64(3)
		Expect(wire.Ack{Bytes: &n}.Validate()).To(Succeed())
		Expect(wire.Ack{StreamGeneration: "g", AckedEndByte: &n}.Validate()).To(Succeed())
		Expect(wire.Ack{}.Validate()).To(MatchError(wire.ErrBadAck))
		Expect(wire.Ack{StreamGeneration: "g"}.Validate()).To(MatchError(wire.ErrBadAck))
		Expect(wire.Ack{Bytes: &n, StreamGeneration: "g", AckedEndByte: &n}.Validate()).To(MatchError(wire.ErrBadAck))
		Expect(wire.Ack{Bytes: &n, StreamGeneration: "g"}.Validate()).To(MatchError(wire.ErrBadAck))
	})

	It("reads a JSON event's type and keeps the message", func() {
		ev, err := wire.DecodeEvent([]byte(`{"type":"subscribed","streamId":1,"capabilities":{"outputPause":1}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Type).To(Equal(wire.EventSubscribed))
		var s wire.Subscribed
		Expect(ev.Decode(&s)).To(Succeed())
		Expect(s.Capabilities.Has(wire.CapOutputPause)).To(BeTrue())
		_, err = wire.DecodeEvent([]byte(`{"streamId":1}`))
		Expect(err).To(HaveOccurred())
	})
})
