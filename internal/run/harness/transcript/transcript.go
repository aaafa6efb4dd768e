// Package transcript holds everything observed in one pairing: frames both ways as the wire
// tap saw them, driver observations, actions and their results, steps and their timings.
// The runner writes it; checkers read it. It is plain data.
package transcript

import (
	"encoding/json"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/driverkit"
)

// Role of a driver.
type Role string

const (
	Host   Role = "host"
	Client Role = "client"
)

// Transcript is one pairing's record.
type Transcript struct {
	Host         Build         `json:"host"`
	Client       Build         `json:"client"`
	Kind         string        `json:"kind"`
	Journey      string        `json:"journey"`
	Steps        []Step        `json:"steps"`
	Frames       []Frame       `json:"frames"`
	Conns        []ConnEvent   `json:"conns"`
	Observations []Observation `json:"observations"`
	Actions      []Action      `json:"actions"`
	Problems     []Problem     `json:"problems"`
	Stall        *Stall        `json:"stall,omitempty"`
	// Unexpected lists what arrived while a journey asserted that nothing would (expect … none).
	Unexpected []Unexpected `json:"unexpected,omitempty"`
	// End is set when the journey ended early on purpose (end expected-refusal).
	End   *End           `json:"end,omitempty"`
	Hello map[Role]Hello `json:"hello"`
	// ReadLimits is set when the frames carry what the receiving contracts read from them
	// (Frame.Read), bounded so; nil in a transcript written before skewtest kept it.
	ReadLimits *Limits `json:"readLimits,omitempty"`

	// sealed is set once the pairing ended: nothing changes any more, so what checks derive
	// from the transcript is kept (Derived).
	sealed  bool
	derived sync.Map // key → derived value, once sealed
}

// Seal marks the transcript finished: from now on nothing in it changes, and what Derived
// computes is kept. The harness seals a pairing's transcript when the pairing ends; it still
// sets the frames' Read (and ReadLimits), which nothing derived depends on, before the
// pairing's Run returns.
func (t *Transcript) Seal() { t.sealed = true }

// Derived returns what f derives from the transcript, named by key: computed once for a
// sealed transcript (so the checks of every pairing that reads one reference transcript
// share it), on every call for one still being written. f must not modify the transcript,
// and callers must not modify what it returns. Safe for concurrent use on a sealed
// transcript.
func (t *Transcript) Derived(key any, f func() any) any {
	if !t.sealed {
		return f()
	}
	if v, ok := t.derived.Load(key); ok {
		return v
	}
	v, _ := t.derived.LoadOrStore(key, f())
	return v
}

// Build identifies one side.
type Build struct {
	Label    string `json:"label"`
	Revision string `json:"revision"`
}

// Hello is what a driver announced.
type Hello struct {
	Protocol int      `json:"protocol"`
	Actions  []string `json:"actions"`
	// Params is what the driver described of its actions' parameters (omitted when
	// nothing): coverage counts the declared limits and enum values the actions reached.
	Params map[string][]driverkit.Param `json:"params,omitempty"`
}

