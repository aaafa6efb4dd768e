// Package e2e holds notesd's in-process end-to-end specs: every pairing of its releases, run
// through a relay that records every WebSocket message, with each frame held to the
// receiving release's contract (contract.template.json, derived per release from
// history.yaml the way the history writer does). It has no code of its own.
package e2e
