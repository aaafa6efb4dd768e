package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

// Default timeouts of both peers.
const (
	DefaultWriteTimeout = 10 * time.Second
	// DefaultCloseTimeout bounds the wait for the peer's close frame after ours.
	DefaultCloseTimeout = 2 * time.Second
)

var (
	// ErrNoClient: the daemon has no client past the handshake to send to.
	ErrNoClient = errors.New("no session client connected")
	// ErrNotAdvertised: the frame belongs to a feature the peer does not advertise (or, on
	// the daemon, does not compose), so it is not sent.
	ErrNotAdvertised = errors.New("feature not advertised")
	// ErrClosed: the peer is closed.
	ErrClosed = errors.New("session closed")
)

// DaemonOptions configure a Daemon. The zero value is usable.
type DaemonOptions struct {
	Observer     Observer
	WriteTimeout time.Duration // default DefaultWriteTimeout
	CloseTimeout time.Duration // default DefaultCloseTimeout
}

// Daemon is the session daemon: an http.Handler the host mounts at /session. Each WebSocket
// connection is one session client.
type Daemon struct {
	rel      release.Features
	reg      Registry
	spoken   map[string][]int
	features Features
	handle   map[commandKey]handler
	obs      Observer
	opts     DaemonOptions
	upgrader websocket.Upgrader

	wg sync.WaitGroup // one per connection being served

	mu          sync.Mutex
	closed      bool
	conns       map[*daemonConn]struct{}
	pending     map[string]bool   // serverRequestIds not yet answered
	nextRequest int               // serverRequestId counter
	progressSeq map[string]uint64 // reviewId -> last seq of its progress log
	reviews     int               // reviewId counter
}

// NewDaemon builds the daemon of one release. It refuses a release that claims a command
// version the registry or the daemon does not implement.
func NewDaemon(rel release.Features, opts DaemonOptions) (*Daemon, error) {
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	d := &Daemon{
		rel:      rel,
		reg:      Commands(),
		spoken:   maps.Clone(rel.CommandVersions),
		features: advertisedFeatures(rel),
		obs:      observerOr(opts.Observer),
		opts:     opts,
		// Session clients are programs, not browsers; any origin may connect.
		upgrader:    websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
		conns:       map[*daemonConn]struct{}{},
		pending:     map[string]bool{},
		progressSeq: map[string]uint64{},
	}
	if d.spoken == nil {
		d.spoken = map[string][]int{}
	}
	if rel.ReviewComment {
		d.spoken["review.comment"] = []int{1}
	}
	d.handle = d.handlers()
	if err := d.reg.checkSpoken(d.spoken); err != nil {
		return nil, fmt.Errorf("session daemon %s: %w", rel.Version, err)
	}
	for _, id := range sortedKeys(d.spoken) {
		for _, v := range d.spoken[id] {
			if d.handle[commandKey{id, v}] == nil {
				return nil, fmt.Errorf("session daemon %s: command %s version %d: no handler", rel.Version, id, v)
			}
		}
	}
	return d, nil
}

// Window is the daemon's protocol window.
func (d *Daemon) Window() Window { return WindowOf(d.rel) }

// ServeHTTP upgrades the request to a WebSocket and serves one session client until either
// side closes or the daemon is closed.
func (d *Daemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		http.Error(w, "session daemon closed", http.StatusServiceUnavailable)
		return
	}
	d.wg.Add(1)
	d.mu.Unlock()
	defer d.wg.Done()

	ws, err := d.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader already answered the HTTP request
	}
	c := &daemonConn{d: d, ws: ws, duplicate: d.flakyTurn(r)}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		ws.Close()
		return
	}
	d.conns[c] = struct{}{}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.conns, c)
		d.mu.Unlock()
		ws.Close()
	}()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	c.serve(ctx)
}

// Close closes every connection and waits until none is being served. The daemon accepts
// no connection afterwards.
func (d *Daemon) Close() error {
	d.mu.Lock()
	d.closed = true
	conns := make([]*daemonConn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		c.closeWith(websocket.CloseGoingAway, "daemon closing")
	}
	d.wg.Wait()
	return nil
}

