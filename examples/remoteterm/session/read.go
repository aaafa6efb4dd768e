package session

import (
	"errors"
	"fmt"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

// RefusalError is a message a session peer refuses as soon as it reads it, before it acts
// on it: what its refused observation says, and the rpcError a daemon answers with.
type RefusalError struct {
	// Type is the frame's type, when the decoder got that far.
	Type Type
	// RequestID is the frame's requestId, when a daemon names it in its rpcError.
	RequestID string
	// Code is the rpcError code a daemon refuses with; empty for a client's refusal.
	Code Code
	// Reason is why, in the words of the refused observation.
	Reason string
	// Err is the *DecodeError of a frame that did not decode; nil otherwise.
	Err error
}

func (e *RefusalError) Error() string { return e.Reason }

func (e *RefusalError) Unwrap() error { return e.Err }

// ReadFromHost reads one message from the daemon as a session client of release rel does,
// as far as the message alone decides: it decodes a text message with DecodeStrict when
// rel.StrictSessionDecoder, else with Decode, and refuses a binary message, a frame that
// does not decode, a frame only clients send and a frame of the attention feature when rel
// predates it. The client then also refuses a frame of a feature the daemon did not
// advertise, which depends on the connection. A refusal is a *RefusalError.
func ReadFromHost(rel release.Features, binary bool, b []byte) (Frame, error) {
	if binary {
		return nil, &RefusalError{Reason: "binary message on the session channel"}
	}
	decode := Decode
	if rel.StrictSessionDecoder {
		decode = DecodeStrict
	}
	f, err := decode(b)
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		return nil, &RefusalError{Type: de.Type, Reason: err.Error(), Err: err}
	}
	spec, _ := lookupFrame(f.FrameType())
	if spec.Direction != HostToClient {
		return nil, &RefusalError{Type: spec.Type, Reason: fmt.Sprintf("frame type %q is sent by a client, not accepted from the host", spec.Type)}
	}
	if spec.Feature == FeatureAttention && !rel.Attention && !rel.PresenceUngated {
		return nil, &RefusalError{Type: spec.Type, Reason: fmt.Sprintf("unknown frame type %q: this build predates feature %s", spec.Type, spec.Feature)}
	}
	return f, nil
}

// ReadFromClient reads one message from a session client as the daemon of release rel
// does, as far as the message alone decides: it decodes a text message with Decode (a
// daemon is never strict), and refuses a binary message, a frame that does not decode, a
// frame only the daemon sends and a frame of a feature the daemon does not compose. What
// the daemon does next depends on the connection (a frame before hello). A refusal is a
// *RefusalError.
func ReadFromClient(rel release.Features, binary bool, b []byte) (Frame, error) {
	return readFromClient(advertisedFeatures(rel), binary, b)
}

// readFromClient is ReadFromClient for a daemon that advertises features.
func readFromClient(features Features, binary bool, b []byte) (Frame, error) {
	if binary {
		return nil, &RefusalError{Code: CodeInvalidInput, Reason: "binary message on the session channel"}
	}
	f, err := Decode(b)
	if err != nil {
		var de *DecodeError
		errors.As(err, &de)
		code := CodeInvalidInput
		if errors.Is(err, ErrUnknownFrame) {
			code = CodeUnknownFrame
		}
		return nil, &RefusalError{Type: de.Type, RequestID: de.RequestID, Code: code, Reason: err.Error(), Err: err}
	}
	spec, _ := lookupFrame(f.FrameType())
	if spec.Direction != ClientToHost {
		return nil, &RefusalError{Type: spec.Type, Code: CodeUnknownFrame,
			Reason: fmt.Sprintf("frame type %q is sent by the host, not accepted from a client", spec.Type)}
	}
	if spec.Feature != "" && !features.Has(spec.Feature) {
		return nil, &RefusalError{Type: spec.Type, Code: CodeUnknownFrame,
			Reason: fmt.Sprintf("unknown frame type %q: feature %s is not composed in this daemon", spec.Type, spec.Feature)}
	}
	return f, nil
}
