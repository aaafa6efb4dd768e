package observe

// PTYOutput is output the terminal's process produced (the initial scrollback, then each
// emission's display bytes), in order.
type PTYOutput struct {
	Terminal string `json:"terminal"`
	Bytes    []byte `json:"bytes"`
}

func (PTYOutput) What() string { return "pty-output" }

// Input is input that reached the terminal's process.
type Input struct {
	Terminal string `json:"terminal"`
	Bytes    []byte `json:"bytes"`
}

func (Input) What() string { return "input" }

// InputRefused is input that reached the host for a terminal that did not take it (not
// writable): the host answered with WriteUnavailable, or an Error frame where that was not
// negotiated, and the process never saw it.
type InputRefused struct {
	Terminal string `json:"terminal"`
	Bytes    []byte `json:"bytes"`
}

func (InputRefused) What() string { return "input-refused" }

// SnapshotSent is a snapshot the host serialized and sent.
type SnapshotSent struct {
	Terminal string `json:"terminal"`
	Reason   string `json:"reason"`
	Bytes    []byte `json:"bytes"`
}

func (SnapshotSent) What() string { return "snapshot-sent" }

// OutputPaused is the host acting on SetOutputPaused: it holds (Paused) or resumes a
// stream's output.
type OutputPaused struct {
	Terminal string `json:"terminal"`
	Paused   bool   `json:"paused"`
}

func (OutputPaused) What() string { return "output-paused" }
