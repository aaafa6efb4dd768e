package contract

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoCodec is wrapped by the error of a message of a type (text or binary) its channel has
// no codec for.
var ErrNoCodec = errors.New("no codec for this message type")

// HeaderError says a binary packet does not carry the channel's header.
type HeaderError struct {
	Length int // bytes from the packet's start to the end of what was received
	Reason string
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("%d-byte frame: %s", e.Length, e.Reason)
}

// BatchError says a message cannot be cut into the frames of its batch.
type BatchError struct {
	Batch  string
	Reason string
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("%s batch: %s", e.Batch, e.Reason)
}

// PayloadError says a frame's bytes are not what its codec reads (not JSON, not the protobuf
// message).
type PayloadError struct {
	Codec string // json, protobuf
	Err   error
}

func (e *PayloadError) Error() string {
	return fmt.Sprintf("frame is not %s: %v", e.Codec, e.Err)
}

func (e *PayloadError) Unwrap() error { return e.Err }

// NameError says a decoded frame names no frame: every naming rule was tried, and Reasons
// says why each did not name it.
type NameError struct {
	Reasons []string
}

func (e *NameError) Error() string {
	return "frame names no frame type: " + strings.Join(e.Reasons, "; ")
}

// shortError says the bytes end before a header or packet does: in a stream more bytes may
// complete it, in a message it is truncated.
type shortError struct {
	length int
	reason string
}

func (e *shortError) Error() string { return fmt.Sprintf("%d-byte frame: %s", e.length, e.reason) }

// truncated is the error of a message that ends inside its last packet.
func (e *shortError) truncated() *HeaderError { return &HeaderError{e.length, e.reason} }
