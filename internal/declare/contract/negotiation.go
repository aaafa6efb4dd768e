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

// AnsweredOnce is a correlation invariant's Answered when every request is answered exactly
// once.
const AnsweredOnce = "once"

// Invariant is a product rule about the frames of a channel, checked on every pairing:
//
//	correlation  every reply carries, at ReplyPointer (default Pointer), the value an earlier
//	             request carried at Pointer (or one of Reserved): an error answers its request;
//	             with Answered "once", every request that carries a value (not a Reserved
//	             one) is answered exactly once, on its connection, within the journey
//	echo         every reply reports what the latest request before it asked: the value at
//	             ReplyPointer (default Pointer) equals the request's at Pointer
//	order        in each direction of each connection: Start, then Chunk frames, then End;
//	             no Chunk or End outside a Start … End, no Start inside one
//
// Message, when set, is said with a finding.
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
	// Reserved (correlation) are values a reply may carry without an earlier request that
	// carried them: names the protocol gives to frames without an id (a handshake's).
	Reserved []string `json:"reserved,omitempty"`
	// Answered (correlation) is AnsweredOnce when every request is answered exactly once:
	// a request no reply answered by the end of the journey, or a reply that answers a
	// request already answered, breaks the invariant. It holds between two builds when both
	// declare it; the rest of the invariant holds when both declare that.
	Answered string `json:"answered,omitempty"`
}
