package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/creachadair/jrpc2"

	"github.com/skewtest/skewtest/examples/notesd/api"
)

// PutResult says what became of a write: stored by the host (Rev), or queued while offline.
type PutResult struct {
	ID     string `json:"id"`
	Rev    int64  `json:"rev,omitempty"`
	Queued bool   `json:"queued,omitempty"`
}

// Put writes a note. A sync client that is offline (or loses its connection during the
// call) queues the write and sends it when it reconnects; a cli client fails.
func (c *Client) Put(ctx context.Context, id, text string, tags []string) (PutResult, error) {
	p := api.PutParams{ID: id, Text: text}
	if c.features.Tags {
		p.Tags = tags
	}
	conn, err := c.current()
	if err == nil {
		var res api.PutResult
		err = conn.call(ctx, api.Put, p, &res)
		if err == nil {
			c.remember(api.Note{ID: id, Text: api.Ptr(text), Tags: p.Tags, Rev: api.Ptr(res.Rev)})
			return PutResult{ID: res.ID, Rev: res.Rev}, nil
		}
		if isReply(err) && !conn.rpc.IsStopped() {
			c.rpcError(api.Put, err)
			return PutResult{}, err
		}
	}
	if c.kind != KindSync {
		return PutResult{}, fmt.Errorf("%s %s: %w", api.Put, id, err)
	}
	c.mu.Lock()
	c.queue = append(c.queue, p)
	c.mu.Unlock()
	c.obs.Observe(ObsQueued, map[string]any{"id": id, "text": text})
	return PutResult{ID: id, Queued: true}, nil
}

// Import writes several notes in one JSON-RPC batch (jrpc2's Client.Batch: one WebSocket
// message holding a JSON array). It returns one result per note, in order.
func (c *Client) Import(ctx context.Context, notes []api.PutParams) ([]PutResult, error) {
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	return c.batchPut(ctx, conn, notes)
}

func (c *Client) batchPut(ctx context.Context, conn *connection, notes []api.PutParams) ([]PutResult, error) {
	specs := make([]jrpc2.Spec, len(notes))
	for i, n := range notes {
		if !c.features.Tags {
			n.Tags = nil
		}
		specs[i] = jrpc2.Spec{Method: api.Put, Params: n}
	}
	rsps, err := conn.batch(ctx, specs)
	if err != nil {
		return nil, fmt.Errorf("batch of %d %s: %w", len(notes), api.Put, err)
	}
	out := make([]PutResult, len(rsps))
	var failed []error
	for i, rsp := range rsps {
		if rerr := rsp.Error(); rerr != nil {
			c.rpcError(api.Put, rerr)
			failed = append(failed, rerr)
			continue
		}
		var res api.PutResult
		if err := rsp.UnmarshalResult(&res); err != nil {
			failed = append(failed, err)
			continue
		}
		n := notes[i]
		c.remember(api.Note{ID: n.ID, Text: api.Ptr(n.Text), Tags: n.Tags, Rev: api.Ptr(res.Rev)})
		out[i] = PutResult{ID: res.ID, Rev: res.Rev}
	}
	return out, errors.Join(failed...)
}

// Get reads a note. An error reply (no such note) is reported and returned as a *jrpc2.Error.
func (c *Client) Get(ctx context.Context, id string) (api.Note, error) {
	conn, err := c.current()
	if err != nil {
		return api.Note{}, err
	}
	var n api.Note
	if err := conn.call(ctx, api.Get, api.GetParams{ID: id}, &n); err != nil {
		c.rpcError(api.Get, err)
		return api.Note{}, err
	}
	c.obs.Observe(ObsNote, noteData(n))
	return n, nil
}

// List reads every note.
func (c *Client) List(ctx context.Context) (api.ListResult, error) {
	conn, err := c.current()
	if err != nil {
		return api.ListResult{}, err
	}
	var res api.ListResult
	if err := conn.call(ctx, api.List, nil, &res); err != nil {
		c.rpcError(api.List, err)
		return res, err
	}
	ids := make([]string, 0, len(res.Notes))
	for _, n := range res.Notes {
		ids = append(ids, n.ID)
	}
	c.obs.Observe(ObsListed, map[string]any{"ids": ids, "cursor": res.Cursor})
	return res, nil
}

// Search finds notes with notes.search. Against a host that does not serve it (MethodNotFound)
// it falls back to notes.list and filters here, as the cli did before notes.search existed.
func (c *Client) Search(ctx context.Context, query string) ([]api.Note, error) {
	if !c.features.Search {
		return nil, errors.New("this release has no search")
	}
	conn, err := c.current()
	if err != nil {
		return nil, err
	}
	var res api.SearchResult
	via := api.Search
	err = conn.call(ctx, api.Search, api.SearchParams{Query: query}, &res)
	if jrpc2.ErrorCode(err) == jrpc2.MethodNotFound {
		c.rpcError(api.Search, err)
		via = api.List
		all, lerr := c.List(ctx)
		if lerr != nil {
			return nil, lerr
		}
		res.Notes, err = nil, nil
		for _, n := range all.Notes {
			if n.Text != nil && strings.Contains(strings.ToLower(*n.Text), strings.ToLower(query)) {
				res.Notes = append(res.Notes, n)
			}
		}
	}
	if err != nil {
		c.rpcError(api.Search, err)
		return nil, err
	}
	ids := []string{}
	for _, n := range res.Notes {
		ids = append(ids, n.ID)
	}
	c.obs.Observe(ObsFound, map[string]any{"query": query, "ids": ids, "via": via})
	return res.Notes, nil
}

