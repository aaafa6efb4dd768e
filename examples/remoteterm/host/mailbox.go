package host

import "sync"

// event is what a terminal tells one of a connection's streams.
type event struct {
	stream   uint32
	emission *Emission
	resize   *resizeEvent
	cwd      *string // the process changed directory
}

type resizeEvent struct {
	cols, rows         int
	prevCols, prevRows int // the size before the resize
	raw, display       uint64
	cwd                string
}

// mailbox is an unbounded, ordered queue of events with a wake-up channel, so a terminal
// never blocks on a connection.
type mailbox struct {
	mu     sync.Mutex
	items  []event
	notify chan struct{}
}

func newMailbox() *mailbox {
	return &mailbox{notify: make(chan struct{}, 1)}
}

func (m *mailbox) post(e event) {
	m.mu.Lock()
	m.items = append(m.items, e)
	m.mu.Unlock()
	select {
	case m.notify <- struct{}{}:
	default:
	}
}

func (m *mailbox) drain() []event {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.items
	m.items = nil
	return out
}
