package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// CloseIncompatibleProtocol is the WebSocket close code (application range) either peer
// closes with after refusing the other's protocol window.
const CloseIncompatibleProtocol = 4001

// Role names used in observations and messages.
const (
	roleHost   = "host"
	roleClient = "client"
)

// daemonConn is one session client of the daemon. Its serve loop is the only reader; writes
// are serialized by wmu, since serverRequests and progress events are written from the
// daemon's callers.
type daemonConn struct {
	d   *Daemon
	ws  *websocket.Conn
	wmu sync.Mutex

	helloed bool // guarded by d.mu: past the handshake, so broadcasts reach it
	// duplicate: the next response goes out twice (release.Features.FlakyWithClient; read
	// and written by serve's goroutine only).
	duplicate bool
	// unknown keeps the requestId of the first rpcError answering each unknown command
	// (release.Features.UnknownCommandErrorCached; serve's goroutine only).
	unknown map[string]string
}

func (c *daemonConn) serve(ctx context.Context) {
	for {
		mt, b, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		f, err := readFromClient(c.d.features, mt != websocket.TextMessage, b)
		if err != nil {
			var r *RefusalError
			errors.As(err, &r)
			c.refuse(ctx, len(b), r.Type, r.RequestID, r.Code, r.Reason)
			continue
		}
		c.d.mu.Lock()
		helloed := c.helloed
		c.d.mu.Unlock()
		if h, ok := f.(Hello); ok {
			if !c.hello(ctx, h, helloed) {
				return
			}
			continue
		}
		if !helloed {
			requestID := ""
			if r, ok := f.(Request); ok {
				requestID = r.RequestID
			}
			c.fail(ctx, requestID, CodeHelloRequired, fmt.Sprintf("%s before hello", f.FrameType()), nil)
			continue
		}
		switch f := f.(type) {
		case Request:
			c.request(ctx, f)
		case Presence:
			data := map[string]any{"focus": f.Focus, "visibility": f.Visibility, "deviceClass": f.DeviceClass}
			if f.FocusedReview != "" {
				data["focusedReview"] = f.FocusedReview
			}
			c.d.obs.Observe(Event{Name: EventPresenceReceived, Data: data})
		case ServerResponse:
			c.serverResponse(ctx, f)
		}
	}
}

// hello runs the handshake. It reports false when the connection is over: the client is
// outside the daemon's window and was refused.
func (c *daemonConn) hello(ctx context.Context, h Hello, again bool) bool {
	if again {
		c.fail(ctx, HelloRequestID, CodeInvalidInput, "hello already received", nil)
		return true
	}
	peer := Window{Version: h.ProtocolVersion, MinCompatible: h.MinCompatibleProtocolVersion}
	c.d.obs.Observe(Event{Name: EventHelloReceived, Data: map[string]any{
		"clientId": h.ClientID, "clientType": h.ClientType,
		"protocolVersion": h.ProtocolVersion, "minCompatibleProtocolVersion": h.MinCompatibleProtocolVersion,
	}})
	comp := CheckProtocolCompatibility(c.d.Window(), peer)
	if !comp.Compatible {
		outside := roleHost
		if comp.Outside == Remote {
			outside = roleClient
		}
		reason := comp.Explain(roleHost, roleClient)
		c.d.obs.Observe(Event{Name: EventRefusedPeer, Data: map[string]any{
			"by": roleHost, "outside": outside, "reason": reason, "local": comp.Local, "peer": comp.Remote,
		}})
		local := c.d.Window()
		c.fail(ctx, HelloRequestID, CodeIncompatibleProtocol, reason, map[string]any{
			"protocolVersion": local.Version, "minCompatibleProtocolVersion": local.MinCompatible, "outside": outside,
		})
		c.closeWith(CloseIncompatibleProtocol, string(CodeIncompatibleProtocol))
		c.drain()
		return false
	}
	info := ServerInfo{
		AppVersion:                   c.d.rel.Version,
		ProtocolVersion:              c.d.rel.SessionProtocol,
		MinCompatibleProtocolVersion: c.d.rel.SessionMinCompatible,
		Features:                     c.d.features,
		Commands:                     c.d.spoken,
	}
	b, err := Encode(info)
	if err != nil {
		return false
	}
	// Join the broadcasts and write serverInfo as one step under the write lock: a client
	// that has serverInfo may rely on every later broadcast, and no broadcast may precede it.
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.d.mu.Lock()
	c.helloed = true
	c.d.mu.Unlock()
	return writeLocked(ctx, c.ws, c.d.opts.WriteTimeout, b) == nil
}

