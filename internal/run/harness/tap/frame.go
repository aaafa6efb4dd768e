package tap

import (
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Direction says which way a frame went.
type Direction string

const (
	ClientToHost Direction = contract.ClientToHost
	HostToClient Direction = contract.HostToClient
)

// ConnEvent.Event values.
const (
	// EventOpen: the client connected and the tap reached the host. Detail is the
	// subprotocol the host picked, and Deflate when the peers negotiated compression.
	EventOpen = "open"
	// EventClose: the connection ended, on both sides. Detail says how:
	// "client closed: 1000 bye", "host transport closed: unexpected EOF",
	// "dropped", "tap closed", ... Every open is followed by one close.
	EventClose = "close"
	// EventDrop: Drop cut the connection (a transport drop).
	EventDrop = "drop"
	// EventCloseWith: CloseWith ended the connection with a close frame to both sides;
	// Detail is its code and reason ("4000 maintenance").
	EventCloseWith = "close-with"
	// EventUpstreamError: the tap could not reach the host; Detail says
	// why. The client was closed with 1011 (internal error).
	EventUpstreamError = "upstream-error"
	// EventRefused: the tap refused a new connection while blocked (Block);
	// the client got HTTP 503 and never reached the host.
	EventRefused = "refused"
)

// Control frame kinds (Frame.Control). The tap forwards control frames end
// to end instead of answering them itself, so keepalives and closes between
// the two builds are what the builds really do.
const (
	ControlPing  = "ping"
	ControlPong  = "pong"
	ControlClose = "close" // Data is the close payload: a 2-byte code and the reason
)

// Frame is one WebSocket message the tap forwarded.
type Frame struct {
	Conn   int    // connection number, from 1, in order of arrival
	Path   string // the request path with its query, e.g. "/rpc?v=2"
	Dir    Direction
	Binary bool   // binary message; text otherwise
	Data   []byte // the message exactly; not to be modified
	// Control is set for a control frame (ControlPing, ControlPong or
	// ControlClose); Binary is then false and Data its payload.
	Control string
	// Original is the message as its sender wrote it, when a Rewriter replaced it (Data is
	// what was forwarded); nil otherwise. Rewrite says what the rewriter did.
	Original []byte
	Rewrite  string
	At       time.Time
	Seq      int // global order of frames across connections, from 1
}

// ConnEvent is something that happened to a connection.
type ConnEvent struct {
	Conn   int
	Path   string
	Event  string // EventOpen, EventClose, EventDrop, EventCloseWith, EventUpstreamError or EventRefused
	Detail string
	At     time.Time
}

// Recorder receives what the tap sees. The proxy calls it from its
// goroutines but never concurrently, in the order frames are forwarded.
// A frame is recorded before it is written on, so a reply is always
// recorded after what it replies to. A frame is forwarded only once Frame
// returns, so a recorder should be quick; it may keep Frame.Data. The
// recorder must not call back into the Proxy.
type Recorder interface {
	Frame(Frame)
	Conn(ConnEvent)
}
