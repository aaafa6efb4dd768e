package reports_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// readTranscript is a pairing's transcript with what was read from its frames: a JSON
// frame, a binary frame with header fields, a batch of two, a reply that arrived in the
// next step, a value cut short, a payload kept as text, a malformed frame, a control
// frame and a message that completes no frame.
func readTranscript() *transcript.Transcript {
	op9, op1, stream, seq := 9, 1, uint32(1), uint64(0)
	at := time.Date(2025, 6, 1, 2, 0, 0, 0, time.UTC)
	f := func(index int, dir, step string, size int, read ...transcript.ReadFrame) transcript.Frame {
		return transcript.Frame{Index: index, Conn: 1, Path: "/terminal.multiplex", Dir: dir, Binary: true, Data: make([]byte, size),
			At: at.Add(time.Duration(index) * time.Millisecond), Step: step, Read: read}
	}
	cut, _, _ := transcript.ReadLimits.JSON(map[string]any{"data": strings.Repeat("QUJD", 20000)})
	long := map[string]any{}
	for i := range 600 {
		long[strings.Repeat("k", i%40+1)+string(rune('a'+i%26))] = i
	}
	truncated, isCut, _ := transcript.ReadLimits.JSON(long)
	Expect(isCut).To(BeTrue())
	ready := f(1, "H>C", "subscribe", 16, transcript.ReadFrame{Name: "ready", Header: transcript.Header{Type: "ready"},
		Value: json.RawMessage("{\n \"type\": \"ready\"\n}"), Payload: 16})
	ready.Binary = false
	close := f(9, "C>H", "unsubscribe", 2, transcript.ReadFrame{Name: "close", Payload: 2})
	close.Control = "close"
	return &transcript.Transcript{Host: transcript.Build{Label: "v1.4.190"}, Client: transcript.Build{Label: "v1.4.120"},
		Kind: "desktop", Journey: "terminal", ReadLimits: &transcript.ReadLimits,
		Frames: []transcript.Frame{
			ready,
			f(2, "C>H", "subscribe", 30, transcript.ReadFrame{Name: "Subscribe",
				Header: transcript.Header{Opcode: &op9, Stream: &stream, Seq: &seq, Named: map[string]uint64{"magic": 116}},
				Value:  json.RawMessage(`{"streamId":1}`), Payload: 14}),
			f(3, "H>C", "output", 40,
				transcript.ReadFrame{Name: "Output", Header: transcript.Header{Opcode: &op1}, Text: "a\r\n", Payload: 3},
				transcript.ReadFrame{Name: "Output", Header: transcript.Header{Opcode: &op1}, Text: "b\tc", Payload: 3, Step: "input"}),
			f(4, "H>C", "output", 65552, transcript.ReadFrame{Name: "SnapshotChunk", Value: cut, Payload: 65536}),
			f(5, "H>C", "output", 9000, transcript.ReadFrame{Name: "serverInfo", Value: truncated, Truncated: true, Payload: 9000}),
			f(6, "H>C", "output", 3, transcript.ReadFrame{Name: "Malformed", Payload: 3, Error: "the message ends inside its header"}),
			f(7, "H>C", "output", 10),
			close,
		}}
}

