package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

var (
	// ErrNoHandshake: the call needs serverInfo, and the handshake has not completed.
	ErrNoHandshake = errors.New("session handshake not completed")
	// ErrUnsupported: this build has no such behaviour (a release that predates it).
	ErrUnsupported = errors.New("not in this build")
)

// RefusedPeerError is a handshake that ended in a refusal: By ("host" or "client") refused
// because Outside ("host" or "client") is outside the other's protocol window.
type RefusedPeerError struct {
	By, Outside string
	Reason      string
}

func (e *RefusedPeerError) Error() string {
	return fmt.Sprintf("%s refused the session: %s", e.By, e.Reason)
}

// Is matches ErrIncompatibleProtocol.
func (e *RefusedPeerError) Is(target error) bool { return target == ErrIncompatibleProtocol }

// ClientOptions configure a Client. The zero value is usable.
type ClientOptions struct {
	ClientID    string // hello.clientId; default "remoteterm"
	ClientType  string // hello.clientType; default "desktop"
	DeviceClass string // presence.deviceClass when the caller leaves it empty; default ClientType
	Observer    Observer
	// AnswerServerRequest, when set, answers every serverRequest at once with the payload it
	// returns (as a user accepting the prompt). Otherwise AnswerServerRequest does.
	AnswerServerRequest func(ServerRequest) json.RawMessage
	Dialer              *websocket.Dialer // default websocket.DefaultDialer
	WriteTimeout        time.Duration     // default DefaultWriteTimeout
	CloseTimeout        time.Duration     // default DefaultCloseTimeout
}

type sentRequest struct {
	command string
	version int
	reply   chan callResult // nil when nobody waits
}

type callResult struct {
	output json.RawMessage
	err    error
}

// Client is a session client of one release, connected to a daemon. One goroutine reads the
// connection; Close stops it and waits for it.
type Client struct {
	rel  release.Features
	opts ClientOptions
	obs  Observer
	reg  Registry
	ws   *websocket.Conn
	wmu  sync.Mutex

	done      chan struct{} // closed when the reader has exited
	handshake chan error    // the reader's verdict on the hello, buffered
	closeOnce sync.Once

	mu         sync.Mutex
	helloSent  bool
	settled    bool // the handshake has its verdict
	info       *ServerInfo
	nextID     int
	sent       map[string]sentRequest
	serverAsks map[string]ServerRequest // serverRequests not yet resolved
	rounds     map[string]*RoundLog
	closeErr   error
}

// Dial connects a client of rel to the daemon at url (ws://host:port/session), naming rel in
// the handshake's User-Agent (UserAgent). It does not send hello: Hello does.
func Dial(ctx context.Context, url string, rel release.Features, opts ClientOptions) (*Client, error) {
	if opts.ClientID == "" {
		opts.ClientID = "remoteterm"
	}
	if opts.ClientType == "" {
		opts.ClientType = "desktop"
	}
	if opts.DeviceClass == "" {
		opts.DeviceClass = opts.ClientType
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	dialer := opts.Dialer
	if dialer == nil {
		dialer = websocket.DefaultDialer
	}
	ws, resp, err := dialer.DialContext(ctx, url, http.Header{"User-Agent": {UserAgent(rel.Version)}})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("dial session %s: %w", url, err)
	}
	c := &Client{
		rel:        rel,
		opts:       opts,
		obs:        observerOr(opts.Observer),
		reg:        Commands(),
		ws:         ws,
		done:       make(chan struct{}),
		handshake:  make(chan error, 1),
		sent:       map[string]sentRequest{},
		serverAsks: map[string]ServerRequest{},
		rounds:     map[string]*RoundLog{},
	}
	go c.read()
	return c, nil
}

// Window is the client's protocol window.
func (c *Client) Window() Window { return WindowOf(c.rel) }

// Done is closed when the connection is over.
func (c *Client) Done() <-chan struct{} { return c.done }

