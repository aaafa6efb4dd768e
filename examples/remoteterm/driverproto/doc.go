// Package driverproto is the plumbing of skewtest's driver protocol (version 1): a Writer
// that serializes every line a driver writes to stdout (hello, ready, results,
// observations), a Registry of actions by name, and Serve, which reads actions from stdin
// one line at a time, runs them and answers each with a result.
package driverproto
