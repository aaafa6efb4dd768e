package observe

import "sync"

// Recorder keeps observations in the order they arrive. It is safe for concurrent use.
type Recorder struct {
	mu  sync.Mutex
	all []Observation
}

// Observe keeps o.
func (r *Recorder) Observe(o Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, o)
}

// All returns every observation so far.
func (r *Recorder) All() []Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Observation(nil), r.all...)
}

// Of returns the observations of type T so far, in order.
func Of[T Observation](r *Recorder) []T {
	var out []T
	for _, o := range r.All() {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