// Hello sends hello and waits for serverInfo. A daemon outside the client's window, or one
// that refuses the client, ends the session: the error is a *RefusedPeerError (errors.Is
// ErrIncompatibleProtocol) and the connection closes.
func (c *Client) Hello(ctx context.Context) (ServerInfo, error) {
	c.mu.Lock()
	if c.helloSent {
		c.mu.Unlock()
		return ServerInfo{}, errors.New("session hello: already sent")
	}
	c.helloSent = true
	c.mu.Unlock()
	w := c.Window()
	h := Hello{
		ClientID: c.opts.ClientID, ClientType: c.opts.ClientType,
		ProtocolVersion: w.Version, MinCompatibleProtocolVersion: w.MinCompatible,
		Commands: c.rel.CommandVersions,
	}
	if err := c.write(ctx, h); err != nil {
		return ServerInfo{}, fmt.Errorf("session hello: %w", err)
	}
	var err error
	select {
	case err = <-c.handshake:
	case <-c.done:
		// The reader gives its verdict before it exits; prefer it to the bare close.
		select {
		case err = <-c.handshake:
		default:
			err = c.closed()
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return ServerInfo{}, fmt.Errorf("session hello: %w", err)
	}
	info, _ := c.ServerInfo()
	return info, nil
}

// ServerInfo is the daemon's serverInfo, once the handshake completed.
func (c *Client) ServerInfo() (ServerInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info == nil {
		return ServerInfo{}, false
	}
	return *c.info, true
}

// Send writes a request and returns its id and the version it was encoded with. Version 0
// chooses the highest version both sides speak; an explicit version must be spoken by
// both. Nothing is written when there is no such version. The outcome arrives as a
// response or rpc-error event.
func (c *Client) Send(ctx context.Context, command string, version int, input json.RawMessage) (string, int, error) {
	return c.send(ctx, command, version, input, nil)
}

// Call is Send that waits for the outcome: the response's output, or an *RPCError.
func (c *Client) Call(ctx context.Context, command string, version int, input json.RawMessage) (json.RawMessage, error) {
	reply := make(chan callResult, 1)
	id, _, err := c.send(ctx, command, version, input, reply)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-reply:
		return r.output, r.err
	case <-c.done:
		select {
		case r := <-reply:
			return r.output, r.err
		default:
		}
		return nil, fmt.Errorf("call %s %s: %w", command, id, c.closed())
	case <-ctx.Done():
		c.mu.Lock()
		if s, ok := c.sent[id]; ok {
			s.reply = nil
			c.sent[id] = s
		}
		c.mu.Unlock()
		return nil, fmt.Errorf("call %s %s: %w", command, id, ctx.Err())
	}
}

func (c *Client) send(ctx context.Context, command string, version int, input json.RawMessage, reply chan callResult) (string, int, error) {
	info, ok := c.ServerInfo()
	if !ok {
		return "", 0, fmt.Errorf("call %s: %w", command, ErrNoHandshake)
	}
	own, peer := c.rel.CommandVersions[command], info.Commands[command]
	if version == 0 {
		v, err := ChooseVersion(command, own, peer)
		if err != nil {
			return "", 0, fmt.Errorf("call %s: %w", command, err)
		}
		version = v
	} else if !slices.Contains(own, version) || !slices.Contains(peer, version) {
		return "", 0, fmt.Errorf("call %s version %d: we speak %v, the daemon %v: %w",
			command, version, sortedVersions(own), sortedVersions(peer), ErrNoSharedVersion)
	}
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("r%d", c.nextID)
	c.mu.Unlock()
	b, err := EncodeRequest(Request{RequestID: id, Command: command, Version: version, Input: input}, c.rel.CommandVersions)
	if err != nil {
		return "", 0, err
	}
	c.mu.Lock()
	c.sent[id] = sentRequest{command: command, version: version, reply: reply}
	c.mu.Unlock()
	if err := writeFrame(ctx, c.ws, &c.wmu, c.opts.WriteTimeout, b); err != nil {
		c.mu.Lock()
		delete(c.sent, id)
		c.mu.Unlock()
		return "", 0, fmt.Errorf("call %s %s: %w", command, id, err)
	}
	return id, version, nil
}

