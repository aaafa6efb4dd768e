package driverkit

import (
	"context"
	"sync"
)

// queue holds one instance's actions waiting their turn, without bound, so the reader
// never waits for a handler. One goroutine works through it.
type queue struct {
	mu     sync.Mutex
	items  []request
	head   int // items[:head] are taken
	closed bool
	wake   chan struct{} // a token when items or closed changed
}

func newQueue() *queue {
	return &queue{wake: make(chan struct{}, 1)}
}

func (q *queue) push(r request) {
	q.mu.Lock()
	q.items = append(q.items, r)
	q.mu.Unlock()
	q.signal()
}

// close ends the queue: pop returns what it holds, then false. Closing twice is harmless.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop returns the next action, or false once the queue is closed and empty or ctx is done.
func (q *queue) pop(ctx context.Context) (request, bool) {
	for {
		if ctx.Err() != nil {
			return request{}, false
		}
		q.mu.Lock()
		if q.head < len(q.items) {
			r := q.items[q.head]
			q.items[q.head] = request{} // let its args go
			q.head++
			if q.head == len(q.items) { // empty: reuse the array from its start
				q.items, q.head = q.items[:0], 0
			}
			q.mu.Unlock()
			return r, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return request{}, false
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
		}
	}
}
