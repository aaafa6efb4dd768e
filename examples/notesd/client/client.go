// Package client is notesd's client library, used by both of its client kinds:
//
//   - cli, the command-line tool: opens a session, reads and writes notes, imports many
//     notes in one JSON-RPC batch, searches (worktree);
//   - sync, the background sync agent: keeps a replica of every note, declares the push
//     capability and applies the notes.changed notifications it is sent, queues writes made
//     while offline and, when it reconnects, catches up (notes.changes since its cursor)
//     and flushes the queue as one batch.
//
// It speaks JSON-RPC 2.0 with github.com/creachadair/jrpc2 over the transport its host URL
// names: a WebSocket (ws://, wss://; package wsrpc) or a TCP or TLS byte stream carrying one
// record per line (tcp://, tls://; package linerpc). Everything above the channel is the
// same on every transport.
package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/linerpc"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// Client kinds.
const (
	KindCLI  = "cli"
	KindSync = "sync"
)

// Observations a client makes (see the driver protocol's observe messages).
const (
	ObsConnected       = "connected"        // {path}
	ObsOpened          = "opened"           // {session, server, protocol, minCompatible, declared, capabilities, cursor}
	ObsRefusedPeer     = "refused-peer"     // {by, reason, local, peer}
	ObsRPCError        = "rpc-error"        // {method, id?, code, message}
	ObsNote            = "note"             // {id, text, rev, tags}: what notes.get returned
	ObsListed          = "listed"           // {ids, cursor}
	ObsFound           = "found"            // {query, ids, via}
	ObsApplied         = "applied"          // {id, text, rev, via}: the sync replica took someone else's write
	ObsQueued          = "queued"           // {id, text}: a write made while offline
	ObsFlushed         = "flushed"          // {notes, batch}: the offline queue was sent
	ObsCaughtUp        = "caught-up"        // {changes, cursor}
	ObsTransportClosed = "transport-closed" // {reason}
	ObsRefused         = "refused"          // {direction, type, reason, silent}: a notification this build does not know
)

// ErrOffline is returned for a call made while the client has no connection (a sync
// client queues writes instead).
var ErrOffline = errors.New("not connected to the host")

// RefusedError says the peers are outside each other's protocol window; By is who refused.
type RefusedError struct {
	By     string // "host" or "client"
	Reason string
}

func (e *RefusedError) Error() string { return "refused by the " + e.By + ": " + e.Reason }

// Client is one client of a notesd host. It is safe for concurrent use.
type Client struct {
	kind     string
	features release.Features
	base     string // the host's base URL: ws://, wss://, tcp:// or tls://host:port
	obs      observe.Sink
	logf     func(format string, args ...any)

	mu   sync.Mutex
	conn *connection // nil while offline
	// lostConns are connections the network closed, whose goroutines Close still waits for.
	lostConns []*connection
	cursor    int64 // sync: the last change it has seen
	replica   map[string]api.Note
	queue     []api.PutParams // sync: writes made while offline, in order
	accepted  []string
}

// connection is one connection (a WebSocket, or a TCP or TLS stream) and its jrpc2 client.
type connection struct {
	ch    channel.Channel // wsrpc's or linerpc's (behind a replyReader with DropPushInCall)
	rpc   *jrpc2.Client
	inbox *inbox
	// waiting counts the calls (call, batch) that wait for their reply.
	waiting atomic.Int64
}

// close ends the connection and waits for its notification handler.
func (conn *connection) close() {
	_ = conn.rpc.Close()
	_ = conn.ch.Close()
	conn.inbox.close()
}

// Option changes a Client.
type Option func(*Client)

// WithLog sends the client's log lines (and jrpc2's) to logf instead of discarding them.
func WithLog(logf func(format string, args ...any)) Option {
	return func(c *Client) { c.logf = logf }
}

