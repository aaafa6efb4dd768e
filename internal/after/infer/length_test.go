package infer_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// lePacket is a little-endian library's packet: a version byte, a type byte, a u16le length of
// the payload (of the whole packet with whole), a u32le stream id, then the payload; filed
// under "/", as a tap given no --path files a byte stream.
func lePacket(dir string, version, typ byte, stream uint32, payload []byte, whole bool) transcript.Frame {
	n := len(payload)
	if whole {
		n += 8
	}
	b := []byte{version, typ}
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	b = binary.LittleEndian.AppendUint32(b, stream)
	return bin(dir, "/", append(b, payload...))
}

// leRecording is a seeded session of the library: SYN, data both ways, window updates, a
// ping, FIN, on a few streams; payloads are bytes of many sizes.
func leRecording(seed uint64, version byte, whole bool) infer.Recording {
	rnd := rand.New(rand.NewPCG(seed, 1))
	payload := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.IntN(256))
		}
		return b
	}
	var fs []transcript.Frame
	for stream := uint32(1); stream <= 5; stream += 2 {
		fs = append(fs, lePacket("C>H", version, 0, stream, nil, whole), lePacket("H>C", version, 1, stream, payload(4), whole))
		for range 6 {
			fs = append(fs, lePacket("C>H", version, 2, stream, payload(1+rnd.IntN(700)), whole),
				lePacket("H>C", version, 2, stream, payload(1+rnd.IntN(300)), whole),
				lePacket("H>C", version, 1, stream, payload(4), whole))
		}
		fs = append(fs, lePacket("C>H", version, 3, 0, payload(8), whole), lePacket("H>C", version, 3, 0, payload(8), whole),
			lePacket("C>H", version, 4, stream, nil, whole))
	}
	return recording("", fs...)
}

var _ = Describe("A binary, little-endian, length-prefixed stream", func() {
	var seed uint64
	BeforeEach(func() {
		seed = uint64(GinkgoRandomSeed())
		By(fmt.Sprintf("seed %d (ginkgo --seed reproduces it)", seed))
	})

	It("has the version as a constant, the type byte, and the u16le length that counts the payload", func() {
		r := draft(leRecording(seed, 1, false))
		ch := r.Contract.Channel("/")
		Expect(ch.Binary.Header).To(Equal(&contract.Header{Length: 8, Fields: []contract.HeaderField{
			{Name: "magic0", Offset: at(0), Encoding: "u8", Value: u64(1)},
			{Name: "type", Offset: at(1), Encoding: "u8"},
			{Name: "length", Offset: at(2), Encoding: "u16le"},
			{Name: "field4", Offset: at(4), Encoding: "u32le"},
		}}))
		Expect(ch.Paths).To(Equal([]string{"/"}))
		names := map[string]string{}
		for _, f := range ch.Frames {
			names[f.Label()] = f.Payload
		}
		Expect(names).To(Equal(map[string]string{"C>H Opcode0": "empty", "H>C Opcode1": "binary", "C>H Opcode2": "binary", "H>C Opcode2": "binary",
			"C>H Opcode3": "binary", "H>C Opcode3": "binary", "C>H Opcode4": "empty"}))
	})

	It("reads a length that counts the header too", func() {
		r := draft(leRecording(seed, 1, true))
		h := r.Contract.Channel("/").Binary.Header
		Expect(h.LengthIncludesHeader).To(BeTrue())
		Expect(h.Length).To(Equal(8))
		Expect(h.Fields).To(ContainElement(contract.HeaderField{Name: "length", Offset: at(2), Encoding: "u16le"}))
	})

	It("takes the type from a byte that varies on a connection, not the version that differs between recordings", func() {
		r := draft(leRecording(seed, 1, false), leRecording(seed+1, 2, false))
		h := r.Contract.Channel("/").Binary.Header
		Expect(h.Fields).To(Equal([]contract.HeaderField{
			{Name: "field0", Offset: at(0), Encoding: "u8"},
			{Name: "type", Offset: at(1), Encoding: "u8"},
			{Name: "length", Offset: at(2), Encoding: "u16le"},
			{Name: "field4", Offset: at(4), Encoding: "u32le"},
		}), "the version byte takes 2 values, the type 5: both few, and the first is no type")
	})

	It("finds a big-endian length and a u8 length too", func() {
		var be, u8 []transcript.Frame
		for i := range 12 {
			p := make([]byte, 1+i*37)
			b := []byte{0xaa, byte(i % 3)}
			b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
			be = append(be, bin("C>H", "/", append(b, p...)))
			q := make([]byte, 1+i*9)
			u8 = append(u8, bin("C>H", "/", append([]byte{byte(i % 2), byte(len(q)), 0xcc}, q...)))
		}
		h := draft(recording("", be...)).Contract.Channel("/").Binary.Header
		Expect(h.Length).To(Equal(4))
		Expect(h.Fields).To(ContainElement(contract.HeaderField{Name: "length", Offset: at(2), Encoding: "u16be"}))
		h = draft(recording("", u8...)).Contract.Channel("/").Binary.Header
		Expect(h.Length).To(Equal(3))
		Expect(h.Fields).To(ContainElement(contract.HeaderField{Name: "length", Offset: at(1), Encoding: "u8"}))
	})

	It("finds no length where none equals every payload's size, nor in messages of one size (negative controls)", func() {
		rec := leRecording(seed, 1, false)
		f := &rec.T.Frames[5]
		f.Data = append(f.Data, 0) // one packet longer than its length says
		r, err := infer.Draft([]infer.Recording{rec})
		Expect(err).NotTo(HaveOccurred())
		for _, hf := range r.Contract.Channel("/").Binary.Header.Fields {
			Expect(hf.Name).NotTo(Equal("length"))
		}
		var same []transcript.Frame
		for i := range 10 {
			same = append(same, bin("C>H", "/", []byte{1, byte(i % 3), 4, 0, 'a', 'b', 'c', 'd'}))
		}
		r = draft(recording("", same...))
		for _, hf := range r.Contract.Channel("/").Binary.Header.Fields {
			Expect(hf.Name).NotTo(Equal("length"), "a constant 4 equals every payload's size, and says nothing")
		}
	})

	It("drafts a contract that refuses a packet whose length disagrees with its size (negative control)", func() {
		r := draft(leRecording(seed, 1, false))
		short := lePacket("C>H", 1, 2, 1, []byte("abcdef"), false)
		short.Data = short.Data[:len(short.Data)-2]
		Expect(unread(r.Contract, short)).To(ConsistOf(ContainSubstring("truncated")))
	})
})
