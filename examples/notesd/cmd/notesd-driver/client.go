package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/creachadair/jrpc2"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
)

// clientRole runs the product's real client library as one client kind.
type clientRole struct {
	c *client.Client
	f release.Features
}

func newClient(kind string, f release.Features, hostURL string, obs observe.Sink, logf func(string, ...any)) (*clientRole, error) {
	c, err := client.New(kind, f, hostURL, obs, client.WithLog(logf))
	if err != nil {
		return nil, err
	}
	return &clientRole{c: c, f: f}, nil
}

// noteArgs are a note as a journey gives it. Its text travels as "content": a journey's
// text= is skewtest's exact-bytes argument (base64 "bytes"), which a note's text is not.
type noteArgs struct {
	ID   string   `json:"id"`
	Text string   `json:"content"`
	Tags []string `json:"tags"`
}

func (r *clientRole) register(d *driverkit.Driver) {
	// open and reconnect connect, open a session and (sync) catch up and flush the queue.
	// A refusal (peers outside each other's protocol window) is still ok, with
	// accepted:false; the observations say who refused.
	connect := func(ctx context.Context, raw json.RawMessage) (any, error) {
		res, err := r.c.Connect(ctx)
		if refused, ok := errors.AsType[*client.RefusedError](err); ok {
			return map[string]any{"accepted": false, "by": refused.By, "reason": refused.Reason}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"accepted": true, "session": res.Session, "capabilities": res.Capabilities}, nil
	}
	d.Handle("open", connect)
	d.Handle("reconnect", connect)
	d.Handle("close", func(ctx context.Context, raw json.RawMessage) (any, error) {
		r.c.Close()
		return nil, nil
	})
	d.Handle("put", func(ctx context.Context, raw json.RawMessage) (any, error) {
		a, err := driverkit.Args[noteArgs](raw)
		if err != nil {
			return nil, err
		}
		return replied(r.c.Put(ctx, a.ID, a.Text, a.Tags))
	})
	d.Handle("import", func(ctx context.Context, raw json.RawMessage) (any, error) {
		a, err := driverkit.Args[struct {
			Notes []noteArgs `json:"notes"`
		}](raw)
		if err != nil {
			return nil, err
		}
		if len(a.Notes) == 0 {
			return nil, driverkit.BadArgs("import needs notes")
		}
		notes := make([]api.PutParams, len(a.Notes))
		for i, n := range a.Notes {
			notes[i] = api.PutParams{ID: n.ID, Text: n.Text, Tags: n.Tags}
		}
		res, err := r.c.Import(ctx, notes)
		return replied(map[string]any{"notes": res}, err)
	})
	d.Handle("get", func(ctx context.Context, raw json.RawMessage) (any, error) {
		a, err := driverkit.Args[struct {
			ID string `json:"id"`
		}](raw)
		if err != nil {
			return nil, err
		}
		return replied(r.c.Get(ctx, a.ID))
	})
	d.Handle("list", func(ctx context.Context, raw json.RawMessage) (any, error) {
		return replied(r.c.List(ctx))
	})
	d.Handle("pull", func(ctx context.Context, raw json.RawMessage) (any, error) {
		return replied(nil, r.c.Pull(ctx))
	})
	// What skewtest explore draws from (docs/explore.md): notes written and read by id, the
	// content feeding the contract's notes stream. Open, reconnect and close change what the
	// others act on, and import's batch is JSON: explore leaves them to journeys.
	id := driverkit.Param{Name: "id", Type: driverkit.Enum, Values: []string{"n1", "n2", "n3"}}
	d.Describe("put", id, driverkit.Param{Name: "content", Type: driverkit.Text, UTF8: true, Max: 1 << 16, Feeds: "notes"})
	d.Describe("get", id)
	d.Describe("list")
	if r.f.Search {
		d.Handle("search", func(ctx context.Context, raw json.RawMessage) (any, error) {
			a, err := driverkit.Args[struct {
				Query string `json:"query"`
			}](raw)
			if err != nil {
				return nil, err
			}
			return replied(r.c.Search(ctx, a.Query))
		})
	}
}

// replied makes an action's result: the host's error reply is a result too (the call was
// made; the rpc-error observation says how the host answered), anything else a failure.
func replied(data any, err error) (any, error) {
	if jerr, ok := errors.AsType[*jrpc2.Error](err); ok {
		return map[string]any{"error": map[string]any{"code": int(jerr.Code), "message": jerr.Message}}, nil
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

func (r *clientRole) start(ctx context.Context) (string, error) { return "", nil }

func (r *clientRole) close() { r.c.Close() }
