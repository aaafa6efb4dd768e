package driverproto

import (
	"errors"
	"fmt"
)

// Result error codes.
const (
	CodeUnsupportedAction = "unsupported-action"
	CodeBadArgs           = "bad-args"
	CodeFailed            = "failed"
)

// Error is an action's failure with its result code. A handler error that is not an
// *Error is reported as CodeFailed.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// BadArgs is a bad-args failure.
func BadArgs(format string, args ...any) error {
	return &Error{Code: CodeBadArgs, Err: fmt.Errorf(format, args...)}
}

func codeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeFailed
}
