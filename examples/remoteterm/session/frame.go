package session

import "encoding/json"

// Type is a session frame's discriminator, the value of its "type" key.
type Type string

// The session frame vocabulary.
const (
	TypeHello                 Type = "hello"
	TypeServerInfo            Type = "serverInfo"
	TypeRequest               Type = "request"
	TypeResponse              Type = "response"
	TypeRPCError              Type = "rpcError"
	TypeServerRequest         Type = "serverRequest"
	TypeServerResponse        Type = "serverResponse"
	TypeServerRequestResolved Type = "serverRequestResolved"
	TypePresence              Type = "presence"
	TypeAttentionEvent        Type = "attentionEvent"
	TypeRoundProgress         Type = "roundProgress"
)

// Frame is one session frame. The concrete types below are the whole union.
type Frame interface {
	FrameType() Type
}

// Hello opens a session (client to daemon).
type Hello struct {
	ClientID                     string           `json:"clientId"`
	ClientType                   string           `json:"clientType"`
	ProtocolVersion              int              `json:"protocolVersion"`
	MinCompatibleProtocolVersion int              `json:"minCompatibleProtocolVersion"`
	Commands                     map[string][]int `json:"commands,omitempty"`
}

// ServerInfo answers a compatible Hello (daemon to client).
type ServerInfo struct {
	AppVersion                   string `json:"appVersion"`
	ProtocolVersion              int    `json:"protocolVersion"`
	MinCompatibleProtocolVersion int    `json:"minCompatibleProtocolVersion"`
	// Features is an open record: a key the daemon does not advertise is absent.
	Features Features         `json:"features"`
	Commands map[string][]int `json:"commands"`
}

// Request calls a registered command (client to daemon). Version 0 means the request named
// none, which the daemon accepts only for a command it speaks in exactly one version.
type Request struct {
	RequestID string          `json:"requestId"`
	Command   string          `json:"command"`
	Version   int             `json:"version,omitempty"`
	Input     json.RawMessage `json:"input"`
}

// Response carries a command's output (daemon to client).
type Response struct {
	RequestID string          `json:"requestId"`
	Output    json.RawMessage `json:"output"`
}

// RPCErrorFrame refuses a request, or the hello when RequestID is HelloRequestID, or a
// frame that carries no requestId (an unknown frame, a stray serverResponse) when RequestID
// is empty (daemon to client). RPCError is its Go error form. The contract's correlation
// invariant reserves both: neither answers a request.
type RPCErrorFrame struct {
	RequestID string          `json:"requestId"`
	Code      Code            `json:"code"`
	Message   string          `json:"message"`
	Details   json.RawMessage `json:"details,omitempty"`
}

// HelloRequestID is the requestId of an rpcError that refuses the hello itself.
const HelloRequestID = "hello"

// ServerRequest asks the client something (daemon to client; feature serverRequests).
type ServerRequest struct {
	ServerRequestID string          `json:"serverRequestId"`
	Kind            string          `json:"kind"`
	Payload         json.RawMessage `json:"payload"`
}

// ServerResponse answers a ServerRequest (client to daemon; feature serverRequests).
type ServerResponse struct {
	ServerRequestID string          `json:"serverRequestId"`
	Payload         json.RawMessage `json:"payload"`
}

// ServerRequestResolved withdraws a ServerRequest that needs no more answers
// (daemon to client; feature serverRequests).
type ServerRequestResolved struct {
	ServerRequestID string `json:"serverRequestId"`
}

// Presence tells the daemon where the client's attention is (client to daemon; feature
// attention).
type Presence struct {
	Focus         bool   `json:"focus"`
	Visibility    string `json:"visibility"`
	DeviceClass   string `json:"deviceClass"`
	FocusedReview string `json:"focusedReview,omitempty"`
}

// AttentionEvent raises or clears attention items (daemon to client; feature attention).
type AttentionEvent struct {
	Raised  json.RawMessage `json:"raised,omitempty"`
	Cleared []string        `json:"cleared,omitempty"`
}

// RoundProgress carries one round-progress event of a review (daemon to client). Seq is the
// event's position in the review's progress log; releases before roundProgressSeq send none.
type RoundProgress struct {
	ReviewID string          `json:"reviewId"`
	Event    json.RawMessage `json:"event"`
	Seq      *uint64         `json:"seq,omitempty"`
}

func (Hello) FrameType() Type                 { return TypeHello }
func (ServerInfo) FrameType() Type            { return TypeServerInfo }
func (Request) FrameType() Type               { return TypeRequest }
func (Response) FrameType() Type              { return TypeResponse }
func (RPCErrorFrame) FrameType() Type         { return TypeRPCError }
func (ServerRequest) FrameType() Type         { return TypeServerRequest }
func (ServerResponse) FrameType() Type        { return TypeServerResponse }
func (ServerRequestResolved) FrameType() Type { return TypeServerRequestResolved }
func (Presence) FrameType() Type              { return TypePresence }
func (AttentionEvent) FrameType() Type        { return TypeAttentionEvent }
func (RoundProgress) FrameType() Type         { return TypeRoundProgress }
