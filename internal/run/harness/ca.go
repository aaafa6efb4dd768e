package harness

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// CA is a run's throwaway certificate authority for TLS transports (a tap.CA): made the
// first time the run needs it, in a directory of its own (skewtest-tls-* under
// os.TempDir), and removed by Close when the run ends. Every build of a run carries the
// same one (Build.CA), so whichever driver starts first, every driver after it is handed
// its files (driverSpec): the host that serves with them, the clients that must trust it,
// a pool's processes among them.
//
// It is made before the first driver of a plan with a TLS host starts (Execute, Pool.Warm),
// or when any driver of a build whose own host serves TLS starts (a pairing, a hello probe,
// a decode driver, a pool's process). Whoever made the builds owns it: matrix.Run,
// campaign.Run and replay.Run close it on their way out, once every driver has stopped.
type CA struct {
	mu     sync.Mutex
	ca     *tap.CA
	dir    string
	err    error
	closed bool
}

// NewCA returns a run's CA, made on first need; nothing is written before then.
func NewCA() *CA { return &CA{} }

// errNoCA is a TLS transport of a build that carries no CA: the program that made the
// build (a Build value of its own) did not give it its run's.
var errNoCA = errors.New("tls: the build carries no certificate authority (harness.Build.CA): give the builds of a run one harness.NewCA, closed when the run ends")

// errCAClosed is a CA needed after its run ended.
var errCAClosed = errors.New("tls: the run's certificate authority was closed: its run has ended")

// get returns the CA, making it first if need be. One that cannot be made says why each
// time it is asked.
func (c *CA) get() (*tap.CA, error) {
	if c == nil {
		return nil, errNoCA
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errCAClosed
	}
	if c.ca == nil && c.err == nil {
		dir, err := os.MkdirTemp("", "skewtest-tls-")
		if err == nil {
			c.ca, err = tap.NewCA(dir)
			c.dir = dir
		}
		c.err = err
	}
	return c.ca, c.err
}

// env is the environment that hands the CA's files to a driver: none before the run
// needed one.
func (c *CA) env() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ca == nil || c.closed {
		return nil
	}
	return c.ca.Env()
}

// Close removes the CA's files, once no driver of the run needs them; a run that never
// needed one has none to remove. Closing again does nothing, and a CA closed is not made
// again. A nil CA has nothing to close.
func (c *CA) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	dir := c.dir
	c.ca, c.dir = nil, ""
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the run's certificate authority: %w", err)
	}
	return nil
}

// prepareTLS makes the builds' CA before a plan with a TLS host starts a driver, so every
// client and pooled process of the plan is handed its files whichever pairing comes first.
// A CA that cannot be made is reported by each pairing that needs it (tapOptions).
func prepareTLS(plan []Pairing) {
	for _, p := range plan {
		if p.Host.transport().TLS() {
			_, _ = p.Host.CA.get() // the run's: every build of the plan carries it
		}
	}
}

// tlsEnv is the environment that hands the run's CA to a driver of b: none before a plan
// or a build needed one. A build whose own host serves TLS makes it, whichever way its
// drivers are started (a pairing, a hello probe, a decode driver); a pairing starts its
// host before its client, so the client has it too.
func tlsEnv(b *Build) []string {
	if b.transport().TLS() {
		_, _ = b.CA.get()
	}
	return b.CA.env()
}
