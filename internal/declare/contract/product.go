package contract

import (
	"slices"
	"strings"
)

// What a product declares about its drivers' observations, so checks need no product
// knowledge: which observations carry what was sent and what was delivered (streams), what
// makes up each side's final state (for the differential oracle), and where a side reports
// refusing its peer's protocol window or rejecting a peer's frame. Version 2 only; a version
// 1 file declares none of them.

// Stream comparisons (StreamSpec.Compare).
const (
	// CompareBytes: everything delivered, concatenated, equals everything sent (input).
	CompareBytes = "bytes"
	// CompareCumulative: the last delivered value equals everything sent, concatenated (a
	// rendered screen, a document, any buffer that accumulates).
	CompareCumulative = "cumulative"
	// CompareEach: the i-th delivered value equals the i-th sent one (snapshots).
	CompareEach = "each"
	// CompareSet: every sent item arrives, by id, with the same value (messages).
	CompareSet = "set"
)

// Value encodings (Endpoint.Encoding).
const (
	EncodingBase64 = "base64" // a JSON string of base64, the driver protocol's exact bytes (default)
	EncodingText   = "text"   // a JSON string, as it is
	EncodingJSON   = "json"   // any JSON value, compared as written
)

// Roles an observation may come from (Match.Role, Endpoint.Role).
const (
	RoleHost   = "host"
	RoleClient = "client"
	RoleAny    = "any"
)

// StreamSpec declares a stream of data for the data-loss check: what was sent and what was
// delivered, and how to compare them.
type StreamSpec struct {
	Name      string   `json:"name"`
	Sent      Endpoint `json:"sent"`
	Delivered Endpoint `json:"delivered"`
	Compare   string   `json:"compare"`
	// Kinds limits the stream to pairings with clients of these kinds (absent: every kind).
	Kinds []string `json:"kinds,omitempty"`
}

// AppliesTo reports whether the stream is checked for clients of kind.
func (s *StreamSpec) AppliesTo(kind string) bool {
	return len(s.Kinds) == 0 || slices.Contains(s.Kinds, kind)
}

