package session

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Sentinels a DecodeError wraps.
var (
	// ErrUnknownFrame: the frame's type is not in the vocabulary.
	ErrUnknownFrame = errors.New("unknown frame type")
	// ErrInvalidFrame: the frame is not a JSON object with a type, or breaks its schema.
	ErrInvalidFrame = errors.New("invalid frame")
)

// DecodeError says why a frame did not decode. Type and RequestID are filled when the frame
// carried them, so a receiver can still say which frame and request it refuses.
type DecodeError struct {
	Type      Type
	RequestID string
	Err       error // wraps ErrUnknownFrame or ErrInvalidFrame
}

func (e *DecodeError) Error() string {
	if e.Type == "" {
		return fmt.Sprintf("decode session frame: %v", e.Err)
	}
	return fmt.Sprintf("decode session frame %s: %v", e.Type, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Encode writes f as one JSON text frame, "type" first.
func Encode(f Frame) ([]byte, error) {
	body, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode session frame %s: %w", f.FrameType(), err)
	}
	typ, err := json.Marshal(f.FrameType())
	if err != nil {
		return nil, fmt.Errorf("encode session frame %s: %w", f.FrameType(), err)
	}
	out := append([]byte(`{"type":`), typ...)
	if len(body) > 2 { // body is "{...}"; "{}" adds nothing
		out = append(out, ',')
		out = append(out, body[1:len(body)-1]...)
	}
	return append(out, '}'), nil
}

// Decode reads one session frame tolerantly: keys the frame does not define are ignored.
// The returned Frame is one of the value types of this package (Hello, Request, …).
func Decode(b []byte) (Frame, error) { return decode(b, false) }

// DecodeStrict is Decode that refuses keys the frame does not define. It is never used on
// the wire; specs use it to prove that only a strict reader refuses an added field.
func DecodeStrict(b []byte) (Frame, error) { return decode(b, true) }

func decode(b []byte, strict bool) (Frame, error) {
	obj, err := objectKeys(b)
	if err != nil {
		return nil, &DecodeError{Err: fmt.Errorf("%w: %w", ErrInvalidFrame, err)}
	}
	var typ Type
	rawType, ok := obj["type"]
	if !ok || json.Unmarshal(rawType, &typ) != nil || typ == "" {
		return nil, decodeError(obj, "", fmt.Errorf("%w: no string \"type\"", ErrInvalidFrame))
	}
	spec, ok := lookupFrame(typ)
	if !ok {
		return nil, decodeError(obj, typ, fmt.Errorf("%w %q", ErrUnknownFrame, typ))
	}
	delete(obj, "type")
	if err := spec.Fields.check(obj, strict); err != nil {
		return nil, decodeError(obj, typ, fmt.Errorf("%w: %w", ErrInvalidFrame, err))
	}
	f, err := spec.decode(b)
	if err != nil {
		return nil, decodeError(obj, typ, fmt.Errorf("%w: %w", ErrInvalidFrame, err))
	}
	return f, nil
}

// decodeError is the DecodeError of a frame that split into obj, with the frame's
// requestId when it carried one as a string (read only for a refusal, not for every frame).
func decodeError(obj map[string]json.RawMessage, typ Type, err error) *DecodeError {
	derr := &DecodeError{Type: typ, Err: err}
	if raw, ok := obj["requestId"]; ok {
		_ = json.Unmarshal(raw, &derr.RequestID) // best effort, for the refusal's requestId
	}
	return derr
}
