package infer_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from what the specs draft (read them before committing)")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(name string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.MkdirAll("testdata", 0o755)).To(Succeed())
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "write it with go test ./infer -update")
	Expect(string(got)).To(Equal(string(want)), "%s is stale: go test ./infer -update rewrites it", path)
}

func u64(v uint64) *uint64 { return &v }
func at(o int) *int        { return &o }

var _ = Describe("A binary header found by byte statistics", func() {
	var recs []infer.Recording
	var r *infer.Result

	BeforeEach(func() {
		// A remoteterm-like terminal: a 16-byte header (0x74, version 1, the opcode, a zero
		// byte, the stream id u32 LE, seq as high and low u32 LE words), output as text,
		// snapshots that start with JSON and end empty, input as text, a JSON subscribe on
		// stream 0; and JSON control frames named by "type" on text messages.
		recs = nil
		var seq uint64
		next := func() uint64 { seq += 37; return seq }
		for _, kind := range []string{"desktop", "mobile"} {
			var fs []transcript.Frame
			fs = append(fs, text("H>C", "/terminal", `{"type":"ready"}`),
				termFrame("C>H", 9, 0, 0, `{"terminal":"t1","cols":80}`),
				text("H>C", "/terminal", `{"type":"subscribed","streamId":1}`))
			for stream := uint32(1); stream <= 2; stream++ {
				fs = append(fs,
					termFrame("H>C", 2, stream, next(), `{"kind":"scrollback","cols":80}`),
					termFrame("H>C", 4, stream, next(), ""),
					termFrame("C>H", 7, stream, 0, "ls -l\r"),
					termFrame("H>C", 1, stream, next(), "total 0\r\n"),
					termFrame("H>C", 1, stream, next(), "\x1b[1mdone\x1b[0m"),
					termFrame("H>C", 2, stream, next(), `{"kind":"resized","cols":120}`))
			}
			recs = append(recs, recording(kind, fs...))
		}
		r = draft(recs...)
	})

	It("has the constants, the opcode and the counters, and a payload after it", func() {
		ch := r.Contract.Channel("/terminal")
		Expect(ch.Binary.Header).To(Equal(&contract.Header{Length: 16, Fields: []contract.HeaderField{
			{Name: "magic0", Offset: at(0), Encoding: "u8", Value: u64(0x74)},
			{Name: "magic1", Offset: at(1), Encoding: "u8", Value: u64(1)},
			{Name: "type", Offset: at(2), Encoding: "u8"},
			{Name: "field4", Offset: at(4), Encoding: "u32le"},
			{Name: "field8", Offset: at(8), Encoding: "u32le-hi-lo"},
		}}), "byte 3 is always 0: padding or a counter's high byte, no constant")
		Expect(ch.Text.JSON.Discriminator).To(Equal("type"))
		payloads := map[string]string{}
		for _, f := range ch.Frames {
			payloads[f.Label()] = f.Payload
		}
		Expect(payloads).To(Equal(map[string]string{
			"H>C Opcode1": "text", "H>C Opcode2": "json", "H>C Opcode4": "empty", "C>H Opcode7": "text", "C>H Opcode9": "json",
			"H>C ready": "json", "H>C subscribed": "json",
		}))
		Expect(frame(r.Contract, "/terminal", "H>C", "Opcode2").Fields).To(Equal(map[string]contract.Field{
			"kind": {Type: "string", Required: true, Enum: []any{"resized", "scrollback"}},
			"cols": {Type: "integer", Required: true},
		}))
	})

	It("reads the counters of every frame", func() {
		t, un := samples.Decode(r.Contract, recs[0].T.Frames, "desktop")
		Expect(un).To(BeEmpty())
		f := t.Frames[3] // H>C Opcode2 on stream 1, seq 37
		Expect(f.Read).To(HaveLen(1))
		Expect(f.Read[0].Name).To(Equal("Opcode2"))
		Expect(f.Read[0].Named).To(Equal(map[string]uint64{"magic0": 0x74, "magic1": 1, "field4": 1, "field8": 37}))
	})

	It("does not read what it never saw, nor bytes without the header (negative controls)", func() {
		Expect(unread(r.Contract, termFrame("H>C", 3, 1, 1, "x"))).To(ConsistOf(
			`#0 H>C Opcode3: the contract lists no such frame from host to client`))
		Expect(unread(r.Contract, termFrame("H>C", 7, 1, 1, "x"))).To(ConsistOf(
			`#0 H>C Opcode7: the contract lists no such frame from host to client`), "input only ever went to the host")
		wrong := termFrame("H>C", 1, 1, 1, "x")
		wrong.Data[0] = 0x75
		Expect(unread(r.Contract, wrong)).To(ConsistOf(ContainSubstring("field magic0 at byte 0 is 0x75, want 0x74")))
		Expect(unread(r.Contract, bin("H>C", "/terminal", []byte{0x74, 1, 1}))).To(ConsistOf(ContainSubstring("shorter than the 16-byte header")))
	})

	It("says what supports each guess (golden: testdata/terminal.json and terminal.txt)", func() {
		var report bytes.Buffer
		Expect(r.Report(&report)).To(Succeed())
		golden("terminal.json", r.Document)
		golden("terminal.txt", report.Bytes())
	})

	It("finds where payloads start when no message is the header alone", func() {
		var fs []transcript.Frame
		for i := range 6 {
			fs = append(fs, termFrame("H>C", byte(1+i%2), 1, uint64(i), `{"n":1}`), termFrame("C>H", 7, 1, 0, "abc"))
		}
		r := draft(recording("desktop", fs...))
		Expect(r.Contract.Channel("/terminal").Binary.Header.Length).To(Equal(16))
	})
})
