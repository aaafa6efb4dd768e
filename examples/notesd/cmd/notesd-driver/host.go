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

// hostRole runs the product's real daemon (host.Host over an http.Server) on 127.0.0.1,
// port 0.
type hostRole struct {
	h      *host.Host
	srv    *http.Server
	served chan error
}

func newHost(f release.Features, obs observe.Sink, logf func(string, ...any)) *hostRole {
	h := host.New(f, store.New(), obs, host.WithLog(logf))
	return &hostRole{h: h, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
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

func (r *hostRole) start(ctx context.Context) (string, error) {
	ln, url, err := driverkit.Listen(ctx)
	if err != nil {
		return "", err
	}
	r.served = make(chan error, 1)
	go func() { r.served <- r.srv.Serve(ln) }()
	return url, nil
}

func (r *hostRole) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx) // stops listening; hijacked WebSocket connections are the host's
	r.h.Close()
	if r.served != nil {
		if err := <-r.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // Serve ended on its own before Shutdown: nothing left to close
		}
	}
}
