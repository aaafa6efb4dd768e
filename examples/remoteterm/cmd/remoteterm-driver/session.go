package main

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// sessionPath is where the host mounts the session daemon.
const sessionPath = "/session"

// sessionHelloTimeout bounds the hello action's wait for serverInfo or the refusal.
const sessionHelloTimeout = 10 * time.Second

// registerSession adds the session half of the driver to d.kit: on `client session` the
// actions hello, call, presence and answer-server-request; on `host` the actions
// server-request and round-progress, with the session daemon mounted at /session on d.mux
// (which the host serves once it reports ready). It is called once, before hello, for
// every role; d.role and d.kind say which. It returns a function that main calls before
// exiting to close whatever it opened, or nil.
func registerSession(d *driver) func() {
	switch {
	case d.role == driverkit.Host:
		return registerSessionHost(d)
	case d.kind == "session":
		return registerSessionClient(d)
	}
	return nil
}

// registerSessionHost mounts the daemon. A release table the daemon cannot serve is
// reported as an error observation and the host runs without /session.
func registerSessionHost(d *driver) func() {
	daemon, err := session.NewDaemon(d.features, session.DaemonOptions{Observer: sessionSink{d.out}})
	if err != nil {
		d.out.Observe(observe.Error{Message: err.Error()})
		d.logf("session: %v", err)
		return nil
	}
	d.mux.Handle(sessionPath, daemon)

	// attention-event {"raised":{…},"cleared":[…]}: raise or clear attention items on every
	// session client (attentionEvent), where the daemon composes attention.
	d.kit.Handle("attention-event", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Raised  json.RawMessage `json:"raised"`
			Cleared []string        `json:"cleared"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if err := daemon.SendAttentionEvent(ctx, args.Raised, args.Cleared); err != nil {
			return nil, err
		}
		return nil, nil
	})

	// server-request {"kind","payload"}: send a serverRequest to every session client.
	d.kit.Handle("server-request", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Kind    string          `json:"kind"`
			Payload json.RawMessage `json:"payload"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if args.Kind == "" {
			return nil, driverkit.BadArgs("server-request: kind is required")
		}
		id, err := daemon.SendServerRequest(ctx, args.Kind, args.Payload)
		if err != nil {
			return nil, err
		}
		return map[string]any{"serverRequestId": id}, nil
	})

	// round-progress {"review","events":[…]}: send the review's progress events in the order
	// given. An element is either the event itself ({"phase":"dispatched"}, seq assigned
	// from the review's log) or {"seq":n,"event":{…}} to place it explicitly, which replays
	// a late or duplicated event. Frames carry seq only in releases with roundProgressSeq.
	d.kit.Handle("round-progress", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Review string            `json:"review"`
			Events []json.RawMessage `json:"events"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if args.Review == "" {
			return nil, driverkit.BadArgs("round-progress: review is required")
		}
		events := make([]session.ProgressEvent, len(args.Events))
		for i, e := range args.Events {
			var wrapped session.ProgressEvent
			if err := json.Unmarshal(e, &wrapped); err != nil {
				return nil, driverkit.BadArgs("round-progress: events[%d]: %v", i, err)
			}
			if len(wrapped.Event) == 0 {
				wrapped = session.ProgressEvent{Event: e}
			}
			events[i] = wrapped
		}
		if err := daemon.SendRoundProgress(ctx, args.Review, events); err != nil {
			return nil, err
		}
		return map[string]any{"sent": len(events)}, nil
	})
	return func() { _ = daemon.Close() }
}

// sessionClientDriver runs the session client: it connects on hello.
type sessionClientDriver struct {
	d *driver

	mu     sync.Mutex
	c      *session.Client
	manual bool // answer serverRequests only through answer-server-request
}

func registerSessionClient(d *driver) func() {
	sc := &sessionClientDriver{d: d}
	d.kit.Handle("hello", sc.hello)
	d.kit.Handle("call", sc.call)
	d.kit.Handle("presence", sc.presence)
	d.kit.Handle("answer-server-request", sc.answerServerRequest)
	return sc.close
}

// hello {"serverRequests"?: "auto"|"manual"} connects to the host's /session, sends hello
// and reports server-info or the refusal. A refusal by either side is the real code doing
// its job, so the result is ok with accepted false; the refused-peer observations say who
// refused and why. serverRequests "auto" (the default) answers every serverRequest at
// once with {"accepted":true}; "manual" leaves them to answer-server-request.
func (sc *sessionClientDriver) hello(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		ServerRequests string `json:"serverRequests"`
	}](raw)
	if err != nil {
		return nil, err
	}
	switch args.ServerRequests {
	case "", "auto", "manual":
	default:
		return nil, driverkit.BadArgs("hello: serverRequests is auto or manual, not %q", args.ServerRequests)
	}
	if sc.d.hostURL == "" {
		return nil, driverkit.BadArgs("hello: %s is not set", sc.d.hostFrom)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.c != nil {
		return nil, errors.New("hello: the session is already open")
	}
	opts := session.ClientOptions{
		ClientID: "remoteterm-driver", ClientType: "session", DeviceClass: "desktop",
		Observer: sessionSink{sc.d.out},
	}
	sc.manual = args.ServerRequests == "manual"
	if !sc.manual {
		opts.AnswerServerRequest = func(session.ServerRequest) json.RawMessage {
			return json.RawMessage(`{"accepted":true}`)
		}
	}
	url := strings.TrimSuffix(sc.d.hostURL, "/") + sessionPath
	ctx, cancel := context.WithTimeout(ctx, sessionHelloTimeout)
	defer cancel()
	c, err := session.Dial(ctx, url, sc.d.features, opts)
	if err != nil {
		return nil, err
	}
	sc.c = c
	sc.d.out.Observe(observe.Connected{Path: sessionPath})
	info, err := c.Hello(ctx)
	var refused *session.RefusedPeerError
	switch {
	case errors.As(err, &refused):
		return map[string]any{"accepted": false, "refusedBy": refused.By, "outside": refused.Outside, "reason": refused.Reason}, nil
	case err != nil:
		_ = c.Close()
		sc.c = nil // no verdict: hello may be tried again
		return nil, err
	}
	return map[string]any{"accepted": true, "appVersion": info.AppVersion, "protocolVersion": info.ProtocolVersion,
		"features": info.Features, "commands": info.Commands}, nil
}

// call {"command","version"?,"input","probe"?} writes the request with the highest version
// both sides speak (or the explicit one, which both must speak). Nothing is sent when there
// is none: the action fails. With probe the request is written as given, unchecked, to see
// how the daemon answers a command it does not know. The response or rpcError arrives as an
// observation.
func (sc *sessionClientDriver) call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		Command string          `json:"command"`
		Version int             `json:"version"`
		Input   json.RawMessage `json:"input"`
		Probe   bool            `json:"probe"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.Command == "" {
		return nil, driverkit.BadArgs("call: command is required")
	}
	c, err := sc.client()
	if err != nil {
		return nil, err
	}
	if args.Probe {
		id, err := c.SendProbe(ctx, args.Command, args.Version, args.Input)
		if err != nil {
			return nil, err
		}
		return map[string]any{"requestId": id, "version": max(args.Version, 1)}, nil
	}
	id, version, err := c.Send(ctx, args.Command, args.Version, args.Input)
	if err != nil {
		return nil, err
	}
	return map[string]any{"requestId": id, "version": version}, nil
}

