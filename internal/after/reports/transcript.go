package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// TranscriptOptions choose how Transcript writes a transcript.
type TranscriptOptions struct {
	// JSON writes one JSON document (the pairing and every frame with what was read from it)
	// instead of text.
	JSON bool
}

// Transcript writes a pairing's frames with what the receiving contracts read from them
// (transcript.Frame.Read): as text, one line per frame (index, direction, name, step,
// connection, message and payload sizes, then the header fields and decoded value), or as
// JSON. A transcript written before skewtest kept decoded values still lists its frames,
// and says the values are missing.
func Transcript(w io.Writer, t *transcript.Transcript, o TranscriptOptions) error {
	if o.JSON {
		return transcriptJSON(w, t)
	}
	return transcriptText(w, t)
}

// transcriptDoc is Transcript's JSON document.
type transcriptDoc struct {
	Host    transcript.Build `json:"host"`
	Client  transcript.Build `json:"client"`
	Kind    string           `json:"kind"`
	Journey string           `json:"journey"`
	// Decoded says the frames carry what was read from them; false for a transcript
	// written before skewtest kept it.
	Decoded    bool               `json:"decoded"`
	ReadLimits *transcript.Limits `json:"readLimits,omitempty"`
	Frames     []transcriptFrame  `json:"frames"`
}

// transcriptFrame is one tapped message in Transcript's JSON: where and when it crossed,
// its size, and what was read from it (its raw bytes stay in the transcript).
type transcriptFrame struct {
	Index    int                    `json:"index"`
	Conn     int                    `json:"conn"`
	Path     string                 `json:"path"`
	Dir      string                 `json:"dir"`
	Binary   bool                   `json:"binary"`
	Control  string                 `json:"control,omitempty"`
	Step     string                 `json:"step"`
	Teardown bool                   `json:"teardown,omitempty"`
	At       time.Time              `json:"at"`
	Size     int                    `json:"size"`
	Read     []transcript.ReadFrame `json:"read,omitempty"`
}

func transcriptJSON(w io.Writer, t *transcript.Transcript) error {
	doc := transcriptDoc{Host: t.Host, Client: t.Client, Kind: t.Kind, Journey: t.Journey, Decoded: t.ReadLimits != nil,
		ReadLimits: t.ReadLimits, Frames: make([]transcriptFrame, 0, len(t.Frames))}
	for _, f := range t.Frames {
		doc.Frames = append(doc.Frames, transcriptFrame{Index: f.Index, Conn: f.Conn, Path: f.Path, Dir: f.Dir, Binary: f.Binary,
			Control: f.Control, Step: f.Step, Teardown: f.Teardown, At: f.At, Size: len(f.Data), Read: f.Read})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // directions read "H>C"
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func transcriptText(w io.Writer, t *transcript.Transcript) error {
	read := 0
	for _, f := range t.Frames {
		read += len(f.Read)
	}
	label := results.PairingLabel(t.Host.Label, t.Kind, t.Client.Label, t.Journey)
	if l := t.ReadLimits; l != nil {
		fmt.Fprintf(w, "%s: %d messages, %d frames read (strings over %d bytes, arrays over %d items and values over %d bytes are cut)\n",
			label, len(t.Frames), read, l.String, l.Array, l.Value)
	} else {
		fmt.Fprintf(w, "%s: %d messages; decoded values missing: this transcript was written without them, by skewtest tap with no --contract or by a skewtest that did not keep them (skewtest contract decode CONTRACT DIR reads it with a contract; a pairing run again keeps them)\n",
			label, len(t.Frames))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tDIR\tNAME\tSTEP\tCONN\tMESSAGE\tPAYLOAD\tFIELDS")
	for _, f := range t.Frames {
		step := f.StepLabel()
		row := func(index, name, step, payload, fields string) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d B\t%s", index, f.Dir, oneLine(name), oneLine(step), f.Conn, len(f.Data), payload)
			if fields != "" { // else no trailing blanks
				fmt.Fprintf(tw, "\t%s", fields)
			}
			fmt.Fprintln(tw)
		}
		switch {
		case t.ReadLimits == nil:
			row(strconv.Itoa(f.Index), unreadName(f), step, "-", "")
		case len(f.Read) == 0:
			row(strconv.Itoa(f.Index), "-", step, "-", "(no whole frame: it continues in a later message)")
		}
		for i, r := range f.Read {
			index := strconv.Itoa(f.Index)
			if len(f.Read) > 1 {
				index += "." + strconv.Itoa(i+1)
			}
			s := step
			if r.Step != "" {
				s = r.Step + " (arrived in " + f.Step + ")"
			}
			row(index, r.Name, s, strconv.Itoa(r.Payload)+" B", readFields(r))
		}
	}
	return tw.Flush()
}

// unreadName names a frame of a transcript without decoded values as far as it can: a
// control frame, or what the receiving driver named (decode action).
func unreadName(f transcript.Frame) string {
	if f.Control != "" {
		return f.Control
	}
	if d := f.Decoded; d != nil && len(d.Frames) > 0 {
		var names []string
		for _, df := range d.Frames {
			if df.Type != "" {
				names = append(names, df.Type)
			} else {
				names = append(names, "Opcode"+strconv.Itoa(df.Opcode))
			}
		}
		return strings.Join(names, ",")
	}
	return "?"
}

// readFields is a frame's header fields and value on one line:
// opcode=9 stream=1 seq=0 magic=116 {"streamId":1}.
func readFields(r transcript.ReadFrame) string {
	var out []string
	if r.Opcode != nil {
		out = append(out, "opcode="+strconv.Itoa(*r.Opcode))
	}
	if r.Type != "" {
		out = append(out, "type="+oneLine(r.Type))
	}
	if r.Stream != nil {
		out = append(out, "stream="+strconv.FormatUint(uint64(*r.Stream), 10))
	}
	if r.Seq != nil {
		out = append(out, "seq="+strconv.FormatUint(*r.Seq, 10))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Named)) {
		out = append(out, oneLine(k)+"="+strconv.FormatUint(r.Named[k], 10))
	}
	if len(r.Value) > 0 {
		out = append(out, readValue(r))
	}
	if r.Text != "" {
		out = append(out, "text="+quote(r.Text))
	}
	if r.Error != "" {
		out = append(out, "error: "+oneLine(r.Error))
	}
	return strings.Join(out, " ")
}

// readValue is a frame's value as compact JSON, or, once truncated, the start of its text.
func readValue(r transcript.ReadFrame) string {
	if r.Truncated {
		var s string
		if json.Unmarshal(r.Value, &s) == nil {
			return oneLine(s) + " (truncated)"
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, r.Value) != nil {
		return oneLine(string(r.Value))
	}
	return b.String()
}

// quote is s as a JSON string, HTML left alone: "hi\r".
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLine keeps a cell on its line and in its column.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}
