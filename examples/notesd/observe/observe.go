// Package observe is how notesd's host and clients report what they did, so a driver can
// pass it on as observations (skewtest's driver protocol) and specs can look at it. The
// product calls Observe at the moments that matter: a note stored, a session opened, a
// push applied, a peer refused.
package observe

import (
	"encoding/json"
	"sync"
)

// Sink receives observations: what happened and its data (a JSON-marshalable value). It
// may be called from any goroutine.
type Sink interface {
	Observe(what string, data any)
}

// Func adapts a function to a Sink.
type Func func(what string, data any)

// Observe calls f.
func (f Func) Observe(what string, data any) { f(what, data) }

// Discard drops every observation.
var Discard Sink = Func(func(string, any) {})

// Observation is one recorded observation, its data as JSON.
type Observation struct {
	What string
	Data json.RawMessage
}

// Recorder keeps every observation, for specs.
type Recorder struct {
	mu  sync.Mutex
	all []Observation
}

// Observe records one observation.
func (r *Recorder) Observe(what string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshal": err.Error()})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, Observation{What: what, Data: b})
}

// All returns what was recorded so far, in order.
func (r *Recorder) All() []Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Observation(nil), r.all...)
}

// Named returns the data of every observation called what, decoded as maps.
func (r *Recorder) Named(what string) []map[string]any {
	var out []map[string]any
	for _, o := range r.All() {
		if o.What == what {
			var m map[string]any
			_ = json.Unmarshal(o.Data, &m)
			out = append(out, m)
		}
	}
	return out
}