// request validates and runs one command. Every refusal is an rpcError, never silence.
func (c *daemonConn) request(ctx context.Context, r Request) {
	c.d.obs.Observe(Event{Name: EventRequestReceived, Data: map[string]any{
		"requestId": r.RequestID, "command": r.Command, "version": r.Version,
	}})
	versions, ok := c.d.spoken[r.Command]
	if !ok {
		requestID := r.RequestID
		switch {
		case c.d.rel.RPCErrorWrongRequestID:
			requestID = r.Command // the negative control: the reply names the command, not the request
		case c.d.rel.RPCErrorWithoutRequestID:
			requestID = "" // the negative control: the reply is tied to no request
		case c.d.rel.UnknownCommandErrorCached:
			// The negative control: the error answering this command before is sent again,
			// with the requestId of the call it answered then.
			if first, ok := c.unknown[r.Command]; ok {
				requestID = first
			} else {
				if c.unknown == nil {
					c.unknown = map[string]string{}
				}
				c.unknown[r.Command] = requestID
			}
		}
		c.fail(ctx, requestID, CodeUnknownCommand, fmt.Sprintf("unknown command %q", r.Command), nil)
		return
	}
	version := r.Version
	if version == 0 {
		if len(versions) != 1 {
			c.fail(ctx, r.RequestID, CodeInvalidInput,
				fmt.Sprintf("command %s speaks versions %v: %v", r.Command, sortedVersions(versions), ErrImplicitVersion),
				map[string]any{"supported": sortedVersions(versions)})
			return
		}
		version = versions[0]
	}
	spoken := slices.Contains(versions, version)
	if c.d.rel.OlderCommandVersionRefused && version < slices.Max(versions) {
		spoken = false // the negative control: a daemon that checks the version against its newest only
	}
	if !spoken {
		c.fail(ctx, r.RequestID, CodeUnsupportedVersion,
			fmt.Sprintf("command %s version %d is not spoken here (versions %v)", r.Command, version, sortedVersions(versions)),
			map[string]any{"supported": sortedVersions(versions)})
		return
	}
	cv, _ := c.d.reg.Lookup(r.Command, version)
	if err := cv.Input.Check(r.Input); err != nil {
		c.fail(ctx, r.RequestID, CodeInvalidInput, fmt.Sprintf("%s v%d input: %v", r.Command, version, err), nil)
		return
	}
	out, err := c.d.handle[commandKey{r.Command, version}](ctx, r.Input)
	if err != nil {
		c.fail(ctx, r.RequestID, CodeCommandFailed, err.Error(), nil)
		return
	}
	raw, err := json.Marshal(out)
	if err == nil {
		err = cv.Output.Check(raw)
	}
	if err != nil {
		c.fail(ctx, r.RequestID, CodeCommandFailed, fmt.Sprintf("%s v%d output: %v", r.Command, version, err), nil)
		return
	}
	resp := Response{RequestID: r.RequestID, Output: raw}
	_ = c.write(ctx, resp)
	if c.duplicate {
		c.duplicate = false
		_ = c.write(ctx, resp) // the negative control: one request answered twice
	}
}

func (c *daemonConn) serverResponse(ctx context.Context, r ServerResponse) {
	c.d.mu.Lock()
	pending := c.d.pending[r.ServerRequestID]
	delete(c.d.pending, r.ServerRequestID)
	c.d.mu.Unlock()
	if !pending {
		c.fail(ctx, "", CodeInvalidInput, fmt.Sprintf("serverResponse for unknown or resolved serverRequest %q", r.ServerRequestID),
			map[string]any{"serverRequestId": r.ServerRequestID})
		return
	}
	c.d.obs.Observe(Event{Name: EventServerResponseReceived, Data: map[string]any{
		"serverRequestId": r.ServerRequestID, "payload": r.Payload,
	}})
	_ = c.d.broadcast(ctx, ServerRequestResolved{ServerRequestID: r.ServerRequestID})
}

// refuse reports a frame the daemon's decoder refused and answers it with an rpcError.
func (c *daemonConn) refuse(ctx context.Context, length int, typ Type, requestID string, code Code, reason string) {
	c.d.obs.Observe(Event{Name: EventRefused, Data: map[string]any{
		"direction": string(ClientToHost), "type": string(typ), "length": length, "reason": reason, "silent": false,
	}})
	c.fail(ctx, requestID, code, reason, nil)
}

func (c *daemonConn) fail(ctx context.Context, requestID string, code Code, message string, details map[string]any) {
	f := RPCErrorFrame{RequestID: requestID, Code: code, Message: message}
	if details != nil {
		f.Details = mustJSON(details)
	}
	_ = c.write(ctx, f)
}

// write sends one frame within the write timeout (or ctx's deadline when sooner).
func (c *daemonConn) write(ctx context.Context, f Frame) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	return writeFrame(ctx, c.ws, &c.wmu, c.d.opts.WriteTimeout, b)
}

// closeWith starts the closing handshake and bounds the wait for the client's answer.
func (c *daemonConn) closeWith(code int, reason string) {
	startClose(c.ws, &c.wmu, code, reason, c.d.opts.CloseTimeout)
}

// drain reads until the client answers the close (or the close timeout passes).
func (c *daemonConn) drain() {
	for {
		if _, _, err := c.ws.ReadMessage(); err != nil {
			return
		}
	}
}

// writeFrame writes one text message under mu, with a deadline.
func writeFrame(ctx context.Context, ws *websocket.Conn, mu *sync.Mutex, timeout time.Duration, b []byte) error {
	mu.Lock()
	defer mu.Unlock()
	return writeLocked(ctx, ws, timeout, b)
}

// writeLocked is writeFrame for a caller that holds the write lock.
func writeLocked(ctx context.Context, ws *websocket.Conn, timeout time.Duration, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := ws.SetWriteDeadline(deadline); err != nil {
		return err
	}
	return ws.WriteMessage(websocket.TextMessage, b)
}

// startClose sends a close frame and makes the reader give up after timeout if the peer
// never answers it. The net.Conn deadline is safe to set while another goroutine reads.
func startClose(ws *websocket.Conn, mu *sync.Mutex, code int, reason string, timeout time.Duration) {
	mu.Lock()
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(timeout))
	mu.Unlock()
	_ = ws.UnderlyingConn().SetReadDeadline(time.Now().Add(timeout))
}
