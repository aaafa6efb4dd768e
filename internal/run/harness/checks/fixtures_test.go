package checks_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// terminalFrames are contractJSON's frames, span's aside.
const terminalFrames = `
	  {"opcode":1,"name":"Output","direction":"H>C","payload":"text"},
	  {"opcode":2,"name":"SnapshotStart","direction":"H>C","payload":"json"},
	  {"opcode":3,"name":"SnapshotChunk","direction":"H>C","payload":"text"},
	  {"opcode":4,"name":"SnapshotEnd","direction":"H>C","payload":"empty"},
	  {"opcode":7,"name":"Input","direction":"C>H","payload":"text"},
	  {"opcode":9,"name":"Subscribe","direction":"C>H","payload":"json"},
	  {"opcode":11,"name":"SnapshotRequest","direction":"C>H","payload":"json"},
	  {"opcode":13,"name":"Ack","direction":"C>H","payload":"json"},
	  {"opcode":16,"name":"SetOutputPaused","direction":"C>H","payload":"json","gates":{"*":"outputPause"}},
	  {"type":"ready","name":"ready","direction":"H>C"},
	  {"type":"subscribed","name":"subscribed","direction":"H>C"}`

// contractJSON is a small terminal contract; span adds OutputSpan, gate gates it on
// multiplex behind outputSpan.
func contractJSON(version string, span, gate bool) *contract.Contract {
	frames := terminalFrames
	if span {
		g := ""
		if gate {
			g = `,"gates":{"/terminal.multiplex":"outputSpan"}`
		}
		frames += `,{"opcode":15,"name":"OutputSpan","direction":"H>C","payload":"json","kinds":["desktop"]` + g + `}`
	}
	return contractOf(version, frames, "")
}

// contractOf is contractJSON's contract with frames and invariants (JSON array items) of
// one's own.
func contractOf(version, frames, invariants string) *contract.Contract {
	doc := fmt.Sprintf(`{"contractVersion":2,"product":"t","version":%q,"protocol":{"version":1,"minCompatible":1},
	  "channels":[{"name":"terminal","paths":["/terminal.multiplex"],
	  "binary":{"header":{"length":16,"fields":[{"name":"magic","offset":0,"encoding":"u8","value":116},
	    {"name":"version","offset":1,"encoding":"u8","value":1},{"name":"type","offset":2,"encoding":"u8"},
	    {"name":"stream","offset":4,"encoding":"u32le"},{"name":"seq","offset":8,"encoding":"u32le-hi-lo"}]}},
	  "text":{"json":{"discriminator":"type"}},
	  "capabilities":[{"name":"outputPause","echoed":false},{"name":"outputSpan","echoed":false}],
	  "negotiation":[{"observation":"subscribed","pointer":"/capabilities"}],
	  "frames":[%s], "invariants":[%s]}],
	  "streams":[
	    {"name":"input","sent":{"role":"client","actions":["input"]},"delivered":{"role":"host","observations":["input"]},"compare":"bytes"},
	    {"name":"screen","sent":{"role":"host","observations":["pty-output"]},
	     "delivered":{"role":"client","observations":["rendered-output","rendered-snapshot"],"pointer":"/screen"},"compare":"cumulative"},
	    {"name":"snapshots","sent":{"role":"host","observations":["snapshot-sent"]},"delivered":{"role":"client","observations":["rendered-snapshot"]},"compare":"each"}],
	  "refusals":[{"observation":"session","where":{"event":"refused-peer"}}]}`, version, frames, invariants)
	c, err := contract.Parse(version, []byte(doc))
	if err != nil {
		panic(err)
	}
	return c
}

