package session

import (
	"encoding/json"
	"fmt"
)

// Code is an rpcError code. The set is open: a receiver accepts codes it does not know, so
// new codes stay append-only.
type Code string

// The codes Rennet names, plus the ones remoteterm added.
const (
	CodeInvalidInput         Code = "invalid_input"
	CodeCommandFailed        Code = "command_failed"
	CodeIncompatibleProtocol Code = "incompatible_protocol"
	CodeUnknownCommand       Code = "unknown_command"

	// CodeUnsupportedVersion: the request named a version of the command that the daemon
	// does not speak. details.supported lists the versions it does.
	CodeUnsupportedVersion Code = "unsupported_version"
	// CodeUnknownFrame: the daemon's decoder refused a frame: a type it does not know, or a
	// frame gated by a feature it does not compose (presence without attention).
	CodeUnknownFrame Code = "unknown_frame"
	// CodeHelloRequired: a frame other than hello arrived before the handshake completed.
	CodeHelloRequired Code = "hello_required"
)

// RPCError is an rpcError frame received as a Go error.
type RPCError struct {
	RequestID string
	Code      Code
	Message   string
	Details   json.RawMessage
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("rpcError %s (request %s): %s", e.Code, e.RequestID, e.Message)
}

// Is matches ErrIncompatibleProtocol for a refused hello.
func (e *RPCError) Is(target error) bool {
	return target == ErrIncompatibleProtocol && e.Code == CodeIncompatibleProtocol
}

func rpcErrorOf(f RPCErrorFrame) *RPCError {
	return &RPCError{RequestID: f.RequestID, Code: f.Code, Message: f.Message, Details: f.Details}
}

// mustJSON marshals values this package builds itself (maps of strings, numbers, slices).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("session: marshal %T: %v", v, err))
	}
	return b
}
