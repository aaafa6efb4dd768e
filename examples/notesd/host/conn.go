package host

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/store"
)

// conn is one client connection: its jrpc2 server and, once opened, its session.
type conn struct {
	h       *Host
	ch      channel.Channel
	id      string // the session id it gets when it opens
	srv     *jrpc2.Server
	methods handler.Map
	// keepalive is the channel as the Keepalive switch wraps it (nil without the switch).
	keepalive *keepaliveChannel

	mu       sync.Mutex
	open     bool
	accepted []string // capabilities accepted in session.open
}

// newConn makes connection number n, on ch (wsrpc's or linerpc's).
func newConn(h *Host, ch channel.Channel, n int) *conn {
	c := &conn{h: h, ch: ch, id: "s" + strconv.Itoa(n)}
	if h.features.NoticeAfterReply {
		c.ch = &noticeChannel{Channel: ch}
	}
	if h.features.Keepalive {
		c.keepalive = newKeepaliveChannel(c.ch)
		c.ch = c.keepalive
	}
	c.methods = handler.Map{}
	for name, m := range methods(h.features) {
		c.methods[name] = m.serve(c)
	}
	f := h.features
	c.srv = jrpc2.NewServer(c, &jrpc2.ServerOptions{
		Logger:    jrpcLog(h.logf),
		AllowPush: f.Push || f.PushUngated || f.Keepalive,
	})
	return c
}

// serve runs the connection's server, and its keepalives with the Keepalive switch, until
// the channel ends.
func (c *conn) serve() {
	c.srv.Start(c.ch)
	if f := c.h.features; f.PushUngated {
		// The negative control: push to this connection whether or not it asked.
		c.h.pushes(c)
	}
	done := make(chan struct{})
	var keepalives sync.WaitGroup
	if c.keepalive != nil {
		keepalives.Add(1)
		go func() {
			defer keepalives.Done()
			c.sendKeepalives(c.keepalive, done)
		}()
	}
	err := c.srv.Wait()
	close(done)
	c.h.logf("session %s: server stopped: %v", c.id, err)
	_ = c.ch.Close()
	keepalives.Wait()
}

// stop ends the connection from the host's side: it closes the channel, and the server's
// read loop, seeing the end, stops the server. Stopping it from here as well (srv.Stop)
// races with that loop in jrpc2 (v1.3.x): a malformed record read just before the stop is
// answered on a channel Stop has already cleared, a nil dereference that crashed the
// host's specs when a TLS client's handshake bytes reached a TCP host as lines.
func (c *conn) stop() {
	_ = c.ch.Close()
}

// Assign is the connection's jrpc2.Assigner: the methods this release serves. A method it
// does not serve is reported as refused: jrpc2 answers a call with MethodNotFound and
// drops a notification without a word.
func (c *conn) Assign(ctx context.Context, method string) jrpc2.Handler {
	if m := c.methods[method]; m != nil {
		return m
	}
	req := jrpc2.InboundRequest(ctx)
	silent := req != nil && req.IsNotification()
	c.h.obs.Observe(ObsRefused, map[string]any{
		"direction": "C>H", "type": method, "reason": notServed(method, silent).Reason, "silent": silent, "session": c.id,
	})
	return nil
}

// Names lists the methods, for jrpc2's rpc.serverInfo.
func (c *conn) Names() []string { return c.methods.Names() }

func (c *conn) session() (accepted []string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accepted, c.open
}

func (c *conn) openSession(ctx context.Context, p api.OpenParams) (api.OpenResult, error) {
	f := c.h.features
	version, minimum := f.Window()
	peer := api.Incompatible{Protocol: max(p.Protocol, 1), MinCompatible: max(p.MinCompatible, 1)}
	if peer.Protocol < minimum || version < peer.MinCompatible {
		reason := fmt.Sprintf("client protocol %d (minimum %d) is outside host protocol %d (minimum %d)",
			peer.Protocol, peer.MinCompatible, version, minimum)
		c.h.obs.Observe(ObsRefusedPeer, map[string]any{
			"by": "host", "reason": reason, "session": c.id,
			"local": api.Incompatible{Protocol: version, MinCompatible: minimum}, "peer": peer,
		})
		return api.OpenResult{}, (&jrpc2.Error{Code: api.CodeIncompatible, Message: reason}).
			WithData(api.Incompatible{Protocol: version, MinCompatible: minimum})
	}
	accepted := []string{}
	for _, cap := range p.Capabilities {
		if c.accepts(cap) && !slices.Contains(accepted, cap) {
			accepted = append(accepted, cap)
		}
	}
	c.mu.Lock()
	c.open, c.accepted = true, accepted
	c.mu.Unlock()
	if slices.Contains(accepted, api.CapPush) {
		c.h.pushes(c)
	}
	if slices.Contains(accepted, api.CapKeepalive) {
		c.keepalive.arm() // the keepalives start once this reply is sent
	}
	_, cursor := c.h.store.List()
	c.h.obs.Observe(ObsSessionOpened, map[string]any{
		"session": c.id, "client": p.Client, "version": p.Version,
		"declared": nonNil(p.Capabilities), "accepted": accepted,
	})
	return api.OpenResult{
		Session: c.id, Server: f.Version, Protocol: version, MinCompatible: minimum,
		Capabilities: accepted, Cursor: cursor,
	}, nil
}

