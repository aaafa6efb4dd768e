//go:build !unix

package proc

// skewtest runs recipes with sh -c and handles processes the POSIX way; it builds on Linux
// and macOS (and other unix systems), not here. This line makes the build say so.
var _ = skewtest_runs_on_Linux_and_macOS_only