// SendServerRequest sends a serverRequest to every client past the handshake and returns its
// id. The first serverResponse resolves it: the daemon then sends serverRequestResolved to
// every client.
func (d *Daemon) SendServerRequest(ctx context.Context, kind string, payload json.RawMessage) (string, error) {
	if !d.features.Has(FeatureServerRequests) {
		return "", fmt.Errorf("send serverRequest: %s: %w", FeatureServerRequests, ErrNotAdvertised)
	}
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	if err := (Schema{}).Check(payload); err != nil {
		return "", fmt.Errorf("send serverRequest: payload: %w", err)
	}
	d.mu.Lock()
	d.nextRequest++
	id := fmt.Sprintf("sr-%d", d.nextRequest)
	d.pending[id] = true
	d.mu.Unlock()
	if err := d.broadcast(ctx, ServerRequest{ServerRequestID: id, Kind: kind, Payload: payload}); err != nil {
		d.mu.Lock()
		delete(d.pending, id)
		d.mu.Unlock()
		return "", fmt.Errorf("send serverRequest %s: %w", id, err)
	}
	return id, nil
}

// ProgressEvent is one event for SendRoundProgress. Seq 0 means the next position of the
// review's progress log; a non-zero Seq places the event explicitly (to replay a late or
// duplicated event).
type ProgressEvent struct {
	Seq   uint64          `json:"seq,omitempty"`
	Event json.RawMessage `json:"event"`
}

// SendRoundProgress sends a review's progress events, in the order given, to every client
// past the handshake. The frames carry seq only when the release does (roundProgressSeq).
func (d *Daemon) SendRoundProgress(ctx context.Context, reviewID string, events []ProgressEvent) error {
	if reviewID == "" {
		return fmt.Errorf("send roundProgress: empty reviewId")
	}
	schema := ProgressEventSchema()
	for i, e := range events {
		if err := schema.Check(e.Event); err != nil {
			return fmt.Errorf("send roundProgress %s: event %d: %w", reviewID, i, err)
		}
	}
	for _, e := range events {
		d.mu.Lock()
		seq := e.Seq
		if seq == 0 {
			seq = d.progressSeq[reviewID] + 1
		}
		d.progressSeq[reviewID] = max(d.progressSeq[reviewID], seq)
		d.mu.Unlock()
		f := RoundProgress{ReviewID: reviewID, Event: e.Event}
		if d.rel.RoundProgressSeq {
			f.Seq = &seq
		}
		if err := d.broadcast(ctx, f); err != nil {
			return fmt.Errorf("send roundProgress %s: %w", reviewID, err)
		}
	}
	return nil
}

// SendAttentionEvent raises and clears attention items on every client past the handshake.
// Only a daemon that composes attention (feature attention) publishes them.
func (d *Daemon) SendAttentionEvent(ctx context.Context, raised json.RawMessage, cleared []string) error {
	if !d.rel.Attention {
		return fmt.Errorf("send attentionEvent: this daemon does not compose attention")
	}
	if len(raised) == 0 && len(cleared) == 0 {
		return fmt.Errorf("send attentionEvent: nothing raised or cleared")
	}
	if err := d.broadcast(ctx, AttentionEvent{Raised: raised, Cleared: cleared}); err != nil {
		return fmt.Errorf("send attentionEvent: %w", err)
	}
	return nil
}

// broadcast writes f to every client past the handshake.
func (d *Daemon) broadcast(ctx context.Context, f Frame) error {
	d.mu.Lock()
	var targets []*daemonConn
	for c := range d.conns {
		if c.helloed {
			targets = append(targets, c)
		}
	}
	d.mu.Unlock()
	if len(targets) == 0 {
		return ErrNoClient
	}
	var errs []error
	for _, c := range targets {
		errs = append(errs, c.write(ctx, f))
	}
	return errors.Join(errs...)
}
