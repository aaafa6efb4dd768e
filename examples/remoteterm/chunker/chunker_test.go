package chunker_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

var (
	spanMode      = chunker.Options{TransformedRuns: chunker.Span}
	downgradeMode = chunker.Options{TransformedRuns: chunker.DowngradeToText}
	// legacyDowngrade is the code path before the transformedRuns option (v1.4.173–v1.4.189).
	legacyDowngrade = chunker.Options{TransformedRuns: chunker.DowngradeToText, KeepEmptyTransformed: true}
)

func joined(frames []chunker.Frame) []byte {
	var b []byte
	for _, f := range frames {
		b = append(b, f.Payload...)
	}
	return b
}

// xorshift32, so the property specs are seeded and repeatable.
type rng uint32

func (r *rng) next() uint32 {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = rng(x)
	return x
}

var alphabet = []string{"a", "z", "\r", "\n", "é", "€", "😀", "\x00", "\x1b", "\xed\xa0\xbd", "\xff"}

func payload(r *rng, n int) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		b = append(b, alphabet[r.next()%uint32(len(alphabet))]...)
	}
	return b
}

var _ = Describe("Split", func() {
	It("fits 16,384 '€' (49,152 bytes) in one frame and needs two for one byte more", func() {
		euro := bytes.Repeat([]byte("€"), 16384)
		Expect(chunker.Split(euro, chunker.MaxFrameBytes)).To(HaveLen(1))
		Expect(chunker.Split(append(euro, 'a'), chunker.MaxFrameBytes)).To(HaveLen(2))
	})

	It("never splits a code point at the cap", func() {
		for _, r := range []string{"é", "€", "😀"} {
			for pad := 0; pad < 4; pad++ {
				data := append(bytes.Repeat([]byte("q"), chunker.MaxFrameBytes-pad), []byte(strings.Repeat(r, 3))...)
				pieces := chunker.Split(data, chunker.MaxFrameBytes)
				Expect(bytes.Join(pieces, nil)).To(Equal(data))
				for _, p := range pieces {
					Expect(len(p)).To(BeNumerically("<=", chunker.MaxFrameBytes))
					Expect(utf8.Valid(p)).To(BeTrue(), "rune %q pad %d", r, pad)
				}
			}
		}
	})

	It("CutCodePoints loses the head of a code point across the cap, and nothing else", func() {
		cut := chunker.Options{CutCodePoints: true}
		ascii := bytes.Repeat([]byte("q"), 3*chunker.MaxFrameBytes+7)
		Expect(bytes.Join(cut.Split(ascii, chunker.MaxFrameBytes), nil)).To(Equal(ascii))
		data := append(bytes.Repeat([]byte("q"), chunker.MaxFrameBytes-2), []byte("€tail")...)
		Expect(bytes.Join(chunker.Options{}.Split(data, chunker.MaxFrameBytes), nil)).To(Equal(data))
		pieces := cut.Split(data, chunker.MaxFrameBytes)
		Expect(pieces).To(HaveLen(2))
		Expect(pieces[1]).To(Equal([]byte("\xactail")), "the tail of € without its head")
	})

	It("gives one empty piece for empty data", func() {
		Expect(chunker.Split(nil, chunker.MaxFrameBytes)).To(Equal([][]byte{nil}))
	})
})

