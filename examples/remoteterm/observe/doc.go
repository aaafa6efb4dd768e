// Package observe is the vocabulary of what remoteterm's host and clients report about
// themselves: each observation is a typed value that names itself (What) and marshals to
// the data of a driver-protocol "observe" message. Library code reports to a Sink; the
// driver writes observations as JSON lines, tests keep them in a Recorder.
package observe

// Observation is one thing the product did, named by What ("rendered-output", …).
type Observation interface {
	What() string
}

// Sink receives observations. Implementations must be safe for concurrent use.
type Sink interface {
	Observe(o Observation)
}

// Discard drops every observation.
type Discard struct{}

// Observe drops o.
func (Discard) Observe(Observation) {}