// Endpoint is one end of a stream: the observations (or, for what a journey made a driver
// send, the actions) of one role that carry its values.
type Endpoint struct {
	Role         string         `json:"role"`
	Observations []string       `json:"observations,omitempty"`
	Actions      []string       `json:"actions,omitempty"`
	Where        map[string]any `json:"where,omitempty"`
	// Pointer locates the value in the observation's data (or the action's args); default
	// /bytes, the driver protocol's field for exact bytes.
	Pointer  string `json:"pointer,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	// ID locates an item's id (compare set).
	ID string `json:"id,omitempty"`
	// Each, when set, points at an array whose elements are the items (one observation or
	// action carrying several, such as a batch); Pointer and ID are then read in each
	// element. Data without that array is one item.
	Each string `json:"each,omitempty"`
	// From, on the delivered end of a cumulative stream, points at a number: the byte of
	// the accumulated value at which this value starts, replacing everything from there on
	// (a driver that reports what changed since its last report, so a buffer that grows to
	// megabytes costs its growth per report, not its size). A value without the number
	// starts at 0: it is the whole buffer. Read in each element with Each.
	From string `json:"from,omitempty"`
}

// ValuePointer is the endpoint's pointer, /bytes by default.
func (e *Endpoint) ValuePointer() string {
	if e.Pointer == "" {
		return "/bytes"
	}
	return e.Pointer
}

// Carries reports whether an observation (what) or an action (action true) is one of the
// endpoint's.
func (e *Endpoint) Carries(what string, action bool) bool {
	if action {
		return slices.Contains(e.Actions, what)
	}
	return slices.Contains(e.Observations, what)
}

// Match picks observations: of a role (host, client or any), with a name, whose data has
// the top-level values of Where.
type Match struct {
	Role        string         `json:"role,omitempty"`
	Observation string         `json:"observation"`
	Where       map[string]any `json:"where,omitempty"`
}

// StateSpec declares one part of a side's final observable state, for the differential
// oracle: the last matching observation's value at Pointer (the whole data when empty) at
// the end of the journey.
type StateSpec struct {
	Name        string         `json:"name"`
	Role        string         `json:"role"`
	Observation string         `json:"observation"`
	Where       map[string]any `json:"where,omitempty"`
	Pointer     string         `json:"pointer,omitempty"`
}

// Stream returns the stream declared with that name, or nil.
func (c *Contract) Stream(name string) *StreamSpec {
	if c == nil {
		return nil
	}
	for i := range c.Streams {
		if c.Streams[i].Name == name {
			return &c.Streams[i]
		}
	}
	return nil
}

// StateNamed returns the state part declared with that name, or nil.
func (c *Contract) StateNamed(name string) *StateSpec {
	if c == nil {
		return nil
	}
	for i := range c.State {
		if c.State[i].Name == name {
			return &c.State[i]
		}
	}
	return nil
}

// Resolve follows an RFC 6901 JSON pointer through a value decoded by encoding/json.
func Resolve(v any, ptr string) (any, bool) { return resolve(v, ptr) }

func (v *validator) product(c *Contract) {
	seen := map[string]bool{}
	for i, s := range c.Streams {
		p := child("/streams", i)
		switch {
		case s.Name == "":
			v.add(p, "a stream needs a name")
		case seen[s.Name]:
			v.add(p+"/name", "two streams are called %q", s.Name)
		}
		seen[s.Name] = true
		if !slices.Contains([]string{CompareBytes, CompareCumulative, CompareEach, CompareSet}, s.Compare) {
			v.add(p+"/compare", `compare %q: want bytes, cumulative, each or set`, s.Compare)
		}
		v.endpoint(s.Sent, p+"/sent", s.Compare)
		v.endpoint(s.Delivered, p+"/delivered", s.Compare)
		if s.Sent.From != "" {
			v.add(p+"/sent/from", "from belongs on the delivered end of a cumulative stream: what was sent is concatenated")
		}
		if s.Delivered.From != "" && s.Compare != CompareCumulative {
			v.add(p+"/delivered/from", `from needs compare "cumulative" (compare %q compares whole values)`, s.Compare)
		}
	}
	for i, m := range c.Refusals {
		v.match(m, child("/refusals", i))
	}
	for i, m := range c.Rejections {
		v.match(m, child("/rejections", i))
	}
	names := map[string]bool{}
	for i, s := range c.State {
		p := child("/state", i)
		if s.Name == "" || names[s.Name] {
			v.add(p+"/name", "a state part needs a unique name")
		}
		names[s.Name] = true
		if s.Role != RoleHost && s.Role != RoleClient {
			v.add(p+"/role", `role %q: want host or client`, s.Role)
		}
		if s.Observation == "" {
			v.add(p+"/observation", "a state part names the observation that reports it")
		}
		v.where(s.Where, p+"/where")
		v.pointer(s.Pointer, p+"/pointer", false)
	}
}

func (v *validator) endpoint(e Endpoint, p, compare string) {
	if e.Role != RoleHost && e.Role != RoleClient {
		v.add(p+"/role", `role %q: want host or client`, e.Role)
	}
	if len(e.Observations)+len(e.Actions) == 0 {
		v.add(p, `an endpoint names its "observations" (or, for what a journey sent, "actions")`)
	}
	switch e.Encoding {
	case "", EncodingBase64, EncodingText, EncodingJSON:
	default:
		v.add(p+"/encoding", `encoding %q: want base64, text or json`, e.Encoding)
	}
	v.pointer(e.Pointer, p+"/pointer", false)
	v.pointer(e.ID, p+"/id", compare == CompareSet)
	v.pointer(e.Each, p+"/each", false)
	v.pointer(e.From, p+"/from", false)
	v.where(e.Where, p+"/where")
}

func (v *validator) match(m Match, p string) {
	switch m.Role {
	case "", RoleAny, RoleHost, RoleClient:
	default:
		v.add(p+"/role", `role %q: want host, client or any`, m.Role)
	}
	if strings.TrimSpace(m.Observation) == "" {
		v.add(p+"/observation", "name the observation that reports it")
	}
	v.where(m.Where, p+"/where")
}

func (v *validator) where(w map[string]any, p string) {
	for k, val := range w {
		switch val.(type) {
		case string, float64, bool, nil:
		default:
			v.add(child(p, k), "a where value is a string, number, boolean or null, got %s", jsonClass(val))
		}
	}
}
