package transcript_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("Limits", func() {
	l := transcript.Limits{String: 8, Array: 3, Value: 64}

	DescribeTable("Cut cuts long strings and arrays, wherever they are, and nothing else",
		func(in, want any) {
			Expect(l.Cut(in)).To(Equal(want))
		},
		Entry("a short string", "abcdefgh", "abcdefgh"),
		Entry("a long string: its start and its full length", "abcdefghij", "abcdefgh…(10 bytes)"),
		Entry("a long string is cut between characters", "abcdefgé", "abcdefg…(9 bytes)"),
		Entry("numbers, booleans and null", map[string]any{"n": 1.5, "b": true, "z": nil}, map[string]any{"n": 1.5, "b": true, "z": nil}),
		Entry("a short array", []any{1.0, 2.0, 3.0}, []any{1.0, 2.0, 3.0}),
		Entry("a long array: its first items and its length", []any{1.0, 2.0, 3.0, 4.0}, []any{1.0, 2.0, 3.0, "…(4 items)"}),
		Entry("strings inside objects inside arrays",
			[]any{map[string]any{"data": strings.Repeat("A", 100)}},
			[]any{map[string]any{"data": "AAAAAAAA…(100 bytes)"}}),
	)

	It("does not modify the value it cuts", func() {
		v := map[string]any{"data": strings.Repeat("A", 100), "list": []any{1.0, 2.0, 3.0, 4.0, 5.0}}
		l.Cut(v)
		Expect(v["data"]).To(HaveLen(100))
		Expect(v["list"]).To(HaveLen(5))
	})

	It("keeps a value that fits as compact JSON, without escaping HTML", func() {
		b, truncated, err := l.JSON(map[string]any{"dir": "H>C", "data": strings.Repeat("x", 20)})
		Expect(err).NotTo(HaveOccurred())
		Expect(truncated).To(BeFalse())
		Expect(string(b)).To(Equal(`{"data":"xxxxxxxx…(20 bytes)","dir":"H>C"}`))
	})

	It("keeps a value still too long once cut as the start of its text, noting its length", func() {
		v := map[string]any{}
		for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
			v[k] = "12345678"
		}
		b, truncated, err := l.JSON(v)
		Expect(err).NotTo(HaveOccurred())
		Expect(truncated).To(BeTrue())
		var s string
		Expect(json.Unmarshal(b, &s)).To(Succeed(), "a JSON string")
		Expect(s).To(HavePrefix(`{"a":"12345678","b":"12345678",`))
		Expect(s).To(HaveSuffix("…(151 bytes)"))
		Expect(strings.TrimSuffix(s, "…(151 bytes)")).To(HaveLen(64))
	})

	It("keeps no value for a frame without one", func() {
		b, truncated, err := l.JSON(nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeNil())
		Expect(truncated).To(BeFalse())
	})

	It("bounds a terminal's 48 KiB snapshot chunk to a few hundred bytes", func() {
		chunk := map[string]any{"data": strings.Repeat("QUJD", 49152/3), "seq": 7.0}
		b, truncated, err := transcript.ReadLimits.JSON(chunk)
		Expect(err).NotTo(HaveOccurred())
		Expect(truncated).To(BeFalse())
		Expect(len(b)).To(BeNumerically("<", 320))
		Expect(string(b)).To(ContainSubstring(`…(65536 bytes)`))
	})

	Describe("Fields", func() {
		op, stream, seq := 9, uint32(0), uint64(0)
		h := transcript.Header{Opcode: &op, Stream: &stream, Seq: &seq, Named: map[string]uint64{"magic": 116}}

		It("renders header fields first, then the value, as compact JSON", func() {
			Expect(transcript.ShortLimits.Fields(h, map[string]any{"streamId": 1.0}, "")).To(Equal(
				`{"opcode":9,"stream":0,"seq":0,"header":{"magic":116},"value":{"streamId":1}}`))
		})

		It("renders a JSON frame's type and a payload's text", func() {
			Expect(transcript.ShortLimits.Fields(transcript.Header{Type: "ready"}, nil, "")).To(Equal(`{"type":"ready"}`))
			Expect(transcript.ShortLimits.Fields(transcript.Header{}, nil, "hi\r")).To(Equal(`{"text":"hi\r"}`))
		})

		It("is empty for a frame with no fields", func() {
			Expect(transcript.ShortLimits.Fields(transcript.Header{}, nil, "")).To(BeEmpty())
		})

		It("cuts strings short and the whole to the limit, ending in …", func() {
			f := transcript.ShortLimits.Fields(h, map[string]any{"data": strings.Repeat("A", 1000)}, "")
			Expect(f).To(ContainSubstring(`"data":"` + strings.Repeat("A", 40) + `…(1000 bytes)"`))
			many := map[string]any{}
			for i := range 100 {
				many[strings.Repeat("k", i+1)] = i
			}
			f = transcript.ShortLimits.Fields(h, many, "")
			Expect(len(f)).To(BeNumerically("<=", 512))
			Expect(f).To(HaveSuffix("…"))
		})
	})
})
