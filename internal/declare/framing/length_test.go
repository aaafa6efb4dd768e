package framing_test

import (
	"fmt"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/framing"
)

var _ = Describe("A length inside a fixed header", func() {
	// A version byte, a type byte, a u16le length, a u32le stream id.
	l := framing.Length{Offset: 2, Header: 8}

	It("reads the message's size from the header, counting the header or not", func() {
		head := []byte{1, 7, 5, 0, 9, 0, 0, 0}
		Expect(l.Size(framing.U16LE, head)).To(Equal(13))
		Expect(l.Size(framing.U16BE, head)).To(Equal(8 + 0x0500))
		incl := l
		incl.IncludesHeader = true
		head[2] = 13
		Expect(incl.Size(framing.U16LE, head)).To(Equal(13))
		Expect(l.HeaderSize(framing.U16LE)).To(Equal(8))
		Expect(l.Whole(framing.U16LE)).To(BeTrue())
		Expect(l.String(framing.U16LE)).To(Equal("length at byte 2 of a 8-byte header"))
	})

	It("is a bare prefix when nothing is set: recorded without it, framed with it again", func() {
		var bare framing.Length
		Expect(bare.Whole(framing.U32LE)).To(BeFalse())
		Expect(bare.Frame(framing.U32LE, []byte("ab"))).To(Equal([]byte{2, 0, 0, 0, 'a', 'b'}))
		Expect(bare.Frame(framing.U16BE, []byte("ab"))).To(Equal([]byte{0, 2, 'a', 'b'}))
		Expect(framing.Length{IncludesHeader: true}.Frame(framing.U16LE, []byte("ab"))).To(Equal([]byte{4, 0, 'a', 'b'}),
			"a length counting the header counts the prefix")
		Expect(l.Frame(framing.U16LE, []byte("whole"))).To(Equal([]byte("whole")), "a message recorded whole travels as it is")
	})

	DescribeTable("refuses a length that does not fit its framing (negative controls)",
		func(name string, l framing.Length, field, why string) {
			err := l.Check(name)
			Expect(err).To(MatchError(ContainSubstring(why)))
			var le *framing.LengthError
			Expect(err).To(BeAssignableToTypeOf(le))
			Expect(err.(*framing.LengthError).Field).To(Equal(field))
		},
		Entry("on a varint", framing.Varint, framing.Length{Offset: 1}, "Offset", `a length inside a header needs a fixed-width length framing (u16be, u32be, u16le, u32le), not "varint"`),
		Entry("on packets", framing.Packets, framing.Length{Header: 8}, "Header", "fixed-width"),
		Entry("on lines", framing.Lines, framing.Length{IncludesHeader: true}, "IncludesHeader", "fixed-width"),
		Entry("a negative offset", framing.U16LE, framing.Length{Offset: -2}, "Offset", "-2: want the byte the length starts at, 0 or more"),
		Entry("a negative header", framing.U16LE, framing.Length{Header: -2}, "Header", "-2: want the header's size"),
		Entry("a header too short for the length", framing.U32LE, framing.Length{Offset: 2, Header: 5}, "Header", "5 bytes cannot hold a 4-byte length at byte 2: want at least 6"),
		Entry("a header past the bound", framing.U32LE, framing.Length{Header: framing.MaxHeader + 1}, "Header", "a header of more than 65536 bytes"),
	)

	It("accepts what fits, and leaves the zero value alone", func() {
		Expect(l.Check(framing.U16LE)).To(Succeed())
		Expect(framing.Length{Offset: 4}.Check(framing.U32BE)).To(Succeed(), "the header ends with the length")
		Expect(framing.Length{}.Check(framing.Varint)).To(Succeed())
	})

	It("says a length past the bound, or short of the header it counts, is an error (negative controls)", func() {
		_, err := framing.Length{Offset: 2, Header: 8}.Size(framing.U32LE, []byte{1, 1, 0xff, 0xff, 0xff, 0xff, 0, 0})
		Expect(err).To(MatchError("a u32le length of 4294967295 bytes: not u32le framing?"))
		_, err = framing.Length{Offset: 2, Header: 8, IncludesHeader: true}.Size(framing.U16LE, []byte{1, 1, 7, 0, 0, 0, 0, 0})
		Expect(err).To(MatchError("a u16le length of 7 bytes counting a 8-byte header: not this framing?"))
		_, err = l.Size(framing.U16LE, []byte{1, 1, 7})
		Expect(err).To(MatchError("3 bytes of a 8-byte header"))
		_, err = framing.Length{}.Size(framing.Varint, []byte{1, 1})
		Expect(err).To(MatchError(`framing "varint" has no fixed-width length`))
	})

	It("never panics on any header bytes, for any length it accepts (seeded)", func() {
		seed := GinkgoRandomSeed()
		By(fmt.Sprintf("seed %d (ginkgo --seed reproduces it)", seed))
		rnd := rand.New(rand.NewPCG(uint64(seed), 5))
		for range 2000 {
			name := framing.Fixed[rnd.IntN(len(framing.Fixed))]
			l := framing.Length{Offset: rnd.IntN(6) - 1, Header: rnd.IntN(12) - 1, IncludesHeader: rnd.IntN(2) == 0}
			head := make([]byte, rnd.IntN(14))
			for i := range head {
				head[i] = byte(rnd.IntN(256))
			}
			if l.Check(name) != nil {
				continue
			}
			n, err := l.Size(name, head)
			if err == nil {
				Expect(n).To(BeNumerically(">=", l.HeaderSize(name)), "%s %+v % x", name, l, head)
				Expect(n).To(BeNumerically("<=", framing.MaxMessage+l.HeaderSize(name)))
			}
		}
	})
})
