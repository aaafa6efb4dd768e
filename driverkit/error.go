package driverkit

import (
	"errors"
	"fmt"
)

// Result error codes: the "code" of a result that is not ok.
const (
	// CodeUnsupportedAction: this build has no such action (skewtest reports it clearly,
	// naming the action and the step).
	CodeUnsupportedAction = "unsupported-action"
	// CodeBadArgs: the action's arguments are malformed or incomplete.
	CodeBadArgs = "bad-args"
	// CodeFailed: the build's code could not carry the action out.
	CodeFailed = "failed"
)

// Error is an action's failure with its result code. A handler's error that is not (and
// does not wrap) an *Error is answered with CodeFailed.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// BadArgs is a bad-args failure: the action's arguments are wrong.
func BadArgs(format string, a ...any) error {
	return &Error{Code: CodeBadArgs, Err: fmt.Errorf(format, a...)}
}

// Failed is a failed result for err, whatever err wraps (a handler's plain error already
// is one; use Failed to override the code of an error that wraps an *Error).
func Failed(err error) error {
	return &Error{Code: CodeFailed, Err: err}
}

// Unsupported is an unsupported-action failure, for an action a handler finds this build
// cannot do after all (a handler that exists only in some builds of the product).
func Unsupported(format string, a ...any) error {
	return &Error{Code: CodeUnsupportedAction, Err: fmt.Errorf(format, a...)}
}

// codeOf is the result code for a handler's error: the outermost *Error's.
func codeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeFailed
}
