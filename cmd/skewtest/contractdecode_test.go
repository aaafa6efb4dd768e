package main

import (
	"compress/gzip"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("skewtest contract decode", func() {
	var dir, contractFile string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		contractFile = filepath.Join(dir, "contract.json")
		Expect(os.WriteFile(contractFile, []byte(`{
  "contractVersion": 2, "product": "sample", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [
    {"name": "bin", "paths": ["/bin"],
     "binary": {"header": {"length": 1, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
     "frames": [
       {"opcode": 1, "name": "Hello", "direction": "C>H", "payload": "json"},
       {"opcode": 2, "name": "Text", "direction": "H>C", "payload": "text"}
     ]}
  ]}`), 0o644)).To(Succeed())
	})

	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
		return p
	}

	It("names and reads each sample frame, the path defaulting to the contract's only one", func(ctx SpecContext) {
		in := write("ok.txt", "C>H hex:01 7b 22 76 22 3a 31 7d\nH>C 026869\n")
		code, out := cli(ctx, "contract", "decode", contractFile, in)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`0\s+C>H\s+Hello\s+line 1\s+1\s+8 B\s+7 B\s+opcode=1 \{"v":1\}`))
		Expect(out).To(MatchRegexp(`1\s+H>C\s+Text\s+line 2\s+1\s+3 B\s+2 B\s+opcode=2 text="hi"`))
		Expect(out).To(ContainSubstring(contractFile + ": every frame of 2 messages read"))
	})

	It("exits 1 naming each frame the contract cannot read", func(ctx SpecContext) {
		in := write("bad.txt", "H>C 026869\nH>C 0968\n")
		code, out := cli(ctx, "contract", "decode", contractFile, in)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("not read: #1 H>C Opcode9: the contract lists no such frame from host to client"))
		Expect(out).To(ContainSubstring("1 frame of 2 messages not read"))
	})

	It("reads a recording made without --path (filed under /) with a contract of one channel", func(ctx SpecContext) {
		rec := filepath.Join(dir, "rec")
		Expect(os.MkdirAll(rec, 0o755)).To(Succeed())
		Expect(transcript.Write(filepath.Join(rec, transcript.File), &transcript.Transcript{
			Host: transcript.Build{Label: "recorded"}, Client: transcript.Build{Label: "recorded"}, Journey: "recorded",
			Frames: []transcript.Frame{
				{Index: 1, Conn: 1, Step: "recorded", Dir: "C>H", Path: "/", Binary: true, Data: []byte("\x01{}")},
				{Index: 2, Conn: 1, Step: "recorded", Dir: "H>C", Path: "/", Binary: true, Data: []byte("\x02hi")},
			}}, gzip.BestSpeed)).To(Succeed())
		code, out := cli(ctx, "contract", "decode", contractFile, rec)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`H>C\s+Text\s+recorded`))
		Expect(out).To(ContainSubstring(contractFile + ": every frame of 2 messages read"))
	})

	It("refuses a line that is no frame with file:line, and a bad --dir, as usage errors", func(ctx SpecContext) {
		in := write("garbage.txt", "H>C 0268\nH>C what is this\n")
		code, out := cli(ctx, "contract", "decode", contractFile, in)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(in + `:2: "what is this" is no frame`))

		code, out = cli(ctx, "contract", "decode", "--dir", "sideways", contractFile, in)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(`--dir "sideways": want H>C or C>H`))

		code, out = cli(ctx, "contract", "decode", filepath.Join(dir, "no-such.json"), in)
		Expect(code).To(Equal(exitUsage), out)
	})
})
