package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gorilla/websocket"
)

// read is the client's only reader. It exits when the connection ends and then fails every
// call still waiting.
func (c *Client) read() {
	defer close(c.done)
	for {
		mt, b, err := c.ws.ReadMessage()
		if err != nil {
			c.transportClosed(err)
			return
		}
		f, err := ReadFromHost(c.rel, mt != websocket.TextMessage, b)
		if err != nil {
			var r *RefusalError
			errors.As(err, &r)
			c.refuse(len(b), r.Type, r.Reason)
			continue
		}
		spec, _ := lookupFrame(f.FrameType())
		if spec.Feature != "" {
			if info, ok := c.ServerInfo(); !ok || !info.Features.Has(spec.Feature) {
				c.refuse(len(b), spec.Type, fmt.Sprintf("frame type %q needs feature %s, which the daemon did not advertise", spec.Type, spec.Feature))
				continue
			}
		}
		switch f := f.(type) {
		case ServerInfo:
			c.onServerInfo(f, len(b))
		case Response:
			c.onResponse(f, len(b))
		case RPCErrorFrame:
			c.onRPCError(f)
		case ServerRequest:
			c.onServerRequest(f)
		case ServerRequestResolved:
			c.mu.Lock()
			delete(c.serverAsks, f.ServerRequestID)
			c.mu.Unlock()
			c.obs.Observe(Event{Name: EventServerRequestResolved, Data: map[string]any{"serverRequestId": f.ServerRequestID}})
		case RoundProgress:
			c.onRoundProgress(f)
		case AttentionEvent:
			c.obs.Observe(Event{Name: EventAttention, Data: map[string]any{"raised": f.Raised, "cleared": f.Cleared}})
		}
	}
}

// onServerInfo runs the client's half of the symmetric window check.
func (c *Client) onServerInfo(info ServerInfo, length int) {
	c.mu.Lock()
	pending := c.helloSent && !c.settled
	c.mu.Unlock()
	if !pending {
		c.refuse(length, TypeServerInfo, "serverInfo without a pending hello")
		return
	}
	peer := Window{Version: info.ProtocolVersion, MinCompatible: info.MinCompatibleProtocolVersion}
	comp := CheckProtocolCompatibility(c.Window(), peer)
	if !comp.Compatible {
		outside := roleClient
		if comp.Outside == Remote {
			outside = roleHost
		}
		reason := comp.Explain(roleClient, roleHost)
		c.obs.Observe(Event{Name: EventRefusedPeer, Data: map[string]any{
			"by": roleClient, "outside": outside, "reason": reason, "local": comp.Local, "peer": comp.Remote,
			"appVersion": info.AppVersion,
		}})
		c.settle(&RefusedPeerError{By: roleClient, Outside: outside, Reason: reason})
		startClose(c.ws, &c.wmu, CloseIncompatibleProtocol, string(CodeIncompatibleProtocol), c.opts.CloseTimeout)
		return
	}
	if info.Features == nil {
		info.Features = Features{}
	}
	c.mu.Lock()
	c.info = &info
	c.mu.Unlock()
	c.obs.Observe(Event{Name: EventServerInfo, Data: map[string]any{
		"appVersion": info.AppVersion, "protocolVersion": info.ProtocolVersion,
		"minCompatibleProtocolVersion": info.MinCompatibleProtocolVersion,
		"features":                     info.Features, "commands": info.Commands,
	}})
	c.settle(nil)
}

// onResponse checks the output against the client's own schema for the version it sent.
func (c *Client) onResponse(r Response, length int) {
	c.mu.Lock()
	s, ok := c.sent[r.RequestID]
	delete(c.sent, r.RequestID)
	c.mu.Unlock()
	if !ok {
		c.refuse(length, TypeResponse, fmt.Sprintf("response to unknown request %q", r.RequestID))
		return
	}
	cv, _ := c.reg.Lookup(s.command, s.version)
	if err := cv.Output.Check(r.Output); err != nil {
		reason := fmt.Sprintf("%s v%d output: %v", s.command, s.version, err)
		c.refuse(length, TypeResponse, reason)
		s.deliver(callResult{err: fmt.Errorf("request %s: %w: %s", r.RequestID, ErrInvalidFrame, reason)})
		return
	}
	c.obs.Observe(Event{Name: EventResponse, Data: map[string]any{
		"requestId": r.RequestID, "command": s.command, "version": s.version, "output": r.Output,
	}})
	s.deliver(callResult{output: r.Output})
}

