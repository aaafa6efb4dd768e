package skewtest

import "github.com/skewtest/skewtest/internal/build/proc"

// Main lets this program guard the build steps and drivers that skewtest starts, so that
// none of them outlives its run even when the program itself is killed. Call it first thing
// in main, and in TestMain of a test binary that runs skewtest: skewtest starts this same
// program again as each child's guardian, and Main then does the guardian's work and exits,
// never returning. In any other process it returns at once.
//
// Without Main, skewtest starts children directly in their own process group and says
// once on stderr that a killed program may leave them running.
func Main() { proc.Main() }
