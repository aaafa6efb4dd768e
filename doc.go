// Package skewtest runs skewtest from Go: the compatibility matrix of a product's builds
// (Run), a fuzz campaign (Fuzz), an exploration of its drivers' vocabulary (Explore), the
// change that made a pairing fail (Bisect), and a saved run's frames replayed into every
// build's decoders (Replay).
//
// Each function takes a config value and returns the run as a *results.Run, the value
// results.json serializes. A compatibility problem is a finding in that run, never an
// error: run.ExitCode() is the command's exit code (0 compatible, 1 findings, 3 a pairing
// could not be run). An error means the run could not be made; IsUsage tells a mistake in
// the config or the subject's files (the command's exit 2) from a broken tool (exit 3).
// A cancelled context stops every driver; the reports are written, marked interrupted.
//
// This package, skewtesting (the matrix inside go test), driverkit (writing drivers) and
// results (reading results.json) are skewtest's whole public API; the rest of the module
// is internal. docs/library.md is the guide around the examples here.
package skewtest
