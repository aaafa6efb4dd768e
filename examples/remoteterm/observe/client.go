package observe

import (
	"bytes"
	"encoding/json"
)

// Subscribed is the host's subscribed event exactly as the client received it.
type Subscribed json.RawMessage

func (Subscribed) What() string { return "subscribed" }

// MarshalJSON writes the event as received.
func (s Subscribed) MarshalJSON() ([]byte, error) {
	if len(s) == 0 {
		return []byte("null"), nil
	}
	return []byte(s), nil
}

// RenderedSnapshot is a snapshot the client rendered. Screen is the whole rendered buffer
// after the render. Requested says the snapshot answers a SnapshotRequest of the client's
// own (it carries the request's id; subscribe and resync snapshots carry none), and
// ScrollbackRows counts the lines it holds above the viewport (its lines less Rows).
type RenderedSnapshot struct {
	Terminal       string          `json:"terminal"`
	Bytes          []byte          `json:"bytes"`
	Cols           int             `json:"cols"`
	Rows           int             `json:"rows"`
	Start          json.RawMessage `json:"start"`
	Screen         []byte          `json:"screen"`
	Requested      bool            `json:"requested"`
	ScrollbackRows int             `json:"scrollbackRows"`
}

// ScrollbackRows is how many of data's lines lie above a viewport of rows lines (a trailing
// newline ends a line rather than starting one).
func ScrollbackRows(data []byte, rows int) int {
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	return max(lines-rows, 0)
}

func (RenderedSnapshot) What() string { return "rendered-snapshot" }

// RenderedOutput is output the client rendered. Screen is the rendered buffer after the
// render from byte ScreenFrom on: the part the client's previous report of the stream
// (output or snapshot) did not cover, so a buffer that grows to megabytes costs each report
// its growth, not its size (the contract's screen stream declares ScreenFrom as its from).
type RenderedOutput struct {
	Terminal    string `json:"terminal"`
	Bytes       []byte `json:"bytes"`
	RawLength   uint64 `json:"rawLength"`
	Transformed bool   `json:"transformed"`
	Seq         uint64 `json:"seq"`
	Screen      []byte `json:"screen"`
	ScreenFrom  int    `json:"screenFrom,omitempty"`
}

// ScreenReport is what a render reports of the whole buffer screen: the part past the
// length *reported that the previous report covered (the buffer only grows between
// snapshots, which report it whole), and where that part starts; *reported becomes
// len(screen).
func ScreenReport(screen []byte, reported *int) (part []byte, from int) {
	from = min(*reported, len(screen))
	*reported = len(screen)
	return append([]byte(nil), screen[from:]...), from
}

// Screen is the whole rendered buffer after the last render among obs: the last snapshot's
// screen and every output's part after it.
func Screen(obs []Observation) []byte {
	var s []byte
	for _, o := range obs {
		switch o := o.(type) {
		case RenderedSnapshot:
			s = append([]byte(nil), o.Screen...)
		case RenderedOutput:
			s = append(s[:min(o.ScreenFrom, len(s)):min(o.ScreenFrom, len(s))], o.Screen...)
		}
	}
	return s
}

func (RenderedOutput) What() string { return "rendered-output" }

// Resync is a resync snapshot the client asked for on its own.
type Resync struct {
	Terminal    string `json:"terminal"`
	Reason      string `json:"reason"`
	ExpectedSeq uint64 `json:"expectedSeq"`
	Seq         uint64 `json:"seq"`
}

func (Resync) What() string { return "resync" }

// TransportClosed is the connection to the host closing under the client.
type TransportClosed struct {
	Code   int    `json:"code"`
	Reason string `json:"reason"`
}

func (TransportClosed) What() string { return "transport-closed" }

// Connected is the client's connection to the host opening.
type Connected struct {
	Path string `json:"path"`
}

func (Connected) What() string { return "connected" }

// WriteUnavailable is the host telling the client (opcode 17) that the terminal does not
// accept input.
type WriteUnavailable struct {
	Terminal string `json:"terminal"`
}

func (WriteUnavailable) What() string { return "write-unavailable" }

// SubscribeFailed is the host refusing one of the client's subscribes (an error event for a
// stream that never got its first snapshot): the app shows it, it is not an internal error.
type SubscribeFailed struct {
	Terminal string `json:"terminal"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

func (SubscribeFailed) What() string { return "subscribe-failed" }