// SendProbe writes a request for any command at any version (1 when none is given) without
// consulting either side's command table: how a driver learns what a daemon answers to a
// command it does not register. The product's own calls go through Send.
func (c *Client) SendProbe(ctx context.Context, command string, version int, input json.RawMessage) (string, error) {
	if _, ok := c.ServerInfo(); !ok {
		return "", fmt.Errorf("probe %s: %w", command, ErrNoHandshake)
	}
	if version == 0 {
		version = 1
	}
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("r%d", c.nextID)
	c.sent[id] = sentRequest{command: command, version: version}
	c.mu.Unlock()
	b, err := Encode(Request{RequestID: id, Command: command, Version: version, Input: input})
	if err != nil {
		return "", err
	}
	if err := writeFrame(ctx, c.ws, &c.wmu, c.opts.WriteTimeout, b); err != nil {
		return "", fmt.Errorf("probe %s %s: %w", command, id, err)
	}
	return id, nil
}

// Presence reports the client's attention to the daemon. The client sends it only when the
// daemon advertises attention, and reports sent=false otherwise, except in a release with
// presenceUngated (v1.4.165), which sends it regardless: the bug.
func (c *Client) Presence(ctx context.Context, p Presence) (sent bool, err error) {
	if !c.rel.Attention && !c.rel.PresenceUngated {
		return false, fmt.Errorf("presence: %w", ErrUnsupported)
	}
	info, ok := c.ServerInfo()
	if !ok {
		return false, fmt.Errorf("presence: %w", ErrNoHandshake)
	}
	advertised := info.Features.Has(FeatureAttention)
	if !advertised && !c.rel.PresenceUngated {
		c.obs.Observe(Event{Name: EventPresenceSkipped, Data: map[string]any{
			"reason": "the daemon does not advertise " + FeatureAttention,
		}})
		return false, nil
	}
	if p.DeviceClass == "" {
		p.DeviceClass = c.opts.DeviceClass
	}
	if err := c.write(ctx, p); err != nil {
		return false, fmt.Errorf("presence: %w", err)
	}
	c.obs.Observe(Event{Name: EventPresenceSent, Data: map[string]any{
		"focus": p.Focus, "visibility": p.Visibility, "deviceClass": p.DeviceClass, "advertised": advertised,
	}})
	return true, nil
}

// AnswerServerRequest sends the serverResponse to a serverRequest that is still open.
func (c *Client) AnswerServerRequest(ctx context.Context, id string, payload json.RawMessage) error {
	info, ok := c.ServerInfo()
	if !ok {
		return fmt.Errorf("answer serverRequest %s: %w", id, ErrNoHandshake)
	}
	if !info.Features.Has(FeatureServerRequests) {
		return fmt.Errorf("answer serverRequest %s: %s: %w", id, FeatureServerRequests, ErrNotAdvertised)
	}
	c.mu.Lock()
	_, open := c.serverAsks[id]
	c.mu.Unlock()
	if !open {
		return fmt.Errorf("answer serverRequest %s: not open", id)
	}
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	if err := c.write(ctx, ServerResponse{ServerRequestID: id, Payload: payload}); err != nil {
		return fmt.Errorf("answer serverRequest %s: %w", id, err)
	}
	c.obs.Observe(Event{Name: EventServerResponseSent, Data: map[string]any{"serverRequestId": id, "payload": payload}})
	return nil
}

// OpenServerRequests are the serverRequests neither answered nor resolved yet, in id order.
func (c *Client) OpenServerRequests() []ServerRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]ServerRequest, 0, len(c.serverAsks))
	for _, id := range sortedKeys(c.serverAsks) {
		out = append(out, c.serverAsks[id])
	}
	return out
}

// RoundState is the merged progress of one review.
func (c *Client) RoundState(reviewID string) RoundState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.rounds[reviewID]; l != nil {
		return l.State()
	}
	return (&RoundLog{}).State()
}

// Close ends the session: a close frame, a bounded wait for the daemon's answer, and the
// reader goroutine has exited when Close returns. Close is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		startClose(c.ws, &c.wmu, websocket.CloseNormalClosure, "", c.opts.CloseTimeout)
		<-c.done
		c.ws.Close()
	})
	return nil
}

func (c *Client) write(ctx context.Context, f Frame) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	return writeFrame(ctx, c.ws, &c.wmu, c.opts.WriteTimeout, b)
}

func (c *Client) closed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr != nil {
		return c.closeErr
	}
	return ErrClosed
}
