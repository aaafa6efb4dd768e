// Package drivertest holds what specs that start drivers share.
package drivertest

import (
	"sync"

	"github.com/skewtest/skewtest/internal/run/harness/driver"
)

// Messages collects what a driver said (Add is a driver.Start callback), safe for the
// reader goroutine.
type Messages struct {
	mu   sync.Mutex
	list []driver.Message
}

// Add keeps msg.
func (m *Messages) Add(msg driver.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.list = append(m.list, msg)
}

// All returns what was said so far, in order.
func (m *Messages) All() []driver.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]driver.Message(nil), m.list...)
}
