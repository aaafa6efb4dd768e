package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// ReadFrame is one frame a tapped message carried, as the receiving build's contract read it
// (the frame's name, header fields and decoded value), kept in the transcript so a reader
// sees what crossed the wire without decoding it again. A batch carries several frames; a
// frame that spans messages is read in the message that completes it.
type ReadFrame struct {
	Name string `json:"name"`
	Header
	// Value is the frame's decoded value as JSON (contract.Decoded.Value: a JSON frame, a
	// payload that is a JSON object, a protobuf message's JSON form, a binary payload's
	// fields), bounded by the transcript's ReadLimits (see Limits.JSON); absent when the
	// contract reads no value from the frame.
	Value json.RawMessage `json:"value,omitempty"`
	// Truncated says Value was still over the value limit once its long strings and arrays
	// were cut: it is then a JSON string holding the start of the value's JSON text.
	Truncated bool `json:"truncated,omitempty"`
	// Text is the payload as text (cut like a string of a value) when the contract reads no
	// value from it and it is valid UTF-8: a terminal's output, typed input.
	Text string `json:"text,omitempty"`
	// Payload is the frame's payload size in bytes: after the header of a binary frame, the
	// whole frame otherwise (the message carrying it may be larger: a batch, a header).
	Payload int `json:"payload"`
	// Step is the step the frame belongs to when that is not the step its message arrived in
	// (Frame.Step): a reply that came after its request's step ended.
	Step string `json:"step,omitempty"`
	// Error says why the frame could not be read (malformed, refused by the receiving
	// driver, on no contract's channel).
	Error string `json:"error,omitempty"`
}

// Header is a frame's header fields as its codec read them; each is absent when the frame
// has none.
type Header struct {
	// Opcode is a binary header's type field.
	Opcode *int `json:"opcode,omitempty"`
	// Type is a JSON or protobuf frame's type (or the one its receiving driver named).
	Type   string  `json:"type,omitempty"`
	Stream *uint32 `json:"stream,omitempty"`
	Seq    *uint64 `json:"seq,omitempty"`
	// Named holds the header's other named fields (flags, magic numbers).
	Named map[string]uint64 `json:"header,omitempty"`
}

// Limits bound what is kept of a decoded value: strings and arrays are cut to a prefix and a
// note of their full length, and a value whose JSON is still too long is kept as the start
// of its text.
type Limits struct {
	// String is the most bytes of a string kept (a base64 output, a 48 KiB snapshot chunk).
	String int `json:"string"`
	// Array is the most items of an array kept.
	Array int `json:"array"`
	// Value is the most bytes of a value's JSON kept.
	Value int `json:"value"`
}

// ReadLimits bound the decoded values a transcript keeps (Frame.Read): enough for a line of
// terminal text, a request's arguments and a screenful of fields, while a terminal journey's
// transcript, whose snapshot chunks and base64 output run to megabytes, grows by a few
// hundred bytes per frame at most.
var ReadLimits = Limits{String: 256, Array: 32, Value: 4 << 10}

// ShortLimits bound the one-line rendering of a frame's fields in a report's timeline
// (Limits.Fields): about a table row's worth.
var ShortLimits = Limits{String: 40, Array: 8, Value: 512}

// Cut returns v, a JSON-like value (as encoding/json decodes into any), with every string
// longer than l.String cut to its start and a note of its full length ("abc…(65536 bytes)")
// and every array longer than l.Array cut to its first items and a note ("…(1000 items)").
// It does not modify v.
func (l Limits) Cut(v any) any {
	switch x := v.(type) {
	case string:
		return l.CutString(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = l.Cut(e)
		}
		return out
	case []any:
		n := len(x)
		if l.Array > 0 && n > l.Array {
			n = l.Array
		}
		out := make([]any, 0, n+1)
		for _, e := range x[:n] {
			out = append(out, l.Cut(e))
		}
		if n < len(x) {
			out = append(out, "…("+strconv.Itoa(len(x))+" items)")
		}
		return out
	}
	return v
}

// CutString cuts s to at most l.String bytes, on a character boundary, noting its full
// length; a shorter s is returned as it is.
func (l Limits) CutString(s string) string {
	if l.String <= 0 || len(s) <= l.String {
		return s
	}
	return prefix(s, l.String) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// prefix is the start of s, at most n bytes, not splitting a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JSON returns v cut (Cut) as compact JSON. When that is still longer than l.Value, it
// returns the start of that text, with a note of its full length, as a JSON string, and
// truncated. v is a JSON-like value; nil gives nil.
func (l Limits) JSON(v any) (_ json.RawMessage, truncated bool, err error) {
	if v == nil {
		return nil, false, nil
	}
	b, err := marshal(l.Cut(v))
	if err != nil {
		return nil, false, err
	}
	if l.Value <= 0 || len(b) <= l.Value {
		return b, false, nil
	}
	s, err := marshal(prefix(string(b), l.Value) + "…(" + strconv.Itoa(len(b)) + " bytes)")
	return s, true, err
}

// Fields renders a frame's header fields and value (or its payload text) on one line for a
// report: compact JSON, {"opcode":2,"stream":1,"seq":0,"value":{…}}, with strings and
// arrays cut to l.String and l.Array, and the whole cut to l.Value bytes ending in "…" when
// longer (it is then no longer JSON). "" when the frame has none of them.
func (l Limits) Fields(h Header, value any, text string) string {
	if h.Opcode == nil && h.Type == "" && h.Stream == nil && h.Seq == nil && len(h.Named) == 0 && value == nil && text == "" {
		return ""
	}
	b, err := marshal(struct {
		Header
		Value any    `json:"value,omitempty"`
		Text  string `json:"text,omitempty"`
	}{h, l.Cut(value), l.CutString(text)})
	if err != nil {
		return ""
	}
	if l.Value > 0 && len(b) > l.Value {
		return prefix(string(b), l.Value-len("…")) + "…"
	}
	return string(b)
}

// marshal is compact JSON without HTML escaping: frame values read as they were sent.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
