package skewtest

import (
	"errors"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
)

// IsUsage says whether err is the user's to fix: a mistake in a config, a flag or the
// subject's files (skewtest.yaml, a contract, a journey, the lock), or a ref or tag that is
// not there. The command exits 2 on those, and 3 on any other error.
func IsUsage(err error) bool {
	var ue *subject.UsageError
	var ce *builds.ConfigError
	var se *journeys.SyntaxError
	var le *pins.LockError
	var jf *journeys.FileError
	var ju *journeys.UnknownError
	switch {
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &se), errors.As(err, &le),
		errors.As(err, &jf), errors.As(err, &ju), errors.Is(err, journeys.ErrNoJourneys),
		errors.Is(err, pins.ErrNoStableTag), errors.Is(err, pins.ErrUnknownRef), errors.Is(err, pins.ErrNotRepository),
		errors.Is(err, pins.ErrMovedTag), errors.Is(err, pins.ErrInvalidOptions), errors.Is(err, pins.ErrNoProtocol):
		return true
	}
	return false
}
