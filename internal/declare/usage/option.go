package usage

import (
	"errors"
	"fmt"
	"strings"
)

// OptionError is a usage error about the value of one option of a library call, which it
// names as a Go caller and skewtest.yaml know it: a Config field ("Shard"). Its message
// begins with that name: `Shard "3/2": want K/N …`. A command, whose user gave the value
// with a flag, says the flag instead (Rename).
type OptionError struct {
	// Option is the option's name: the Config field.
	Option string
	// Err is what is wrong with its value: the message after the name.
	Err error
}

// Optionf is an *OptionError about option, its message formatted as fmt.Errorf does
// (a %w verb keeps its error as a cause): Optionf("Shard", "%q: want K/N", s).
func Optionf(option, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}

func (e *OptionError) Error() string { return e.Option + " " + e.Err.Error() }

// Unwrap returns what is wrong.
func (e *OptionError) Unwrap() error { return e.Err }

// UserMistake marks *OptionError as a Mistake.
func (*OptionError) UserMistake() {}

// Rename is err with the option it is about named by names instead (a command's table of
// the flags that set each option: names["Shard"] is "--shard"), wherever err's message
// says it, however deep the *OptionError is wrapped; errors.Is and errors.As see through
// to err. It is err itself when err is about no option names has, or is renamed already.
func Rename(err error, names map[string]string) error {
	var (
		oe *OptionError
		r  *renamed
	)
	if !errors.As(err, &oe) || errors.As(err, &r) {
		return err
	}
	name, ok := names[oe.Option]
	if !ok {
		return err
	}
	msg := strings.Replace(err.Error(), oe.Error(), name+" "+oe.Err.Error(), 1)
	return &renamed{msg: msg, err: err}
}

// renamed is an error whose message names a flag where the error it wraps names an option.
type renamed struct {
	msg string
	err error
}

func (r *renamed) Error() string { return r.msg }
func (r *renamed) Unwrap() error { return r.err }