// New returns a client of the given kind for release f. base is the host's base URL:
// ws://127.0.0.1:PORT or wss://…, and the client connects to base + /rpc; or tcp://… or
// tls://…, and it connects to that address. Connect dials it (and says so of a scheme it
// does not know).
func New(kind string, f release.Features, base string, obs observe.Sink, opts ...Option) (*Client, error) {
	if kind != KindCLI && kind != KindSync {
		return nil, fmt.Errorf("client kind %q: want %s or %s", kind, KindCLI, KindSync)
	}
	c := &Client{kind: kind, features: f, base: strings.TrimRight(base, "/"), obs: obs,
		logf: func(string, ...any) {}, replica: map[string]api.Note{}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Declares lists the capabilities this build's client of this kind declares.
func (c *Client) Declares() []string {
	caps := []string{}
	if c.kind == KindSync && c.features.Push {
		caps = append(caps, api.CapPush)
		if c.features.SlimPushNegotiated {
			caps = append(caps, api.CapSlimPush)
		}
	}
	if c.features.Keepalive {
		caps = append(caps, api.CapKeepalive)
	}
	return caps
}

// Accepted returns the capabilities the host accepted when the session opened.
func (c *Client) Accepted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.accepted)
}

// Connect dials the host, opens a session and, for a sync client, catches up and flushes
// what it queued while offline. A host outside this build's protocol window (or one that
// refuses this build) ends with a *RefusedError after the connection is closed.
func (c *Client) Connect(ctx context.Context) (api.OpenResult, error) {
	c.Close()
	ch, err := c.dial(ctx)
	if err != nil {
		return api.OpenResult{}, err
	}
	conn := &connection{ch: ch, inbox: startInbox(c.onNotify)}
	if c.kind == KindSync && c.features.DropPushInCall {
		conn.ch = &replyReader{Channel: ch, waiting: &conn.waiting, logf: c.logf}
	}
	conn.rpc = jrpc2.NewClient(conn.ch, &jrpc2.ClientOptions{
		Logger:   func(text string) { c.logf("jrpc2: %s", text) },
		OnNotify: conn.inbox.put,
		OnStop: func(_ *jrpc2.Client, err error) {
			c.lost(conn, err)
		},
	})
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	c.obs.Observe(ObsConnected, map[string]any{"path": wsrpc.Path})

	res, err := c.open(ctx, conn)
	if err != nil {
		c.Close()
		return res, err
	}
	if c.kind == KindSync {
		if err := c.catchUp(ctx, conn); err != nil {
			return res, err
		}
		if err := c.flush(ctx, conn); err != nil {
			return res, err
		}
	}
	return res, nil
}

// dialTimeout bounds dialing a tcp:// or tls:// host, TLS handshake included, as gorilla's
// default dialer bounds a WebSocket's handshake.
const dialTimeout = 45 * time.Second

// dial connects to the host by the scheme of its URL: ws:// and wss:// with gorilla's
// dialer (wss:// trusting skewtest's authority, driverkit.ClientTLS), tcp:// and tls://
// with driverkit.Dial, one record per line.
func (c *Client) dial(ctx context.Context) (channel.Channel, error) {
	u, err := url.Parse(c.base)
	if err != nil {
		return nil, fmt.Errorf("host URL %q: %w", c.base, err)
	}
	switch u.Scheme {
	case driverkit.TransportWS, driverkit.TransportWSS:
		dialer := *websocket.DefaultDialer
		dialer.EnableCompression = c.features.Compress
		if u.Scheme == driverkit.TransportWSS {
			if dialer.TLSClientConfig, err = driverkit.ClientTLS(); err != nil {
				return nil, fmt.Errorf("dial %s: %w", c.base+wsrpc.Path, err)
			}
		}
		ws, _, err := dialer.DialContext(ctx, c.base+wsrpc.Path, http.Header{})
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", c.base+wsrpc.Path, err)
		}
		return wsrpc.New(ws), nil
	case driverkit.TransportTCP, driverkit.TransportTLS:
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		nc, err := driverkit.Dial(ctx, c.base)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", c.base, err)
		}
		return linerpc.New(nc), nil
	}
	return nil, fmt.Errorf("host URL %q: want ws://, wss://, tcp:// or tls://", c.base)
}

