package driverkit

import (
	"context"
	"fmt"
	"net"
)

// Listen listens on 127.0.0.1, port 0, and returns the listener with the base URL a host
// reports in ready, ws://127.0.0.1:PORT, the port read back from the listener. Hand the
// listener to the product's server (http.Server.Serve, or whatever the library takes); a
// library that insists on binding its own address must report the port it actually got.
func Listen(ctx context.Context) (net.Listener, string, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("listen on 127.0.0.1:0: %w", err)
	}
	return ln, "ws://" + ln.Addr().String(), nil
}
