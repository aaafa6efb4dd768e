package main

import (
	"compress/gzip"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("skewtest contract infer", func() {
	var dir, report string

	// pairing writes a report's pairing: host × client, its frames in order.
	pairing := func(name, host, client string, frames ...transcript.Frame) {
		GinkgoHelper()
		for i := range frames {
			frames[i].Index, frames[i].Conn, frames[i].Path = i, 1, "/ws"
		}
		p := filepath.Join(report, "pairings", name, transcript.File)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(transcript.Write(p, &transcript.Transcript{Host: transcript.Build{Label: host}, Client: transcript.Build{Label: client},
			Kind: "desktop", Journey: "j", Frames: frames}, gzip.BestSpeed)).To(Succeed())
	}
	msg := func(dir, s string) transcript.Frame { return transcript.Frame{Dir: dir, Data: []byte(s)} }

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		report = filepath.Join(dir, "report")
		pairing("001-v2-v2", "v2", "v2", msg("C>H", `{"type":"hello","v":2}`), msg("H>C", `{"type":"welcome","motd":"hi"}`))
		pairing("002-v1-v1", "v1", "v1", msg("C>H", `{"type":"hello","v":1}`), msg("H>C", `{"type":"welcome"}`))
		pairing("003-v2-v1", "v2", "v1", msg("C>H", `{"type":"hello","v":1}`), msg("H>C", `{"type":"welcome","motd":"hi"}`))
	})

	It("writes a draft that reads every recorded frame and its report, which it prints", func(ctx SpecContext) {
		draftFile := filepath.Join(dir, "draft.json")
		code, out := cli(ctx, "contract", "infer", "-o", draftFile, report)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(HavePrefix("DRAFT contract inferred from 6 messages in 3 recordings of v1, v2: review every guess before use\n"))
		Expect(out).To(ContainSubstring(`    "type" names 2 frame types (6 of 6)`))
		Expect(out).To(ContainSubstring("    H>C welcome: 3 frames; payload json: JSON objects (3 of 3); seen with desktop clients ×3\n      /motd: string, optional (2 of 3)\n"))
		Expect(out).To(ContainSubstring("the draft reads every frame of the 6 messages it was drafted from\nwrote " + draftFile + " (report: " + filepath.Join(dir, "draft.txt") + ")\n"))
		c, err := contract.Load(draftFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Product).To(HavePrefix("DRAFT"))
		Expect(filepath.Join(dir, "draft.txt")).To(BeAnExistingFile())

		code, out = cli(ctx, "contract", "decode", draftFile, filepath.Join(report, "pairings", "003-v2-v1"))
		Expect(code).To(Equal(exitOK), out)
	})

	It("drafts a little-endian stream tapped without --path, which the draft and a hand-named one-channel contract then read", func(ctx SpecContext) {
		// What skewtest tap --framing u16le --length-offset 2 --header-length 8 records: each
		// packet whole (a version byte, a type byte, a u16le payload length, a u32le stream id),
		// filed under /.
		packet := func(dir string, typ byte, stream uint32, payload string) transcript.Frame {
			b := []byte{1, typ, byte(len(payload)), byte(len(payload) >> 8), byte(stream), 0, 0, 0}
			return transcript.Frame{Dir: dir, Path: "/", Binary: true, Conn: 1, Step: "recorded", Data: append(b, payload...)}
		}
		var frames []transcript.Frame
		for i := range 8 {
			frames = append(frames, packet("C>H", 2, uint32(1+i%2), string(make([]byte, 3+i*40))), packet("H>C", 1, uint32(1+i%2), "wind"))
		}
		frames = append(frames, packet("C>H", 0, 3, ""), packet("C>H", 3, 0, "pingping"))
		for i := range frames {
			frames[i].Index = i + 1
		}
		rec := filepath.Join(dir, "rec")
		Expect(os.MkdirAll(rec, 0o755)).To(Succeed())
		Expect(transcript.Write(filepath.Join(rec, transcript.File), &transcript.Transcript{Host: transcript.Build{Label: "recorded"},
			Client: transcript.Build{Label: "recorded"}, Journey: "recorded", Frames: frames}, gzip.BestSpeed)).To(Succeed())

		draftFile := filepath.Join(dir, "draft.json")
		code, out := cli(ctx, "contract", "infer", "-o", draftFile, rec)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("header of 8 bytes: every message is 8 bytes more than the u16le at byte 2 says (18 of 18)"))
		Expect(out).To(ContainSubstring("type: u8 at byte 1, 4 values"))
		Expect(out).To(ContainSubstring("length: u16le at byte 2 is the payload's size"))
		code, out = cli(ctx, "contract", "decode", draftFile, rec)
		Expect(code).To(Equal(exitOK), out)

		// The draft named by hand: its channel on /wire, as the host's skewtest.yaml files it.
		named := filepath.Join(dir, "named.json")
		Expect(os.WriteFile(named, []byte(`{"contractVersion": 2, "protocol": {"version": 1, "minCompatible": 1}, "channels": [{
			"name": "wire", "paths": ["/wire"], "binary": {"header": {"length": 8, "fields": [
			  {"name": "version", "offset": 0, "encoding": "u8", "value": 1}, {"name": "type", "offset": 1, "encoding": "u8"},
			  {"name": "length", "offset": 2, "encoding": "u16le"}, {"name": "stream", "offset": 4, "encoding": "u32le"}]}, "stream": true},
			"frames": [{"opcode": 0, "name": "Open", "direction": "C>H", "payload": "empty"},
			  {"opcode": 1, "name": "Window", "direction": "H>C", "payload": "binary"},
			  {"opcode": 2, "name": "Data", "direction": "C>H", "payload": "binary"},
			  {"opcode": 3, "name": "Ping", "direction": "C>H", "payload": "binary"}]}]}`), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "decode", named, rec)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`C>H\s+Data\s+recorded`))
		Expect(out).To(ContainSubstring(named + ": every frame of 18 messages read"))
	})

	It("writes the draft to standard output with -o -, and its report to standard error", func(ctx SpecContext) {
		code, out := cli(ctx, "contract", "infer", "-o", "-", report)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(HavePrefix("{\n  \"contractVersion\": 2,"))
		Expect(out).To(ContainSubstring("DRAFT contract inferred from 6 messages"))
	})

	It("writes one draft per build with --out, each from the frames that build sent", func(ctx SpecContext) {
		out := filepath.Join(dir, "drafts")
		code, text := cli(ctx, "contract", "infer", "--out", out, report)
		Expect(code).To(Equal(exitOK), text)
		Expect(text).To(ContainSubstring("v1: " + filepath.Join(out, "v1.json") + ", from 3 messages it sent (report: " + filepath.Join(out, "v1.txt") + ")"))
		Expect(text).To(ContainSubstring("v2: " + filepath.Join(out, "v2.json") + ", from 3 messages it sent"))
		// Drafts of two builds diff like any contracts: v2 sends motd every time, v1 never.
		code, text = cli(ctx, "contract", "diff", filepath.Join(out, "v1.json"), filepath.Join(out, "v2.json"))
		Expect(code).To(Equal(exitFindings), text)
		Expect(text).To(ContainSubstring(`field-required-added: ws: welcome (type "welcome"): new field motd is required`))
	})

	It("lists where a contract and the traffic disagree with --against (exit 1), and agrees with its own draft (exit 0)", func(ctx SpecContext) {
		hand := filepath.Join(dir, "hand.json")
		Expect(os.WriteFile(hand, []byte(`{"contractVersion": 2, "product": "p",
  "channels": [{"name": "ws", "paths": ["/ws"], "text": {"json": {"discriminator": "type"}},
    "frames": [{"type": "hello", "name": "hello", "direction": "C>H", "payload": "json", "fields": {"v": {"type": "string"}}},
               {"type": "bye", "name": "bye", "direction": "C>H"}]}]}`), 0o644)).To(Succeed())
		code, out := cli(ctx, "contract", "infer", "--against", hand, report)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("traffic the contract cannot read (1):\n  /ws H>C welcome: the contract lists no such frame from host to client for a desktop client: 3 frames; first "))
		Expect(out).To(ContainSubstring("frames the contract declares that the traffic never showed (1):\n  ws: C>H bye (type \"bye\")\n"))
		Expect(out).To(ContainSubstring("values that break the contract's fields (1):\n  C>H hello /v: type: 3 frames"))
		Expect(out).To(HaveSuffix("the contract and the traffic disagree: 1 unread, 1 never shown, 1 broken (6 messages in 3 recordings)\n"))

		draftFile := filepath.Join(dir, "draft.json")
		code, out = cli(ctx, "contract", "infer", "-o", draftFile, report)
		Expect(code).To(Equal(exitOK), out)
		code, out = cli(ctx, "contract", "infer", "--against", draftFile, report)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(Equal("the contract and the traffic agree (6 messages in 3 recordings)\n"))
	})

	DescribeTable("refuses what it cannot draft from as a usage error", func(ctx SpecContext, args []string, want string) {
		for i, a := range args {
			if a == "EMPTY" {
				args[i] = GinkgoT().TempDir()
			}
		}
		code, out := cli(ctx, append([]string{"contract", "infer"}, args...)...)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(want))
	},
		Entry("no recording given", []string{}, "contract infer: give the recordings"),
		Entry("a directory without recordings", []string{"EMPTY"}, "holds no recording: give a report directory"),
		Entry("two outputs", []string{"-o", "x.json", "--against", "y.json", "EMPTY"}, "give one of -o, --out and --against"),
	)
})