var _ = Describe("Transcript", func() {
	It("prints one line per frame: index, direction, name, step, conn, message and payload sizes, then its fields", func() {
		var b bytes.Buffer
		Expect(reports.Transcript(&b, readTranscript(), reports.TranscriptOptions{})).To(Succeed())
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		Expect(lines[0]).To(Equal("host v1.4.190 × desktop client v1.4.120 · terminal: 8 messages, 8 frames read " +
			"(strings over 256 bytes, arrays over 32 items and values over 4096 bytes are cut)"))
		Expect(strings.Fields(lines[1])).To(Equal([]string{"#", "DIR", "NAME", "STEP", "CONN", "MESSAGE", "PAYLOAD", "FIELDS"}))
		Expect(lines).To(HaveLen(11), "a header, the column names, and 9 frames of 8 messages")
		row := func(i int) string { return strings.Join(strings.Fields(lines[i]), " ") }
		Expect(row(2)).To(Equal(`1 H>C ready subscribe 1 16 B 16 B type=ready {"type":"ready"}`))
		Expect(row(3)).To(Equal(`2 C>H Subscribe subscribe 1 30 B 14 B opcode=9 stream=1 seq=0 magic=116 {"streamId":1}`))
		Expect(row(4)).To(Equal(`3.1 H>C Output output 1 40 B 3 B opcode=1 text="a\r\n"`))
		Expect(row(5)).To(Equal(`3.2 H>C Output input (arrived in output) 1 40 B 3 B opcode=1 text="b\tc"`))
		Expect(row(6)).To(HavePrefix(`4 H>C SnapshotChunk output 1 65552 B 65536 B {"data":"QUJDQUJD`))
		Expect(row(6)).To(HaveSuffix(`…(80000 bytes)"}`))
		Expect(row(7)).To(HavePrefix(`5 H>C serverInfo output 1 9000 B 9000 B {"`))
		Expect(row(7)).To(HaveSuffix(` bytes) (truncated)`))
		Expect(row(8)).To(Equal(`6 H>C Malformed output 1 3 B 3 B error: the message ends inside its header`))
		Expect(row(9)).To(Equal(`7 H>C - output 1 10 B - (no whole frame: it continues in a later message)`))
		Expect(row(10)).To(Equal(`9 C>H close unsubscribe 1 2 B 2 B`))
		for _, l := range lines {
			Expect(len(l)).To(BeNumerically("<", 4500), "a value is bounded")
			Expect(l).To(Equal(strings.TrimRight(l, " ")), "no trailing blanks")
		}
	})

	It("lists the frames of a transcript without decoded values, and says they are missing", func() {
		t := readTranscript()
		t.ReadLimits = nil
		for i := range t.Frames {
			t.Frames[i].Read = nil
		}
		t.Frames[1].Decoded = &transcript.DriverDecode{Frames: []transcript.DecodedFrame{{Opcode: 9}}}
		var b bytes.Buffer
		Expect(reports.Transcript(&b, t, reports.TranscriptOptions{})).To(Succeed())
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		Expect(lines[0]).To(ContainSubstring("terminal: 8 messages; decoded values missing: this transcript was written without them, by skewtest tap with no --contract or by a skewtest that did not keep them (skewtest contract decode CONTRACT DIR reads it with a contract"))
		Expect(lines).To(HaveLen(10))
		row := func(i int) string { return strings.Join(strings.Fields(lines[i]), " ") }
		Expect(row(2)).To(Equal(`1 H>C ? subscribe 1 16 B -`))
		Expect(row(3)).To(Equal(`2 C>H Opcode9 subscribe 1 30 B -`), "what the receiving driver named")
		Expect(row(9)).To(Equal(`9 C>H close unsubscribe 1 2 B -`))
	})

	It("writes the frames and what was read from them as JSON", func() {
		var b bytes.Buffer
		Expect(reports.Transcript(&b, readTranscript(), reports.TranscriptOptions{JSON: true})).To(Succeed())
		var doc struct {
			Host       transcript.Build   `json:"host"`
			Journey    string             `json:"journey"`
			Decoded    bool               `json:"decoded"`
			ReadLimits *transcript.Limits `json:"readLimits"`
			Frames     []struct {
				Index int                    `json:"index"`
				Dir   string                 `json:"dir"`
				Step  string                 `json:"step"`
				Size  int                    `json:"size"`
				Data  []byte                 `json:"data"`
				Read  []transcript.ReadFrame `json:"read"`
			} `json:"frames"`
		}
		Expect(json.Unmarshal(b.Bytes(), &doc)).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`"dir": "H>C"`), "not HTML-escaped")
		Expect(doc.Host.Label).To(Equal("v1.4.190"))
		Expect(doc.Decoded).To(BeTrue())
		Expect(*doc.ReadLimits).To(Equal(transcript.ReadLimits))
		Expect(doc.Frames).To(HaveLen(8))
		Expect(doc.Frames[1].Size).To(Equal(30))
		Expect(doc.Frames[1].Data).To(BeNil(), "the raw bytes stay in the transcript")
		Expect(*doc.Frames[1].Read[0].Opcode).To(Equal(9))
		Expect(doc.Frames[2].Read).To(HaveLen(2))
		Expect(doc.Frames[2].Read[1].Step).To(Equal("input"))
		Expect(doc.Frames[6].Read).To(BeEmpty())

		t := readTranscript()
		t.ReadLimits = nil
		b.Reset()
		Expect(reports.Transcript(&b, t, reports.TranscriptOptions{JSON: true})).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`"decoded": false`))
	})
})