func bin(opcode byte, seq uint64, payload string) []byte {
	b := make([]byte, 16, 16+len(payload))
	b[0], b[1], b[2] = 0x74, 1, opcode
	binary.LittleEndian.PutUint32(b[4:], 1)
	binary.LittleEndian.PutUint32(b[8:], uint32(seq>>32))
	binary.LittleEndian.PutUint32(b[12:], uint32(seq))
	return append(b, payload...)
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

const journeyText = `kind desktop
-- script --
step subscribe
client subscribe
await client rendered-snapshot
step input
client input text="hi\r"
await host input text="hi\r"
step output
host emit-transformed text="out" rawLength=9
await client screen text="out"
-- frames --
ignore C>H Ack
H>C ready
C>H Subscribe
H>C subscribed
H>C SnapshotStart
H>C SnapshotChunk+
H>C SnapshotEnd
C>H Input
[frame:OutputSpan] H>C OutputSpan
[!frame:OutputSpan] H>C Output+
`

// builder makes a transcript step by step.
type builder struct {
	t    *transcript.Transcript
	step string
}

func newTranscript() *builder {
	return &builder{t: &transcript.Transcript{Kind: "desktop",
		Host: transcript.Build{Label: "v1.0.2"}, Client: transcript.Build{Label: "v1.0.1"}}}
}

func (b *builder) begin(step string) *builder {
	b.step = step
	b.t.Steps = append(b.t.Steps, transcript.Step{Name: step})
	return b
}

func (b *builder) done() *builder {
	b.t.Steps[len(b.t.Steps)-1].Done = true
	return b
}

func (b *builder) frame(dir string, data []byte) *builder {
	b.t.Frames = append(b.t.Frames, transcript.Frame{Index: len(b.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: dir, Binary: true, Data: data, Step: b.step})
	return b
}

func (b *builder) text(dir string, v any) *builder {
	b.t.Frames = append(b.t.Frames, transcript.Frame{Index: len(b.t.Frames) + 1, Conn: 1, Path: "/terminal.multiplex", Dir: dir, Data: raw(v), Step: b.step})
	return b
}

func (b *builder) observe(role transcript.Role, what string, data any) *builder {
	b.t.Observations = append(b.t.Observations, transcript.Observation{Role: role, What: what, Data: raw(data), Step: b.step})
	return b
}

func (b *builder) action(role transcript.Role, name string, args any) *builder {
	b.t.Actions = append(b.t.Actions, transcript.Action{Role: role, Name: name, Args: raw(args), Step: b.step, OK: true})
	return b
}

// compatible is the transcript of a clean pairing of span-capable builds; mutate it for
// negative controls. span says whether the transformed run travels as OutputSpan.
func compatible(span bool) *builder {
	b := newTranscript()
	b.t.Conns = []transcript.ConnEvent{{Conn: 1, Path: "/terminal.multiplex", Event: "open"}}
	b.observe(transcript.Host, "pty-output", map[string]any{"bytes": []byte("init\r\n")})
	b.begin("subscribe").
		text("H>C", map[string]any{"type": "ready"}).
		frame("C>H", bin(9, 0, `{"streamId":1}`)).
		text("H>C", map[string]any{"type": "subscribed", "capabilities": map[string]any{}}).
		observe(transcript.Client, "subscribed", map[string]any{"capabilities": map[string]any{}}).
		frame("H>C", bin(2, 0, `{"kind":"scrollback"}`)).
		frame("H>C", bin(3, 0, "init\r\n")).
		frame("H>C", bin(4, 0, "")).
		observe(transcript.Host, "snapshot-sent", map[string]any{"bytes": []byte("init\r\n")}).
		observe(transcript.Client, "rendered-snapshot", map[string]any{"bytes": []byte("init\r\n"), "screen": []byte("init\r\n")}).
		done()
	b.begin("input").
		action(transcript.Client, "input", map[string]any{"bytes": []byte("hi\r")}).
		frame("C>H", bin(7, 0, "hi\r")).
		frame("C>H", bin(13, 0, `{"bytes":6}`)).
		observe(transcript.Host, "input", map[string]any{"bytes": []byte("hi\r")}).
		done()
	b.begin("output").
		observe(transcript.Host, "pty-output", map[string]any{"bytes": []byte("out")})
	if span {
		b.frame("H>C", bin(15, 9, `{"data":"out","rawLength":9,"transformed":true}`))
	} else {
		b.frame("H>C", bin(1, 3, "out"))
	}
	b.observe(transcript.Client, "rendered-output", map[string]any{"bytes": []byte("out"), "screen": []byte("init\r\nout")}).
		done()
	return b
}

func input(b *builder, host, client *contract.Contract) *checks.Input {
	j, err := journeys.Parse("j.txtar", []byte(journeyText))
	if err != nil {
		panic(err)
	}
	return &checks.Input{Transcript: b.t, Journey: j, Host: host, Client: client}
}