// Pull catches up with notes.changes since the client's cursor (a sync client that did not
// negotiate push does this to see others' writes).
func (c *Client) Pull(ctx context.Context) error {
	conn, err := c.current()
	if err != nil {
		return err
	}
	return c.catchUp(ctx, conn)
}

func (c *Client) catchUp(ctx context.Context, conn *connection) error {
	c.mu.Lock()
	since := c.cursor
	c.mu.Unlock()
	var res api.ChangesResult
	if err := conn.call(ctx, api.Changes, api.ChangesParams{Since: since}, &res); err != nil {
		c.rpcError(api.Changes, err)
		return err
	}
	applied := 0
	for _, n := range res.Changes {
		if c.apply(ctx, readNote(c.features, n), "pull") {
			applied++
		}
	}
	c.advance(res.Cursor)
	c.obs.Observe(ObsCaughtUp, map[string]any{"changes": len(res.Changes), "applied": applied, "cursor": res.Cursor})
	return nil
}

// flush sends the writes queued while offline, as one batch.
func (c *Client) flush(ctx context.Context, conn *connection) error {
	c.mu.Lock()
	queue := c.queue
	c.queue = nil
	c.mu.Unlock()
	if len(queue) == 0 {
		return nil
	}
	_, err := c.batchPut(ctx, conn, queue)
	if err != nil && !isReply(err) {
		c.mu.Lock()
		c.queue = append(queue, c.queue...) // not sent: keep them for the next connection
		c.mu.Unlock()
		return err
	}
	c.obs.Observe(ObsFlushed, map[string]any{"notes": len(queue), "batch": len(queue) > 1})
	return err
}

// onNotify is the client's handler for notifications from the host (jrpc2's server push),
// read by readNotification. A method this build does not know is dropped, as every release
// of the client does; the drop is reported. (With the DropPushInCall switch, a notes.changed
// read while a call waits for its reply never gets here: replyReader drops it, unreported.)
func (c *Client) onNotify(req *jrpc2.Request) {
	params, err := readNotification(c.features, c.kind, req)
	if err != nil {
		c.obs.Observe(ObsRefused, map[string]any{"direction": "H>C", "type": req.Method(),
			"reason": err.Error(), "silent": true})
		return
	}
	// A keepalive (params nil) says only that the connection is alive: nothing to do.
	switch p := params.(type) {
	case api.NoticeParams:
		// Every release takes the host's notice, and does nothing with it but acknowledge
		// it where the DoubleAck switch is on.
		c.ack(api.Notice, p.Seq)
	case api.ChangedParams:
		c.apply(context.Background(), p.Note, "push")
		c.advance(p.Cursor)
		c.ack(api.Changed, p.Cursor)
	}
}

// ack acknowledges a notification twice, in two messages, where the DoubleAck switch is on
// (an acknowledgement sent again in case the first was lost, as some clients do).
func (c *Client) ack(of string, seq int64) {
	if !c.features.DoubleAck {
		return
	}
	conn, err := c.current()
	if err != nil {
		return
	}
	for range 2 {
		if err := conn.rpc.Notify(context.Background(), api.Ack, api.AckParams{Of: of, Seq: seq}); err != nil {
			c.logf("ack %s %d: %v", of, seq, err)
			return
		}
	}
}

// apply takes someone else's revision of a note, as this release reads it (readNote), into
// the replica, unless the replica has it already; it reports whether it did.
func (c *Client) apply(ctx context.Context, n api.Note, via string) bool {
	rev := int64(0)
	if n.Rev != nil {
		rev = *n.Rev
	}
	c.mu.Lock()
	have, ok := c.replica[n.ID]
	c.mu.Unlock()
	if ok && have.Rev != nil && *have.Rev >= rev {
		return false
	}
	if n.Text == nil {
		// A slim notification (readNote leaves the text out only from slim push on): fetch
		// the text.
		var full api.Note
		conn, err := c.current()
		if err == nil {
			err = conn.call(ctx, api.Get, api.GetParams{ID: n.ID}, &full)
		}
		if err != nil {
			c.rpcError(api.Get, err)
			return false
		}
		n.Text, n.Tags, via = full.Text, full.Tags, via+"+fetch"
	}
	c.remember(n)
	data := noteData(n)
	data["via"] = via
	c.obs.Observe(ObsApplied, data)
	return true
}

func (c *Client) remember(n api.Note) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if have, ok := c.replica[n.ID]; ok && have.Rev != nil && n.Rev != nil && *have.Rev > *n.Rev {
		return
	}
	c.replica[n.ID] = n
}

func (c *Client) advance(cursor int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cursor = max(c.cursor, cursor)
}

// Replica returns the sync client's notes by id: id → text.
func (c *Client) Replica() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]string{}
	for id, n := range c.replica {
		if n.Text != nil {
			out[id] = *n.Text
		}
	}
	return out
}

// Queued returns the ids of the writes queued while offline.
func (c *Client) Queued() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []string
	for _, p := range c.queue {
		ids = append(ids, p.ID)
	}
	return slices.Clip(ids)
}

func noteData(n api.Note) map[string]any {
	data := map[string]any{"id": n.ID, "tags": n.Tags}
	if n.Tags == nil {
		data["tags"] = []string{}
	}
	if n.Text != nil {
		data["text"] = *n.Text
	}
	if n.Rev != nil {
		data["rev"] = *n.Rev
	}
	return data
}

// isReply reports whether err is the host's error reply (as opposed to a transport failure).
func isReply(err error) bool {
	var jerr *jrpc2.Error
	return errors.As(err, &jerr) && jerr.Code != jrpc2.Cancelled && jerr.Code != jrpc2.DeadlineExceeded
}

func jsonUnmarshal(data json.RawMessage, v any) error {
	if len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, v)
}
