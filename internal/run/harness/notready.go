package harness

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// notReadyError is a started driver that never got ready (readyError says why).
type notReadyError struct{ err error }

func (e *notReadyError) Error() string { return e.err.Error() }
func (e *notReadyError) Unwrap() error { return e.err }

// notReady holds, for one run, the drivers that failed to get ready: once a build's driver
// of a role (and client kind) did not, the run's other pairings that need it are errors at
// once, saying why, instead of each waiting for it again (a silent driver costs the ready
// timeout, 30s, every time). openSide is the one place that asks and tells it. Its methods
// do nothing on a nil *notReady (a pairing run alone).
type notReady struct {
	mu     sync.Mutex
	failed map[poolKey]notReadyFailure
}

// notReadyFailure is the first failure of a driver to get ready, and the pairing it was
// started for.
type notReadyFailure struct {
	pairing string // the pairing's directory name, which holds the driver's log
	err     error
}

// check returns the error of a pairing that needs b's driver in role (and kind) when that
// driver already failed to get ready in this run; nil otherwise.
func (n *notReady) check(b *Build, role transcript.Role, kind string) error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	f, ok := n.failed[poolKey{b, role, kind}]
	n.mu.Unlock()
	if !ok {
		return nil
	}
	return fmt.Errorf("%s driver not started again: it did not get ready for pairing %s of this run: %w",
		driverName(b, role, kind), f.pairing, f.err)
}

// record remembers err, when it says that b's driver in role (and kind) never got ready,
// for the pairing whose directory is dir. A driver stopped by the run's end (ctx done) did
// not fail.
func (n *notReady) record(ctx context.Context, b *Build, role transcript.Role, kind, dir string, err error) {
	if n == nil || ctx.Err() != nil || !errors.As(err, new(*notReadyError)) {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	k := poolKey{b, role, kind}
	if _, ok := n.failed[k]; ok {
		return // the first failure is the one to name
	}
	if n.failed == nil {
		n.failed = map[poolKey]notReadyFailure{}
	}
	n.failed[k] = notReadyFailure{pairing: filepath.Base(dir), err: err}
}
