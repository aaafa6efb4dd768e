package host

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creachadair/jrpc2/channel"

	"github.com/skewtest/skewtest/examples/notesd/api"
)

// KeepaliveEvery is how often a host with the Keepalive switch sends notes.keepalive to a
// session that negotiated it.
const KeepaliveEvery = 100 * time.Millisecond

// keepaliveChannel is the connection's channel with the Keepalive switch. It tells the
// keepalive loop when to start: at the first record sent once the session accepted the
// capability (arm), which is session.open's reply, so no keepalive reaches the client
// before the reply that negotiated it. jrpc2 sends replies through the channel, so this is
// the one place that sees the reply go out.
type keepaliveChannel struct {
	channel.Channel
	armed   atomic.Bool
	once    sync.Once
	replied chan struct{} // closed once a record went out after arm
}

func newKeepaliveChannel(ch channel.Channel) *keepaliveChannel {
	return &keepaliveChannel{Channel: ch, replied: make(chan struct{})}
}

// arm says the session accepted the keepalive capability: its reply is about to go out.
func (c *keepaliveChannel) arm() { c.armed.Store(true) }

// Send writes the record and, once armed, lets the keepalive loop start.
func (c *keepaliveChannel) Send(record []byte) error {
	err := c.Channel.Send(record)
	if err == nil && c.armed.Load() {
		c.once.Do(func() { close(c.replied) })
	}
	return err
}

// sendKeepalives sends notes.keepalive, without params, every KeepaliveEvery from the
// session.open reply that negotiated it until done is closed or a send fails (the
// connection ended).
func (c *conn) sendKeepalives(k *keepaliveChannel, done <-chan struct{}) {
	select {
	case <-k.replied:
	case <-done:
		return
	}
	t := time.NewTicker(KeepaliveEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if err := c.srv.Notify(context.Background(), api.Keepalive, nil); err != nil {
			c.h.logf("session %s: keepalive: %v", c.id, err)
			return
		}
	}
}
