// Package usage marks the errors that are the user's to fix: a flag or config value, a file
// of the subject (skewtest.yaml, a contract, a journey, a generator, the lock), a ref or
// tag that is not there. The command exits 2 on them and 3 on any other error, and it
// tells them apart with one call, Is.
//
// It imports nothing of skewtest and nothing outside the standard library, so any package
// can mark an error without taking on what a subject needs (go-git, YAML).
package usage

import (
	"errors"
	"fmt"
)

// Mistake is implemented by every error that is the user's to fix: *Error, and the typed
// errors that carry a file and line (a configuration, a journey, a lock), which mark
// themselves with UserMistake.
type Mistake interface {
	error
	UserMistake()
}

// Error is a usage error. Err is the whole message with its cause: Errorf wraps with %w,
// so errors.Is and errors.As see through it.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// UserMistake marks *Error as a Mistake.
func (*Error) UserMistake() {}

// Errorf formats a usage error as fmt.Errorf does: a %w verb keeps its error as a cause.
func Errorf(format string, args ...any) error { return &Error{fmt.Errorf(format, args...)} }

// New is a usage error with a fixed text: a sentinel, which errors.Is finds by identity.
func New(text string) error { return &Error{errors.New(text)} }

// Is says whether err, or an error it wraps, is the user's to fix.
func Is(err error) bool {
	var m Mistake
	return errors.As(err, &m)
}
