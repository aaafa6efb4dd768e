package wire

// WebSocket paths of the terminal channel, from the host's base URL.
const (
	// PathMultiplex is the desktop multiplexer's path: many streams per connection.
	PathMultiplex = "/terminal.multiplex"
	// PathSubscribe is the legacy path the mobile client uses.
	PathSubscribe = "/terminal.subscribe"
)
