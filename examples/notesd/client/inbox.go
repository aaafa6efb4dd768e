package client

import (
	"sync"

	"github.com/creachadair/jrpc2"
)

// inbox hands a connection's notifications from jrpc2 to the client's own goroutine. jrpc2
// calls OnNotify with its client's lock held, so a handler that calls the host (a slim push
// fetches the note's text) must not run there: it would wait for a reply the client cannot
// deliver.
type inbox struct {
	handle func(*jrpc2.Request)

	mu    sync.Mutex
	items []*jrpc2.Request
	wake  chan struct{} // a buffered nudge: items were added or the inbox closed
	once  sync.Once
	done  chan struct{} // closed by close: handle what is left, then stop
	ended chan struct{} // closed when the goroutine has returned
}

func startInbox(handle func(*jrpc2.Request)) *inbox {
	in := &inbox{handle: handle, wake: make(chan struct{}, 1), done: make(chan struct{}), ended: make(chan struct{})}
	go in.run()
	return in
}

// put queues a notification; it never blocks.
func (in *inbox) put(r *jrpc2.Request) {
	in.mu.Lock()
	in.items = append(in.items, r)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// close stops the inbox after what it holds is handled, and waits for that.
func (in *inbox) close() {
	in.once.Do(func() { close(in.done) })
	<-in.ended
}

func (in *inbox) run() {
	defer close(in.ended)
	for {
		in.mu.Lock()
		items := in.items
		in.items = nil
		in.mu.Unlock()
		for _, r := range items {
			in.handle(r)
		}
		if len(items) > 0 {
			continue
		}
		select {
		case <-in.wake:
		case <-in.done:
			in.mu.Lock()
			left := len(in.items)
			in.mu.Unlock()
			if left == 0 {
				return
			}
		}
	}
}
