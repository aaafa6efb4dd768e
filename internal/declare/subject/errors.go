package subject

import "fmt"

// UsageError is a mistake the user must fix in what they asked for: a flag, a setting, a
// file of the subject. A command exits 2 on it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef formats a UsageError.
func Usagef(format string, args ...any) error { return &UsageError{fmt.Sprintf(format, args...)} }