// presence {"focus","visibility","deviceClass"?} reports presence. The result says whether
// the client sent it: a client stays silent when the daemon does not advertise attention,
// except v1.4.165's, which sends it anyway. A build without presence answers
// unsupported-action.
func (sc *sessionClientDriver) presence(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[session.Presence](raw)
	if err != nil {
		return nil, err
	}
	if args.Visibility == "" {
		args.Visibility = "visible"
	}
	c, err := sc.client()
	if err != nil {
		return nil, err
	}
	sent, err := c.Presence(ctx, args)
	if errors.Is(err, session.ErrUnsupported) {
		return nil, driverkit.Unsupported("presence: no presence in %s", sc.d.features.Version)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"sent": sent}, nil
}

// answer-server-request {"serverRequestId"?,"payload"?} answers an open serverRequest (the
// oldest when no id is given). With hello's serverRequests "auto" nothing stays open.
func (sc *sessionClientDriver) answerServerRequest(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := driverkit.Args[struct {
		ServerRequestID string          `json:"serverRequestId"`
		Payload         json.RawMessage `json:"payload"`
	}](raw)
	if err != nil {
		return nil, err
	}
	c, err := sc.client()
	if err != nil {
		return nil, err
	}
	if args.ServerRequestID == "" {
		open := c.OpenServerRequests()
		if len(open) == 0 {
			return nil, errors.New("answer-server-request: no open serverRequest")
		}
		args.ServerRequestID = open[0].ServerRequestID
	}
	if err := c.AnswerServerRequest(ctx, args.ServerRequestID, args.Payload); err != nil {
		return nil, err
	}
	return map[string]any{"serverRequestId": args.ServerRequestID}, nil
}

func (sc *sessionClientDriver) client() (*session.Client, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.c == nil {
		return nil, errors.New("no session: send hello first")
	}
	return sc.c, nil
}

func (sc *sessionClientDriver) close() {
	sc.mu.Lock()
	c := sc.c
	sc.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// sessionSink turns the session package's events into driver observations: every event is
// a `session` observation ({"event": name, …}); a refused frame is also a `refused`
// observation and a closed connection a `transport-closed` one, as docs/driver-protocol.md
// lists them.
type sessionSink struct{ out observe.Sink }

func (s sessionSink) Observe(e session.Event) {
	data := make(sessionObservation, len(e.Data)+1)
	maps.Copy(data, e.Data)
	data["event"] = e.Name
	s.out.Observe(data)
	switch e.Name {
	case session.EventRefused:
		r := sessionRefused{Silent: false}
		r.Direction, _ = e.Data["direction"].(string)
		r.Type, _ = e.Data["type"].(string)
		r.Length, _ = e.Data["length"].(int)
		r.Reason, _ = e.Data["reason"].(string)
		s.out.Observe(r)
	case session.EventTransportClosed:
		var tc observe.TransportClosed
		tc.Code, _ = e.Data["code"].(int)
		tc.Reason, _ = e.Data["reason"].(string)
		s.out.Observe(tc)
	case session.EventError:
		msg, _ := e.Data["message"].(string)
		s.out.Observe(observe.Error{Message: msg})
	}
}

// sessionObservation is a `session` observation's data.
type sessionObservation map[string]any

func (sessionObservation) What() string { return "session" }

// sessionRefused is a `refused` observation for a JSON session frame: it names the frame
// by its type where a binary frame names its opcode.
type sessionRefused struct {
	Direction string `json:"direction"`
	Type      string `json:"type"`
	Length    int    `json:"length"`
	Reason    string `json:"reason"`
	Silent    bool   `json:"silent"`
}

func (sessionRefused) What() string { return "refused" }
