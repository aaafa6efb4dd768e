package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
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
}

// Param is one described parameter of an action (hello's params): the key a journey
// writes, its type (text, int, bool, enum, id or json) and what bounds it. Explore draws
// journeys from these (docs/explore.md).
type Param struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Min      int      `json:"min"`
	Max      int      `json:"max"`
	Limits   []int    `json:"limits"`
	Values   []string `json:"values"`
	UTF8     bool     `json:"utf8"`
	Feeds    string   `json:"feeds"`
	Optional bool     `json:"optional"`
	Example  string   `json:"example"`
}

// ParamTypes are the types a Param may have.
var ParamTypes = []string{"text", "int", "bool", "enum", "id", "json"}

// CheckParams says what is wrong with a hello's params: an action it does not announce, a
// parameter without a name or twice, an unknown type, bounds that do not go together.
func CheckParams(h Message) error {
	for action, ps := range h.Params {
		if !slices.Contains(h.Actions, action) {
			return fmt.Errorf("params describes %q, an action hello does not list", action)
		}
		seen := map[string]bool{}
		for i, p := range ps {
			bad := func(format string, a ...any) error {
				return fmt.Errorf("params of %s, parameter %d (%s): %s", action, i+1, p.Name, fmt.Sprintf(format, a...))
			}
			switch {
			case p.Name == "":
				return bad("no name")
			case seen[p.Name]:
				return bad("described twice")
			case !slices.Contains(ParamTypes, p.Type):
				return bad("type %q is not one of %s", p.Type, strings.Join(ParamTypes, ", "))
			case p.Type == "enum" && len(p.Values) == 0:
				return bad("an enum needs values")
			case p.Max != 0 && p.Max < p.Min:
				return bad("max %d is below min %d", p.Max, p.Min)
			case p.Type == "text" && p.Min < 0:
				return bad("a length is not negative")
			case p.Type == "json" && p.Example == "":
				return bad("a json parameter needs an example")
			}
			for _, l := range p.Limits {
				if l < 1 {
					return bad("limit %d: a limit is a size of at least 1", l)
				}
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
// when it is invalid or keep is set; it never refers to line's bytes.
func decodeLine(line []byte, at time.Time, keep bool) Message {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return invalid(string(line), at, "not a JSON object")
	}
	var m Message
	if err := jsonv1.Unmarshal(trimmed, &m); err != nil {
		return invalid(string(line), at, "malformed message: "+err.Error())
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
