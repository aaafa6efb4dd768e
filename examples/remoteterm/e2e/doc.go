// Package e2e holds remoteterm's in-process end-to-end specs: a host and a client of
// chosen releases over a real WebSocket on loopback, and a check that the contract
// template describes what the code of every release in history.yaml actually speaks.
package e2e