func (c *Client) open(ctx context.Context, conn *connection) (api.OpenResult, error) {
	version, minimum := c.features.Window()
	declared := c.Declares()
	var res api.OpenResult
	err := conn.call(ctx, api.Open, api.OpenParams{
		Client: c.kind, Version: c.features.Version, Protocol: version, MinCompatible: minimum,
		Capabilities: declared,
	}, &res)
	local := api.Incompatible{Protocol: version, MinCompatible: minimum}
	var jerr *jrpc2.Error
	switch {
	case errors.As(err, &jerr) && jerr.Code == api.CodeIncompatible:
		var peer api.Incompatible
		_ = jsonUnmarshal(jerr.Data, &peer) // tolerant: the reason is in the message
		c.obs.Observe(ObsRefusedPeer, map[string]any{"by": "host", "reason": jerr.Message, "local": local, "peer": peer})
		return res, &RefusedError{By: "host", Reason: jerr.Message}
	case err != nil:
		c.rpcError(api.Open, err)
		return res, fmt.Errorf("%s: %w", api.Open, err)
	}
	peer := api.Incompatible{Protocol: max(res.Protocol, 1), MinCompatible: max(res.MinCompatible, 1)}
	if peer.Protocol < minimum || version < peer.MinCompatible {
		reason := fmt.Sprintf("host protocol %d (minimum %d) is outside client protocol %d (minimum %d)",
			peer.Protocol, peer.MinCompatible, version, minimum)
		c.obs.Observe(ObsRefusedPeer, map[string]any{"by": "client", "reason": reason, "local": local, "peer": peer})
		return res, &RefusedError{By: "client", Reason: reason}
	}
	if res.Capabilities == nil {
		res.Capabilities = []string{}
	}
	c.mu.Lock()
	c.accepted = res.Capabilities
	c.mu.Unlock()
	c.obs.Observe(ObsOpened, map[string]any{
		"session": res.Session, "server": res.Server, "protocol": res.Protocol, "minCompatible": res.MinCompatible,
		"declared": declared, "capabilities": res.Capabilities, "cursor": res.Cursor,
	})
	return res, nil
}

// lost is called by jrpc2 when a connection's client stops: the host went away, the network
// dropped, or Close.
func (c *Client) lost(conn *connection, err error) {
	c.mu.Lock()
	current := c.conn == conn
	if current {
		c.conn = nil
		c.lostConns = append(c.lostConns, conn)
	}
	c.mu.Unlock()
	if !current {
		return // closed on purpose, already forgotten
	}
	reason := "closed"
	if err != nil {
		reason = err.Error()
	}
	c.obs.Observe(ObsTransportClosed, map[string]any{"reason": reason})
}

// Close closes the connection, if any, and waits for everything the client started. The
// client can Connect again.
func (c *Client) Close() {
	c.mu.Lock()
	conns := c.lostConns
	if c.conn != nil {
		conns = append(conns, c.conn)
	}
	c.conn, c.lostConns = nil, nil
	c.mu.Unlock()
	for _, conn := range conns {
		conn.close()
	}
}

// current returns the live connection, or ErrOffline.
func (c *Client) current() (*connection, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.conn.rpc.IsStopped() {
		return nil, ErrOffline
	}
	return c.conn, nil
}

// rpcError reports an error reply (or a failed call) as an observation.
func (c *Client) rpcError(method string, err error) {
	data := map[string]any{"method": method, "message": err.Error()}
	var jerr *jrpc2.Error
	if errors.As(err, &jerr) {
		data["code"], data["message"] = int(jerr.Code), jerr.Message
	}
	c.obs.Observe(ObsRPCError, data)
}