func (c *Client) onRPCError(f RPCErrorFrame) {
	data := map[string]any{"requestId": f.RequestID, "code": string(f.Code), "message": f.Message}
	if len(f.Details) > 0 {
		data["details"] = f.Details
	}
	c.mu.Lock()
	s, ok := c.sent[f.RequestID]
	delete(c.sent, f.RequestID)
	handshaking := f.RequestID == HelloRequestID && c.helloSent && !c.settled
	c.mu.Unlock()
	if ok {
		data["command"], data["version"] = s.command, s.version
	}
	c.obs.Observe(Event{Name: EventRPCError, Data: data})
	switch {
	case handshaking && f.Code == CodeIncompatibleProtocol:
		c.refusedByHost(f)
	case handshaking:
		c.settle(rpcErrorOf(f))
	case ok:
		s.deliver(callResult{err: rpcErrorOf(f)})
	}
}

// refusedByHost: the daemon found the client outside its window. The client reports the
// refusal too, with the daemon's window when the rpcError carries it, and closes.
func (c *Client) refusedByHost(f RPCErrorFrame) {
	var d struct {
		Window
		Outside string `json:"outside"`
	}
	_ = json.Unmarshal(f.Details, &d) // tolerant: older daemons may send no details
	data := map[string]any{"by": roleHost, "outside": d.Outside, "reason": f.Message, "local": c.Window()}
	if d.Version != 0 {
		data["peer"] = d.Window
	}
	c.obs.Observe(Event{Name: EventRefusedPeer, Data: data})
	c.settle(&RefusedPeerError{By: roleHost, Outside: d.Outside, Reason: f.Message})
	startClose(c.ws, &c.wmu, CloseIncompatibleProtocol, string(CodeIncompatibleProtocol), c.opts.CloseTimeout)
}

func (c *Client) onServerRequest(r ServerRequest) {
	c.mu.Lock()
	c.serverAsks[r.ServerRequestID] = r
	c.mu.Unlock()
	c.obs.Observe(Event{Name: EventServerRequest, Data: map[string]any{
		"serverRequestId": r.ServerRequestID, "kind": r.Kind, "payload": r.Payload,
	}})
	if c.opts.AnswerServerRequest == nil {
		return
	}
	payload := c.opts.AnswerServerRequest(r)
	// The reader owns this write; the write timeout bounds it.
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.WriteTimeout)
	defer cancel()
	if err := c.AnswerServerRequest(ctx, r.ServerRequestID, payload); err != nil {
		c.obs.Observe(Event{Name: EventError, Data: map[string]any{"message": err.Error()}})
	}
}

func (c *Client) onRoundProgress(f RoundProgress) {
	c.mu.Lock()
	l := c.rounds[f.ReviewID]
	if l == nil {
		l = &RoundLog{}
		c.rounds[f.ReviewID] = l
	}
	merged := false
	seq := f.Seq
	if c.rel.RoundProgressArrivalOrder {
		seq = nil // the negative control: events folded as they arrive, seq ignored
	}
	// The negative controls: a client that keeps only a review's first event, and one that
	// drops an event with a key its schema does not define.
	dropped := c.rel.ProgressUnknownFieldDropped && ProgressEventSchema().CheckStrict(f.Event) != nil
	if (!c.rel.RoundProgressKeepsFirst || l.Len() == 0) && !dropped {
		merged = l.Add(seq, f.Event)
	}
	st := l.State()
	c.mu.Unlock()
	// phase is the merged state's phase, at the top level so a barrier can wait for it.
	data := map[string]any{"reviewId": f.ReviewID, "progress": f.Event, "state": st, "merged": merged, "phase": st.Phase}
	if f.Seq != nil {
		data["seq"] = *f.Seq
	}
	c.obs.Observe(Event{Name: EventRoundProgress, Data: data})
}

// refuse reports a frame the client's decoder refused. There is no client-to-daemon error
// frame, so the report is the driver's observation.
func (c *Client) refuse(length int, typ Type, reason string) {
	c.obs.Observe(Event{Name: EventRefused, Data: map[string]any{
		"direction": string(HostToClient), "type": string(typ), "length": length, "reason": reason, "silent": false,
	}})
}

// transportClosed records why the connection ended and fails whoever still waits.
func (c *Client) transportClosed(err error) {
	code, reason := websocket.CloseAbnormalClosure, err.Error()
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		code, reason = ce.Code, ce.Text
	}
	closeErr := fmt.Errorf("%w (close %d %s)", ErrClosed, code, reason)
	c.mu.Lock()
	c.closeErr = closeErr
	waiting := c.sent
	c.sent = map[string]sentRequest{}
	c.mu.Unlock()
	for _, s := range waiting {
		s.deliver(callResult{err: closeErr})
	}
	c.obs.Observe(Event{Name: EventTransportClosed, Data: map[string]any{"code": code, "reason": reason}})
}

func (s sentRequest) deliver(r callResult) {
	if s.reply != nil {
		s.reply <- r // buffered, one result per request
	}
}

// settle gives Hello its verdict, once.
func (c *Client) settle(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled {
		return
	}
	c.settled = true
	c.handshake <- err // buffered for exactly this one verdict
}
