package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
)

// hostRole runs the product's real daemon on 127.0.0.1, port 0, on one transport: ws and
// wss serve host.Host over an http.Server (wss on a TLS listener), tcp and tls accept
// connections with host.Host's own accept loop (Serve: one record per line).
type hostRole struct {
	h         *host.Host
	transport string
	srv       *http.Server // ws and wss; nil for tcp and tls
	logf      func(string, ...any)
	served    chan error
}

// transports are the values of host --transport.
var transports = []string{driverkit.TransportWS, driverkit.TransportWSS, driverkit.TransportTCP, driverkit.TransportTLS}

func newHost(f release.Features, transport string, obs observe.Sink, logf func(string, ...any)) *hostRole {
	h := host.New(f, store.New(), obs, host.WithLog(logf))
	r := &hostRole{h: h, transport: transport, logf: logf}
	if transport == driverkit.TransportWS || transport == driverkit.TransportWSS {
		r.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	}
	return r
}

func (r *hostRole) register(d *driverkit.Driver) {
	// edit: a note written on the host itself (another device, the host's editor); every
	// session that negotiated push is told.
	d.Handle("edit", func(ctx context.Context, raw json.RawMessage) (any, error) {
		a, err := driverkit.Args[struct {
			ID   string   `json:"id"`
			Text string   `json:"content"`
			Tags []string `json:"tags"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if a.ID == "" {
			return nil, driverkit.BadArgs("edit needs an id")
		}
		n := r.h.Edit(a.ID, a.Text, a.Tags)
		return map[string]any{"id": n.ID, "rev": n.Rev, "cursor": n.Cursor}, nil
	})
	// Explore draws no edit (docs/explore.md): an edit reaches a client that did not
	// negotiate push only when the client pulls, which the contract's edits stream cannot
	// say, so every pairing with such a client would lose it.
}

// start listens on the role's transport (a TLS listener for wss and tls) and reports
// SCHEME://127.0.0.1:PORT.
func (r *hostRole) start(ctx context.Context) (string, error) {
	ln, url, err := driverkit.ListenOn(ctx, r.transport)
	if err != nil {
		return "", err
	}
	r.served = make(chan error, 1)
	if r.srv != nil {
		go func() { r.served <- r.srv.Serve(ln) }()
	} else {
		go func() { r.served <- r.h.Serve(ln) }()
	}
	return url, nil
}

func (r *hostRole) close() {
	if r.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.srv.Shutdown(ctx) // stops listening; hijacked WebSocket connections are the host's
	}
	r.h.Close() // for tcp and tls also closes the listener: Serve returns
	if r.served != nil {
		if err := <-r.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.logf("serving ended before the host closed: %v", err)
		}
	}
}