// accepts reports whether this release accepts a declared capability.
func (c *conn) accepts(capability string) bool {
	switch capability {
	case api.CapPush:
		return c.h.features.Push
	case api.CapSlimPush:
		return c.h.features.SlimPushNegotiated
	case api.CapKeepalive:
		return c.h.features.Keepalive
	}
	return false
}

func (c *conn) put(ctx context.Context, p api.PutParams) (api.PutResult, error) {
	if _, ok := c.session(); !ok {
		return api.PutResult{}, errNoSession
	}
	n := c.h.write(p.ID, p.Text, p.Tags, c) // p as this release reads it (readPut)
	return api.PutResult{ID: n.ID, Rev: n.Rev, Cursor: n.Cursor}, nil
}

// ack takes a client's acknowledgement of a notification.
func (c *conn) ack(ctx context.Context, p api.AckParams) error {
	c.h.obs.Observe(ObsAcked, map[string]any{"session": c.id, "of": p.Of, "seq": p.Seq})
	return nil
}

func (c *conn) get(ctx context.Context, p api.GetParams) (api.Note, error) {
	if _, ok := c.session(); !ok {
		return api.Note{}, errNoSession
	}
	n, err := c.h.store.Get(p.ID)
	if err != nil {
		return api.Note{}, (&jrpc2.Error{Code: api.CodeNotFound, Message: "no note " + strconv.Quote(p.ID)}).
			WithData(map[string]string{"id": p.ID})
	}
	return c.note(n, true), nil
}

func (c *conn) list(ctx context.Context) (api.ListResult, error) {
	if _, ok := c.session(); !ok {
		return api.ListResult{}, errNoSession
	}
	all, cursor := c.h.store.List()
	out := api.ListResult{Notes: make([]api.Note, 0, len(all)), Cursor: cursor}
	for _, n := range all {
		out.Notes = append(out.Notes, c.note(n, true))
	}
	return out, nil
}

func (c *conn) changes(ctx context.Context, p api.ChangesParams) (api.ChangesResult, error) {
	if _, ok := c.session(); !ok {
		return api.ChangesResult{}, errNoSession
	}
	all, cursor := c.h.store.Changes(p.Since)
	out := api.ChangesResult{Changes: make([]api.Note, 0, len(all)), Cursor: cursor}
	for _, n := range all {
		nn := c.note(n, false)
		nn.Rev = api.Ptr(n.Rev) // a change always says which revision it is
		out.Changes = append(out.Changes, nn)
	}
	return out, nil
}

func (c *conn) search(ctx context.Context, p api.SearchParams) (api.SearchResult, error) {
	if _, ok := c.session(); !ok {
		return api.SearchResult{}, errNoSession
	}
	found := c.h.store.Search(p.Query)
	out := api.SearchResult{Notes: make([]api.Note, 0, len(found))}
	for _, n := range found {
		out.Notes = append(out.Notes, c.note(n, true))
	}
	return out, nil
}

// note is a stored note as this release publishes it.
func (c *conn) note(n store.Note, published bool) api.Note {
	out := api.Note{ID: n.ID, Text: api.Ptr(n.Text), Rev: api.Ptr(n.Rev)}
	if c.h.features.Tags {
		out.Tags = n.Tags
	}
	if published && c.h.features.HideRev {
		out.Rev = nil // the negative control: stop publishing rev
	}
	return out
}

// push sends one revision as notes.changed.
func (c *conn) push(n store.Note) {
	accepted, _ := c.session()
	f := c.h.features
	p := api.ChangedParams{Note: api.Note{ID: n.ID, Rev: api.Ptr(n.Rev)}, Cursor: n.Cursor}
	if f.Tags {
		p.Tags = n.Tags
	}
	slim := f.SlimPush && (!f.SlimPushNegotiated || slices.Contains(accepted, api.CapSlimPush))
	if !slim {
		p.Text = api.Ptr(n.Text)
	}
	if err := c.srv.Notify(context.Background(), api.Changed, p); err != nil {
		c.h.logf("session %s: push %s: %v", c.id, n.ID, err)
		return
	}
	data := map[string]any{"session": c.id, "id": n.ID, "rev": n.Rev}
	if p.Text != nil {
		data["text"] = *p.Text
	}
	c.h.obs.Observe(ObsPushed, data)
}

func storedData(n store.Note) map[string]any {
	return map[string]any{"id": n.ID, "text": n.Text, "tags": nonNil(n.Tags), "rev": n.Rev, "session": n.Origin}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
