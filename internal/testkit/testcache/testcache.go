// Package testcache gives skewtest's specs one build cache to share. Builds are content
// addressed, so every spec that writes the reference history needs the same builds: with one
// cache, a tag builds once per make test instead of once per spec file.
//
// make test sets $SKEWTEST_TEST_CACHE to one directory for every suite it runs, in parallel
// or not. A spec that needs a cold cache (a build it watches, an interrupt during a build,
// a refusal before any build) keeps a directory of its own.
package testcache

import "os"

// Env names the directory every suite of one make test shares.
const Env = "SKEWTEST_TEST_CACHE"

// Dir returns $SKEWTEST_TEST_CACHE when it is set, else fallback's directory (a temporary
// directory of the suite's own).
func Dir(fallback func() string) string {
	if dir := os.Getenv(Env); dir != "" {
		return dir
	}
	return fallback()
}
