package skewtest

import "github.com/skewtest/skewtest/internal/declare/usage"

// IsUsage says whether err is the user's to fix: a mistake in a config, a flag or the
// subject's files (skewtest.yaml, a contract, a journey, the lock), or a ref or tag that is
// not there. The command exits 2 on those, and 3 on any other error.
func IsUsage(err error) bool { return usage.Is(err) }
