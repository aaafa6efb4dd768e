// Package testlabels declares the Ginkgo labels skewtest's specs use, once, so CI can filter
// on them (ginkgo --label-filter, or go test ./... -ginkgo.label-filter=...).
package testlabels

// Labels.
const (
	// E2E marks specs that build the reference subject's history and run real pairings.
	E2E = "e2e"
	// Docker marks specs that need a Docker engine; they skip, saying why, without one.
	Docker = "docker"
	// Slow marks specs that take more than a few seconds.
	Slow = "slow"
	// Browser marks specs that drive a headless Chromium (chromium or chromium-browser on
	// PATH, or $SKEWTEST_CHROMIUM); they skip, saying why, without one.
	Browser = "browser"
	// Soak marks the long versions of specs whose short version make test runs: more cases,
	// more rounds. make soak runs them; make test leaves them out (LABELS=!soak).
	Soak = "soak"
)