var _ = Describe("Frames", func() {
	It("chunks untransformed output with a seq at every chunk's end", func() {
		data := bytes.Repeat([]byte("x"), 2*chunker.MaxFrameBytes+10)
		meta := chunker.Meta{Seq: 1000 + uint64(len(data)), RawLength: uint64(len(data))}
		frames := chunker.Frames(data, meta, spanMode)
		Expect(frames).To(HaveLen(3))
		end := uint64(1000)
		for _, f := range frames {
			Expect(f.Opcode).To(Equal(wire.OpOutput))
			end += uint64(len(f.Payload))
			Expect(f.Seq).To(Equal(end)) // meta.Seq − rawLength + chunkEnd
			Expect(f.Source).To(Equal(&chunker.Range{Start: end - uint64(len(f.Payload)), End: end}))
		}
		Expect(frames[2].Seq).To(Equal(meta.Seq))
		Expect(joined(frames)).To(Equal(data))
	})

	It("frames a transformed run as one OutputSpan, however large", func() {
		data := []byte("HEAD" + strings.Repeat("x", 65536) + "TAIL\r\n")
		frames := chunker.Frames(data, chunker.Meta{Seq: 65718, RawLength: 65643, Transformed: true}, spanMode)
		Expect(frames).To(HaveLen(1))
		Expect(frames[0].Opcode).To(Equal(wire.OpOutputSpan))
		Expect(frames[0].Seq).To(Equal(uint64(65718)))
		var span wire.OutputSpan
		Expect(json.Unmarshal(frames[0].Payload, &span)).To(Succeed())
		Expect(span).To(Equal(wire.OutputSpan{Data: string(data), RawLength: 65643, Transformed: true}))
	})

	It("sends an empty transformed run as an OutputSpan in span mode", func() {
		frames := chunker.Frames(nil, chunker.Meta{Seq: 87, RawLength: 12, Transformed: true}, spanMode)
		Expect(frames).To(HaveLen(1))
		Expect(frames[0].Opcode).To(Equal(wire.OpOutputSpan))
		Expect(frames[0].Payload).NotTo(BeEmpty())
	})

	Describe("the downgrade-to-text contract", func() {
		check := func(data []byte, meta chunker.Meta) {
			frames := chunker.Frames(data, meta, downgradeMode)
			if len(data) == 0 {
				// 6. an empty transformed run emits no frame
				Expect(frames).To(BeEmpty())
				return
			}
			sum := 0
			for i, f := range frames {
				Expect(f.Opcode).To(Equal(wire.OpOutput))                             // 1
				Expect(len(f.Payload)).To(BeNumerically("<=", chunker.MaxFrameBytes)) // 2
				sum += f.DisplayLength
				if i < len(frames)-1 {
					Expect(f.Seq).To(BeZero()) // 5
				}
			}
			Expect(joined(frames)).To(Equal(data))                // 3
			Expect(sum).To(Equal(len(data)))                      // 4
			Expect(frames[len(frames)-1].Seq).To(Equal(meta.Seq)) // 5
		}

		It("holds for seeded near-cap transformed payloads", func() {
			r := rng(0x0d096ade)
			for i := 0; i < 60; i++ {
				data := append(bytes.Repeat([]byte("q"), 49146+int(r.next()%12)), payload(&r, 1+int(r.next()%24))...)
				n := uint64(len(data))
				check(data, chunker.Meta{Seq: 4 * n, RawLength: 4 * n, Transformed: true})
			}
		})

		It("holds for short and empty transformed runs", func() {
			r := rng(0x5eed1234)
			for i := 0; i < 400; i++ {
				data := payload(&r, int(r.next()%40))
				check(data, chunker.Meta{Seq: 1000, RawLength: uint64(3*len(data) + 1), Transformed: true})
			}
		})

		It("7. still emits one frame for an empty untransformed emission", func() {
			frames := chunker.Frames(nil, chunker.Meta{Seq: 27}, downgradeMode)
			Expect(frames).To(HaveLen(1))
			Expect(frames[0].Payload).To(BeEmpty())
			Expect(frames[0].Seq).To(Equal(uint64(27)))
		})

		It("8. frames untransformed input byte-identically to span mode", func() {
			r := rng(0x1234)
			for i := 0; i < 200; i++ {
				data := payload(&r, int(r.next()%100))
				if i%50 == 0 {
					data = append(bytes.Repeat([]byte("q"), chunker.MaxFrameBytes-2), data...)
				}
				meta := chunker.Meta{Seq: 500 + uint64(len(data)), RawLength: uint64(len(data))}
				Expect(chunker.Frames(data, meta, downgradeMode)).To(Equal(chunker.Frames(data, meta, spanMode)))
			}
		})

		It("maps a run that fits one frame to its whole source range, and a longer one to none", func() {
			one := chunker.Frames([]byte("transformed run\r\n"), chunker.Meta{Seq: 75, RawLength: 48, Transformed: true}, downgradeMode)
			Expect(one).To(HaveLen(1))
			Expect(one[0].Source).To(Equal(&chunker.Range{Start: 27, End: 75, Transformed: true}))
			big := chunker.Frames(bytes.Repeat([]byte("x"), 65546), chunker.Meta{Seq: 65718, RawLength: 65643, Transformed: true}, downgradeMode)
			Expect(big).To(HaveLen(2))
			Expect(big[0].Source).To(BeNil())
			Expect(big[1].Source).To(BeNil())
		})
	})

	It("emits an empty transformed run as a zero-byte frame on the pre-option path", func() {
		frames := chunker.Frames(nil, chunker.Meta{Seq: 87, RawLength: 12, Transformed: true}, legacyDowngrade)
		Expect(frames).To(HaveLen(1))
		Expect(frames[0].Opcode).To(Equal(wire.OpOutput))
		Expect(frames[0].Payload).To(BeEmpty())
		Expect(frames[0].Seq).To(Equal(uint64(87)))
	})

	It("keeps every frame within the cap and reassembles exactly, for 1 B to 200 KiB", func() {
		r := rng(7)
		for _, size := range []int{1, 100, chunker.MaxFrameBytes - 1, chunker.MaxFrameBytes, chunker.MaxFrameBytes + 1, 3*chunker.MaxFrameBytes + 5, 200 << 10} {
			var data []byte
			for len(data) < size {
				data = append(data, payload(&r, 64)...)
			}
			data = data[:size]
			meta := chunker.Meta{Seq: uint64(size) + 9, RawLength: uint64(size)}
			frames := chunker.Frames(data, meta, spanMode)
			prev := uint64(9)
			for _, f := range frames {
				Expect(len(f.Payload)).To(BeNumerically("<=", chunker.MaxFrameBytes))
				Expect(f.Seq).To(BeNumerically(">", prev))
				prev = f.Seq
			}
			Expect(prev).To(Equal(meta.Seq))
			Expect(joined(frames)).To(Equal(data))
		}
	})
})
