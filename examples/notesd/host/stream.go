package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/skewtest/skewtest/examples/notesd/linerpc"
)

// handshakeTimeout bounds a TLS handshake of ServeConn, as the driver's http.Server bounds
// reading a WebSocket request's header.
const handshakeTimeout = 10 * time.Second

// Serve accepts connections on ln (a TCP listener, or a TLS one) and serves each on its own
// goroutine (ServeConn) until Close, which closes ln and ends them; it then returns nil.
// Any other error of Accept ends Serve with that error and ln closed, and leaves the
// connections it accepted to Close.
func (h *Host) Serve(ln net.Listener) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = ln.Close()
		return nil
	}
	h.listeners[ln] = struct{}{}
	h.accepting.Add(1)
	defer h.accepting.Done()
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.listeners, ln)
		h.mu.Unlock()
		_ = ln.Close()
	}()
	for {
		nc, err := ln.Accept()
		if err != nil {
			h.mu.Lock()
			closed := h.closed
			h.mu.Unlock()
			if closed && errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		if h.admit(nc) {
			go h.serveConn(nc)
		}
	}
}

// ServeConn serves JSON-RPC on one accepted connection, one record per line (package
// linerpc), until the peer goes away or the host closes: everything ServeHTTP does for a
// WebSocket (sessions, push, observations), over a byte stream. A *tls.Conn is handshaken
// first; a connection whose handshake fails is closed and never becomes a session.
func (h *Host) ServeConn(nc net.Conn) {
	if h.admit(nc) {
		h.serveConn(nc)
	}
}

// admit counts an accepted connection, so that Close closes it and waits for it; after
// Close it closes the connection instead and reports false.
func (h *Host) admit(nc net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = nc.Close()
		return false
	}
	h.accepted[nc] = struct{}{}
	h.sessions.Add(1)
	return true
}

// serveConn is ServeConn after admit.
func (h *Host) serveConn(nc net.Conn) {
	defer h.sessions.Done()
	err := handshake(nc)
	h.mu.Lock()
	delete(h.accepted, nc)
	if err != nil || h.closed {
		h.mu.Unlock()
		_ = nc.Close()
		if err != nil {
			h.logf("connection from %s: %v", nc.RemoteAddr(), err)
		}
		return
	}
	c := h.addLocked(linerpc.New(nc))
	h.mu.Unlock()
	h.run(c)
}

// handshake runs the TLS handshake of a *tls.Conn; any other connection has none.
func handshake(nc net.Conn) error {
	tc, ok := nc.(*tls.Conn)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("TLS handshake: %w", err)
	}
	return nil
}
