package session

import (
	"net/http"
	"strings"
)

// userAgentProduct is the product token of a session client's User-Agent.
const userAgentProduct = "remoteterm-session/"

// UserAgent is the User-Agent a session client of release version sends with its WebSocket
// handshake: "remoteterm-session/v1.4.165". No session frame carries the client's release
// (hello carries its protocol window); the daemon reads it only for the FlakyWithClient
// switch (clientRelease).
func UserAgent(version string) string { return userAgentProduct + version }

// clientRelease is the release a session client's handshake names in its User-Agent, or ""
// when it names none (a client that is not remoteterm's).
func clientRelease(r *http.Request) string {
	v, ok := strings.CutPrefix(r.Header.Get("User-Agent"), userAgentProduct)
	if !ok {
		return ""
	}
	return v
}
