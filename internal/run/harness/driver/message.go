package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/driverkit"
)

// Message types sent by a driver (see docs/driver-protocol.md), plus
// TypeInvalid for lines that break the protocol.
const (
	TypeHello   = "hello"
	TypeReady   = "ready"
	TypeResult  = "result"
	TypeObserve = "observe"
	// TypeInvalid marks a stdout line that is not a JSON object with a
	// string "type". Line holds the raw line and What says what is wrong.
	TypeInvalid = "invalid"
)

// Error codes a driver may put in a failed result.
const (
	CodeUnsupportedAction = "unsupported-action"
	CodeBadArgs           = "bad-args"
	CodeFailed            = "failed"
)

// Message is one line from a driver, decoded. Unknown fields are ignored.
type Message struct {
	Type     string          `json:"type"`
	ID       int             `json:"id"`
	OK       bool            `json:"ok"`
	Data     json.RawMessage `json:"data"`
	Error    *ActionError    `json:"error"`
	What     string          `json:"what"`
	URL      string          `json:"url"`
	Protocol int             `json:"protocol"`
	Role     string          `json:"role"`
	Kind     string          `json:"kind"`
	Build    json.RawMessage `json:"build"`
	Actions  []string        `json:"actions"`
	// Params describes the parameters of a hello's actions (docs/driver-protocol.md); nil
	// when the driver describes none.
	Params map[string][]Param `json:"params"`
	// Lane is the lane an observation is about (docs/driver-protocol.md, Lanes); 0 for the
	// driver's own instance.
	Lane int `json:"lane"`

	// Line is the raw line, without its newline, of an invalid message and of a driver's
	// first line; "" for the others (a terminal's observations run to megabytes).
	Line string    `json:"-"`
	At   time.Time `json:"-"` // when the line was read
	// Value is Data decoded as encoding/json decodes into any, in the same pass as the line
	// (a terminal's observation is parsed once, not once for the line and again for its
	// value); Decoded says it was (a line with data).
	Value   any  `json:"-"`
	Decoded bool `json:"-"`
}

// wireMessage is a line as decodeLine reads it: the message, with its data read by
// wireData (a field of this struct shadows the embedded Message's field of the same name).
type wireMessage struct {
	Message
	Data wireData `json:"data"`
}

// wireData is a line's data: decoded into any as the line is read, and kept raw as well,
// cut from the line by the decoder's offsets rather than scanned a second time.
type wireData struct {
	line []byte // the whole text being decoded, which the decoder's offsets count in
	raw  json.RawMessage
	v    any
	set  bool
}

// UnmarshalJSONFrom reads the data's value once: decoded into any (with the caller's
// options: encoding/json's semantics), and its text cut from the line between the offsets
// before and after it.
func (d *wireData) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	start := dec.InputOffset()
	var v any
	if err := jsonv2.UnmarshalDecode(dec, &v); err != nil {
		return err
	}
	end := dec.InputOffset()
	if start < 0 || end > int64(len(d.line)) || start > end {
		return fmt.Errorf("data at offsets %d..%d of a %d-byte line", start, end, len(d.line))
	}
	// Between the name's end and the value: whitespace and the colon.
	d.raw = bytes.Clone(bytes.TrimLeft(d.line[start:end], " \t\r\n:"))
	d.v, d.set = v, true
	return nil
}

// Param is one described parameter of an action (hello's params): the key a journey
// writes, its type and what bounds it (driverkit.Param). Explore draws journeys from these
// (docs/explore.md).
type Param = driverkit.Param

// CheckParams says what is wrong with a hello's params: an action it does not announce, a
// parameter described twice, or one driverkit.Param.Check refuses.
func CheckParams(h Message) error {
	for action, ps := range h.Params {
		if !slices.Contains(h.Actions, action) {
			return fmt.Errorf("params describes %q, an action hello does not list", action)
		}
		seen := map[string]bool{}
		for i, p := range ps {
			if err := p.Check(); err != nil {
				return fmt.Errorf("params of %s, parameter %d: %w", action, i+1, err)
			}
			if seen[p.Name] {
				return fmt.Errorf("params of %s, parameter %d: %s is described twice", action, i+1, p.Name)
			}
			seen[p.Name] = true
		}
	}
	return nil
}

// ActionError is the error of a result with ok=false.
type ActionError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *ActionError) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// decodeLine decodes one stdout line. It never fails: a line that breaks
// the protocol becomes a TypeInvalid message. It decodes as encoding/json does, with the
// v1 package of encoding/json/v2's implementation: the same results, several times faster
// on the long base64 strings of terminal observations. The message keeps the line (Line)
// when it is invalid or keep is set; it never refers to line's bytes. The lines drivers
// write most, observations and results whose strings have no escapes, are read by fastLine, which
// gives the same message faster.
func decodeLine(line []byte, at time.Time, keep bool) Message {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return invalid(string(line), at, "not a JSON object")
	}
	m, ok := fastLine(trimmed)
	if !ok {
		w := wireMessage{Data: wireData{line: trimmed}}
		if err := jsonv1.Unmarshal(trimmed, &w); err != nil {
			return invalid(string(line), at, "malformed message: "+err.Error())
		}
		m = w.Message
		if w.Data.set {
			m.Data, m.Value, m.Decoded = w.Data.raw, w.Data.v, true
		}
	}
	if m.Type == "" {
		return invalid(string(line), at, "message without a type")
	}
	if m.Type == TypeInvalid {
		return invalid(string(line), at, `reserved type "invalid"`)
	}
	m.At = at
	if keep {
		m.Line = string(line)
	}
	return m
}

func invalid(line string, at time.Time, why string) Message {
	return Message{Type: TypeInvalid, Line: line, What: why, At: at}
}

// request is one line to the driver.
type request struct {
	ID     int    `json:"id"`
	Lane   int    `json:"lane,omitempty"`
	Action string `json:"action"`
	Args   any    `json:"args"`
}

// Encoded is an action's arguments already encoded as a JSON object by encoding/json (so
// valid and compact): Do sends them as they are. A json.RawMessage is checked and compacted
// on its way, which costs what the arguments weigh (a megabyte of text, a few milliseconds).
type Encoded []byte

// encode is the request's line, without its newline.
func (r request) encode() ([]byte, error) {
	raw, ok := r.Args.(Encoded)
	if !ok {
		return json.Marshal(r)
	}
	r.Args = nil
	head, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	// head ends with "args":null}: the arguments take null's place.
	head, ok = bytes.CutSuffix(head, []byte("null}"))
	if !ok {
		return nil, fmt.Errorf("encode request: %q does not end with its arguments", head)
	}
	line := make([]byte, 0, len(head)+len(raw)+1)
	return append(append(append(line, head...), raw...), '}'), nil
}
