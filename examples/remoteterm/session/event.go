package session

// Event names a peer reports to its Observer. The driver forwards each one as a `session`
// observation ({"event": Name, ...Data}).
const (
	// Client events.
	EventServerInfo            = "server-info"             // serverInfo accepted: the ServerInfo fields
	EventResponse              = "response"                // requestId, command, version, output
	EventRPCError              = "rpc-error"               // requestId, code, message, details?
	EventServerRequest         = "server-request"          // serverRequestId, kind, payload
	EventServerResponseSent    = "server-response-sent"    // serverRequestId, payload
	EventServerRequestResolved = "server-request-resolved" // serverRequestId
	EventRoundProgress         = "round-progress"          // reviewId, seq?, progress (the event), merged (false: a duplicate seq), state
	EventPresenceSent          = "presence-sent"           // focus, visibility, deviceClass, gated
	EventPresenceSkipped       = "presence-skipped"        // reason: the daemon did not advertise attention
	EventTransportClosed       = "transport-closed"        // code, reason
	EventAttention             = "attention-event"         // raised?, cleared?
	EventError                 = "error"                   // message: an internal error of the peer

	// Daemon events.
	EventHelloReceived          = "hello-received"           // clientId, clientType, protocolVersion, minCompatibleProtocolVersion
	EventRequestReceived        = "request-received"         // requestId, command, version
	EventPresenceReceived       = "presence-received"        // focus, visibility, deviceClass
	EventServerResponseReceived = "server-response-received" // serverRequestId, payload

	// Both.
	// EventRefusedPeer: the peer is outside this side's protocol window, or the peer said
	// this side is outside its window. by (host | client) refused, outside (host | client)
	// is the side whose version falls outside the window, reason, local and peer windows.
	EventRefusedPeer = "refused-peer"
	// EventRefused: this side's decoder refused a frame: direction, type, length, reason,
	// silent (always false: a session peer answers or reports every refusal).
	EventRefused = "refused"
)

// Event is one thing a session peer's real code did.
type Event struct {
	Name string
	Data map[string]any
}

// Observer receives a peer's events, in order, from the peer's own goroutines. It must not
// block for long and must not call back into the peer.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }

type discard struct{}

func (discard) Observe(Event) {}

func observerOr(o Observer) Observer {
	if o == nil {
		return discard{}
	}
	return o
}