// Step is a journey step as it ran.
type Step struct {
	Name    string    `json:"name"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Done    bool      `json:"done"`
}

// Frame is one WebSocket message as tapped.
type Frame struct {
	Index  int       `json:"index"`
	Conn   int       `json:"conn"`
	Path   string    `json:"path"`
	Dir    string    `json:"dir"` // "C>H" or "H>C"
	Binary bool      `json:"binary"`
	Data   []byte    `json:"data"`
	At     time.Time `json:"at"`
	Step   string    `json:"step"`
	// Control is "ping", "pong" or "close" for a WebSocket control frame (Data is its
	// payload), "" for a message.
	Control string `json:"control,omitempty"`
	// Teardown is set for a frame written after the journey ended (while the drivers were
	// being stopped): it belongs to no step's expectations.
	Teardown bool `json:"teardown,omitempty"`
	// Decoded is what the receiving build's driver said about the frame, for a channel whose
	// contract leaves naming to the driver (decode action); nil until it answered.
	Decoded *DriverDecode `json:"decoded,omitempty"`
	// Original is the message as its sender wrote it when the tap rewrote it on the way (the
	// future-peer pass: Data is what the receiver got); Rewrite says what was changed.
	Original []byte `json:"original,omitempty"`
	Rewrite  string `json:"rewrite,omitempty"`
	// Read is what the receiving build's contract read from the message: one entry per frame
	// it carried (a batch carries several; none while a frame that spans messages is
	// incomplete), with decoded values bounded by the transcript's ReadLimits. Set once the
	// pairing ended, for a transcript that is kept.
	Read []ReadFrame `json:"read,omitempty"`
}

// TeardownStep is what a frame that crossed while the pairing was torn down shows for its
// step, in every report and finding.
const TeardownStep = "(teardown)"

// StepLabel is the step a frame arrived in, or TeardownStep.
func (f Frame) StepLabel() string {
	if f.Teardown {
		return TeardownStep
	}
	return f.Step
}

// DriverDecode is a receiving driver's verdict on one frame (the decode action): the frames
// it named in it, or its refusal.
type DriverDecode struct {
	Frames  []DecodedFrame `json:"frames,omitempty"`
	Refused bool           `json:"refused,omitempty"`
	Reason  string         `json:"reason,omitempty"`
}

// DecodedFrame is one frame a driver named: its type or opcode and its fields.
type DecodedFrame struct {
	Type   string          `json:"type,omitempty"`
	Opcode int             `json:"opcode,omitempty"`
	Fields json.RawMessage `json:"fields,omitempty"`
}

// ConnEvent is a tapped connection opening, closing or being dropped.
type ConnEvent struct {
	Conn   int       `json:"conn"`
	Path   string    `json:"path"`
	Event  string    `json:"event"`
	Detail string    `json:"detail,omitempty"`
	At     time.Time `json:"at"`
	Step   string    `json:"step"`
}

// Observation is one driver observation.
type Observation struct {
	Role Role            `json:"role"`
	What string          `json:"what"`
	Data json.RawMessage `json:"data"`
	At   time.Time       `json:"at"`
	Step string          `json:"step"`
	// Teardown is set for an observation made after the journey ended.
	Teardown bool `json:"teardown,omitempty"`
	// memo keeps Data decoded once it has been (copies of the observation share it); nil
	// for an observation not made by Memoized: then Value decodes on every call.
	memo *decodedData
}

// decodedData is an observation's data decoded once, for every check that reads it.
type decodedData struct {
	once sync.Once
	v    any
	ok   bool
	// derived is what Derive computed from the observation, by key.
	mu      sync.Mutex
	derived map[any]any
}

// Derive returns what f derives from the observation, named by key (comparable): for a
// memoized observation computed once per key, whichever copy asks (a stream's values read by
// the barrier as the journey goes, then by the checks, are decoded from base64 once); on
// every call for one not memoized. f must depend on nothing but the observation and what key
// names, and callers must not modify what it returns.
func (o Observation) Derive(key any, f func() any) any {
	if o.memo == nil {
		return f()
	}
	o.memo.mu.Lock()
	v, ok := o.memo.derived[key]
	o.memo.mu.Unlock()
	if ok {
		return v
	}
	v = f()
	o.memo.mu.Lock()
	defer o.memo.mu.Unlock()
	if had, ok := o.memo.derived[key]; ok {
		return had // another copy derived it meanwhile: keep one answer
	}
	if o.memo.derived == nil {
		o.memo.derived = map[any]any{}
	}
	o.memo.derived[key] = v
	return v
}

// ForgetDerived drops what Derive kept on every observation (a stream's values, decoded from
// base64: megabytes a terminal snapshot), keeping each observation's data and its decoded
// value. The harness calls it once a pairing's own checks have run: a reference transcript
// is then kept, while the pairings checked against it run, for its frames and final
// state, not for its streams' values, which a later Derive decodes again.
func (t *Transcript) ForgetDerived() {
	for _, o := range t.Observations {
		if o.memo == nil {
			continue
		}
		o.memo.mu.Lock()
		o.memo.derived = nil
		o.memo.mu.Unlock()
	}
}

// Memoized returns o such that Value decodes its data once, however many checks, barriers
// and copies read it. The recorder makes every observation so: a barrier re-reads the
// transcript on every change, and a check reads each observation several times.
func (o Observation) Memoized() Observation {
	o.memo = &decodedData{}
	return o
}

// WithValue returns o memoized (Memoized) with v as its data's value: what its data, valid
// JSON, decodes to, decoded already (the driver's line and its data are parsed in one
// pass).
func (o Observation) WithValue(v any) Observation {
	o.memo = &decodedData{v: v, ok: true}
	o.memo.once.Do(func() {})
	return o
}

// Value is the observation's data decoded as JSON (as encoding/json decodes into any);
// ok is false when it is not JSON. Callers must not modify what it returns.
func (o Observation) Value() (v any, ok bool) {
	if o.memo == nil {
		return decodeData(o.Data)
	}
	o.memo.once.Do(func() { o.memo.v, o.memo.ok = decodeData(o.Data) })
	return o.memo.v, o.memo.ok
}

// decodeData decodes as encoding/json does, with the v1 package of encoding/json/v2's
// implementation: the same results, several times faster on long strings (a terminal's
// base64 output).
func decodeData(data json.RawMessage) (any, bool) {
	var v any
	if jsonv1.Unmarshal(data, &v) != nil {
		return nil, false
	}
	return v, true
}

// Action is one action sent to a driver and how it ended.
type Action struct {
	Role      Role            `json:"role"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Step      string          `json:"step"`
	OK        bool            `json:"ok"`
	ErrorCode string          `json:"errorCode,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Problem is something a driver did wrong: an invalid line, a crash, an unsupported action.
type Problem struct {
	Role    Role   `json:"role"`
	Step    string `json:"step"`
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
}

// Stall says which barrier a step was waiting on when its time ran out.
type Stall struct {
	Step    string        `json:"step"`
	Barrier string        `json:"barrier"`
	Timeout time.Duration `json:"timeoutNs"`
	// Quiet is set when the barrier was given up early: nothing happened (no frame, no
	// observation, no connection event) for this long, so nothing was left to meet it.
	Quiet time.Duration `json:"quietNs,omitempty"`
	// Offline says no connection between client and host was open when it was given up.
	Offline bool `json:"offline,omitempty"`
	// Refused says a frame of the step had been refused when it was given up: Quiet was
	// then the shorter quiet a refusal leaves a barrier (the pairing fails on the refusal).
	Refused bool `json:"refused,omitempty"`
	// NearMiss is what came close to meeting the barrier, a line each: frames of the awaited
	// name whose fields failed its where (with the values they carried), fewer than its
	// count, in another step or the other direction; observations whose fields differ.
	NearMiss []string `json:"nearMiss,omitempty"`
}

// Unexpected is an absence assertion that failed: what arrived during it.
type Unexpected struct {
	Step   string `json:"step"`
	Line   int    `json:"line"`
	Expect string `json:"expect"`
	Got    string `json:"got"`
}

// End records a journey that ended early on purpose, and why.
type End struct {
	Step   string `json:"step"`
	Reason string `json:"reason"` // "expected-refusal"
}

// Observed returns the observations of role and what, in order.
func (t *Transcript) Observed(role Role, what string) []Observation {
	var out []Observation
	for _, o := range t.Observations {
		if o.Role == role && o.What == what {
			out = append(out, o)
		}
	}
	return out
}

// CompletedSteps lists the steps that reached their barrier.
func (t *Transcript) CompletedSteps() []string {
	out := []string{}
	for _, s := range t.Steps {
		if s.Done {
			out = append(out, s.Name)
		}
	}
	return out
}
