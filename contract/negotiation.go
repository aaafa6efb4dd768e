package contract

// Negotiation says where negotiated capability or feature names are reported: an
// observation of the client driver (optionally only those whose top-level keys hold the
// values in Where), or a frame by name and direction. The value at Pointer is an object whose
// truthy keys, or an array of strings, are the negotiated names.
type Negotiation struct {
	Observation string         `json:"observation,omitempty"`
	Where       map[string]any `json:"where,omitempty"`
	Frame       string         `json:"frame,omitempty"`
	Dir         string         `json:"dir,omitempty"`
	Pointer     string         `json:"pointer"`
}

// Scope says negotiation is per sub-channel, named by the value at Pointer (in the echo and
// in gated frames).
type Scope struct {
	Pointer string `json:"pointer"`
}

// Invariant kinds.
const (
	InvariantCorrelation = "correlation"
	InvariantEcho        = "echo"
	InvariantOrder       = "order"
)

// Invariant is a product rule about frames that the checks enforce (correlation of requests
// and replies, echoes, order). The contract stores it as written; only Kind is validated.
type Invariant struct {
	Kind         string   `json:"kind"`
	Request      []string `json:"request,omitempty"`
	Reply        []string `json:"reply,omitempty"`
	Pointer      string   `json:"pointer,omitempty"`
	ReplyPointer string   `json:"replyPointer,omitempty"`
	Start        string   `json:"start,omitempty"`
	End          string   `json:"end,omitempty"`
	Chunk        string   `json:"chunk,omitempty"`
	Message      string   `json:"message,omitempty"`
}
