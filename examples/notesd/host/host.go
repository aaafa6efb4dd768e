// Package host is the notesd daemon: notes served as JSON-RPC 2.0 (github.com/creachadair/
// jrpc2), one jrpc2 server per connection over one shared store, over WebSocket at /rpc
// (ServeHTTP, package wsrpc: one record per message) or over a TCP or TLS byte stream
// (Serve and ServeConn, package linerpc: one record per line). A connection opens a session
// first (session.open: protocol window and capabilities), then reads and writes notes; a
// session that negotiated push is sent notes.changed whenever someone else writes a note.
// Every transport gets the same connection, sessions, push and observations.
package host

import (
	"net"
	"net/http"
	"sync"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// Observations the host makes (see the driver protocol's observe messages).
const (
	// ObsSessionOpened: a session opened, {session, client, version, declared, accepted}.
	ObsSessionOpened = "session-opened"
	// ObsRefusedPeer: the host refused a client outside its protocol window,
	// {by, reason, local, peer}.
	ObsRefusedPeer = "refused-peer"
	// ObsStored: a note was written, {id, text, tags, rev, session} (session "" for the
	// host itself).
	ObsStored = "stored"
	// ObsPushed: the host sent notes.changed, {session, id, rev, text?}.
	ObsPushed = "pushed"
	// ObsRefused: the host's decoder refused a frame, {direction, type, reason, silent}: a
	// method it does not serve (answered with MethodNotFound, or dropped in silence for a
	// notification).
	ObsRefused = "refused"
	// ObsAcked: a client acknowledged a notification (notes.ack), {session, of, seq}.
	ObsAcked = "acked"
)

// Host serves notes. Create it with New, mount it (it is an http.Handler for /rpc) or hand
// it a listener (Serve) or connections (ServeConn), and Close it to end every connection.
type Host struct {
	features release.Features
	store    *store.Store
	obs      observe.Sink
	logf     func(format string, args ...any)
	upgrader websocket.Upgrader

	mu        sync.Mutex
	conns     map[*conn]struct{}
	pushTo    map[*conn]struct{}        // connections that are sent notes.changed
	accepted  map[net.Conn]struct{}     // ServeConn's connections still in their TLS handshake
	listeners map[net.Listener]struct{} // Serve's
	nextID    int
	closed    bool
	sessions  sync.WaitGroup // every ServeHTTP and ServeConn, from when it is admitted
	accepting sync.WaitGroup // every Serve
}

// Option changes a Host.
type Option func(*Host)

// WithLog sends the host's log lines (and jrpc2's) to logf instead of discarding them.
func WithLog(logf func(format string, args ...any)) Option {
	return func(h *Host) { h.logf = logf }
}

// New returns a host for the release f, serving st and reporting to obs.
func New(f release.Features, st *store.Store, obs observe.Sink, opts ...Option) *Host {
	h := &Host{
		features:  f,
		store:     st,
		obs:       obs,
		logf:      func(string, ...any) {},
		conns:     map[*conn]struct{}{},
		pushTo:    map[*conn]struct{}{},
		accepted:  map[net.Conn]struct{}{},
		listeners: map[net.Listener]struct{}{},
	}
	h.upgrader.EnableCompression = f.Compress
	for _, o := range opts {
		o(h)
	}
	return h
}

// ServeHTTP upgrades a request for /rpc to a WebSocket and serves JSON-RPC on it until the
// peer goes away or the host closes.
func (h *Host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != wsrpc.Path {
		http.NotFound(w, r)
		return
	}
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered the request
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = ws.Close()
		return
	}
	h.sessions.Add(1)
	defer h.sessions.Done()
	c := h.addLocked(wsrpc.New(ws))
	h.mu.Unlock()
	h.run(c)
}

// addLocked makes the next connection, on ch, and counts it. The caller holds h.mu.
func (h *Host) addLocked(ch channel.Channel) *conn {
	h.nextID++
	c := newConn(h, ch, h.nextID)
	h.conns[c] = struct{}{}
	return c
}

// run serves a connection until it ends, then forgets it.
func (h *Host) run(c *conn) {
	c.serve() // blocks until the connection ends
	h.mu.Lock()
	delete(h.conns, c)
	delete(h.pushTo, c)
	h.mu.Unlock()
}

// Edit writes a note on the host itself (another device, the host's own editor): every
// session that negotiated push is told.
func (h *Host) Edit(id, text string, tags []string) store.Note {
	if !h.features.Tags {
		tags = nil
	}
	return h.write(id, text, tags, nil)
}

// write stores a revision, reports it and pushes it to every connection that is sent
// notes.changed, except the one that wrote it.
func (h *Host) write(id, text string, tags []string, origin *conn) store.Note {
	session := ""
	if origin != nil {
		session = origin.id
	}
	n := h.store.Put(id, text, tags, session)
	h.obs.Observe(ObsStored, storedData(n))
	h.mu.Lock()
	to := make([]*conn, 0, len(h.pushTo))
	for c := range h.pushTo {
		if c != origin {
			to = append(to, c)
		}
	}
	h.mu.Unlock()
	for _, c := range to {
		c.push(n)
	}
	return n
}

// pushes starts sending notes.changed to c.
func (h *Host) pushes(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pushTo[c] = struct{}{}
}

// Close stops every Serve (closing its listener), ends every connection and waits for
// their servers to stop and for every Serve to return.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	listeners := make([]net.Listener, 0, len(h.listeners))
	for ln := range h.listeners {
		listeners = append(listeners, ln)
	}
	handshaking := make([]net.Conn, 0, len(h.accepted))
	for nc := range h.accepted {
		handshaking = append(handshaking, nc)
	}
	h.mu.Unlock()
	for _, ln := range listeners {
		_ = ln.Close()
	}
	for _, nc := range handshaking {
		_ = nc.Close()
	}
	for _, c := range conns {
		c.stop()
	}
	h.accepting.Wait()
	h.sessions.Wait()
}

// jrpcLog adapts a log function to jrpc2's Logger.
func jrpcLog(logf func(string, ...any)) jrpc2.Logger {
	return func(text string) { logf("jrpc2: %s", text) }
}

// errNoSession is the reply to a method called before session.open.
var errNoSession = &jrpc2.Error{Code: api.CodeNoSession, Message: "open a session first (session.open)"}
