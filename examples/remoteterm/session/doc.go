// Package session is remoteterm's session protocol: the JSON frames a session client and the
// session daemon exchange over one WebSocket, the protocol window both sides check, the
// command registry that validates every request and response, and the two peers themselves.
//
// The vocabulary follows the public Rennet session protocol: hello / serverInfo with a
// protocol window and an open feature record, request / response / rpcError, serverRequest /
// serverResponse / serverRequestResolved, presence and attentionEvent (feature attention),
// and roundProgress events merged by seq.
//
// Every difference between releases is decided by the release.Features value a Daemon or a
// Client is built with; nothing in this package reads the current release by itself.
//
// Inbound frames are parsed tolerantly: keys a frame does not define are ignored, so a peer
// can add optional fields without breaking an older receiver. DecodeStrict exists to prove
// that in tests and is never used on the wire.
package session
