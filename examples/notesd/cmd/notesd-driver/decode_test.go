package main_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// releases are notesd's releases and the working tree, by name, derived from history.yaml as
// the history writer does: each release's set laid over the one before.
func releases() map[string]release.Features {
	GinkgoHelper()
	var h struct {
		Releases []struct {
			Tag string         `yaml:"tag"`
			Set map[string]any `yaml:"set"`
		} `yaml:"releases"`
		Worktree struct {
			Set map[string]any `yaml:"set"`
		} `yaml:"worktree"`
	}
	data, err := os.ReadFile("../../history.yaml")
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(data, &h)).To(Succeed())
	out := map[string]release.Features{}
	acc := map[string]any{}
	add := func(name string, set map[string]any) {
		for k, v := range set {
			acc[k] = v
		}
		acc["version"] = name
		raw, err := json.Marshal(acc)
		Expect(err).NotTo(HaveOccurred())
		out[name], err = release.Parse(raw)
		Expect(err).NotTo(HaveOccurred(), "release %s", name)
	}
	for _, r := range h.Releases {
		add(r.Tag, r.Set)
	}
	add("worktree", h.Worktree.Set)
	return out
}

// as is the environment that makes a driver of this build behave as release f.
func as(f release.Features) []string {
	GinkgoHelper()
	b, err := json.Marshal(f)
	Expect(err).NotTo(HaveOccurred())
	return []string{"NOTESD_FEATURES=" + string(b)}
}

// message is one WebSocket message the relay forwarded.
type message struct {
	dir    string // "C>H" or "H>C"
	binary bool
	data   []byte
}

// relay stands between a client and a host like skewtest's wire tap: it forwards every
// message and records it.
type relay struct {
	srv  *httptest.Server
	host string

	mu    sync.Mutex
	msgs  []message
	conns []*websocket.Conn
	wg    sync.WaitGroup
}

func startRelay(hostURL string) *relay {
	r := &relay{host: hostURL}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	DeferCleanup(r.close)
	return r
}

func (r *relay) url() string { return "ws" + strings.TrimPrefix(r.srv.URL, "http") }

func (r *relay) serve(w http.ResponseWriter, req *http.Request) {
	var up websocket.Upgrader
	down, err := up.Upgrade(w, req, nil)
	if err != nil {
		return
	}
	upstream, _, err := websocket.DefaultDialer.Dial(r.host+req.URL.Path, nil)
	if err != nil {
		_ = down.Close()
		return
	}
	r.mu.Lock()
	r.conns = append(r.conns, down, upstream)
	r.wg.Add(2)
	r.mu.Unlock()
	go r.pump(down, upstream, "C>H")
	go r.pump(upstream, down, "H>C")
}

// pump forwards one direction; when it ends, both connections are closed.
func (r *relay) pump(from, to *websocket.Conn, dir string) {
	defer r.wg.Done()
	defer func() { _ = from.Close(); _ = to.Close() }()
	for {
		typ, data, err := from.ReadMessage()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.msgs = append(r.msgs, message{dir: dir, binary: typ == websocket.BinaryMessage, data: data})
		r.mu.Unlock()
		if err := to.WriteMessage(typ, data); err != nil {
			return
		}
	}
}

func (r *relay) close() {
	r.srv.Close()
	r.mu.Lock()
	for _, c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// find returns the first message of direction dir that matches, or fails.
func (r *relay) find(dir string, match func(any) bool) message {
	GinkgoHelper()
	m, ok := r.lookup(dir, match)
	if !ok {
		Fail("no " + dir + " message matches")
	}
	return m
}

// lookup returns the first message of direction dir that matches, if one does.
func (r *relay) lookup(dir string, match func(any) bool) (message, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		var v any
		if m.dir == dir && json.Unmarshal(m.data, &v) == nil && match(v) {
			return m, true
		}
	}
	return message{}, false
}

// call is the C>H message calling method (one object, or a batch whose first element does).
func (r *relay) call(method string) message {
	GinkgoHelper()
	return r.find("C>H", func(v any) bool { return first(v)["method"] == method })
}

// reply is the H>C message answering call (the same id, or a batch answering a batch).
func (r *relay) reply(call message) message {
	GinkgoHelper()
	id, batch := idOf(call), call.data[0] == '['
	return r.find("H>C", func(v any) bool {
		_, isBatch := v.([]any)
		return isBatch == batch && first(v)["id"] == id
	})
}

// batch is the first C>H batch.
func (r *relay) batch() message {
	GinkgoHelper()
	return r.find("C>H", func(v any) bool { _, ok := v.([]any); return ok })
}

// first is a message's object: itself, or a batch's first element.
func first(v any) map[string]any {
	if b, ok := v.([]any); ok && len(b) > 0 {
		v = b[0]
	}
	o, _ := v.(map[string]any)
	return o
}

// idOf is a call's id (its first element's, for a batch), as JSON reads it.
func idOf(call message) any {
	GinkgoHelper()
	var v any
	Expect(json.Unmarshal(call.data, &v)).To(Succeed())
	return first(v)["id"]
}

// notification is the H>C notification method.
func (r *relay) notification(method string) message {
	GinkgoHelper()
	return r.find("H>C", isNotification(method))
}

func isNotification(method string) func(any) bool {
	return func(v any) bool {
		o, _ := v.(map[string]any)
		return o["method"] == method && o["id"] == nil
	}
}

// traffic runs the product, a host of release hf and a client of kind and release cf,
// through a relay: the client opens a session, writes, reads, imports a batch and (where both
// serve it) searches; a sync client is then sent the host's edit. It returns the relay.
func traffic(ctx context.Context, hf release.Features, kind string, cf release.Features) *relay {
	GinkgoHelper()
	h := host.New(hf, store.New(), observe.Discard)
	srv := httptest.NewServer(h)
	DeferCleanup(func() { srv.Close(); h.Close() })
	r := startRelay("ws" + strings.TrimPrefix(srv.URL, "http"))
	obs := &observe.Recorder{}
	c, err := client.New(kind, cf, r.url(), obs)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	_, err = c.Connect(ctx)
	Expect(err).NotTo(HaveOccurred())
	_, err = c.Put(ctx, "n1", "first", []string{"work"})
	Expect(err).NotTo(HaveOccurred())
	_, err = c.Get(ctx, "nope")
	Expect(err).To(HaveOccurred())
	_, err = c.Import(ctx, []api.PutParams{{ID: "b1", Text: "one"}, {ID: "b2", Text: "two"}})
	Expect(err).NotTo(HaveOccurred())
	_, err = c.List(ctx)
	Expect(err).NotTo(HaveOccurred())
	if hf.Search && cf.Search {
		_, err = c.Search(ctx, "one")
		Expect(err).NotTo(HaveOccurred())
	}
	if kind == client.KindSync && hf.Push && cf.Push {
		h.Edit("h1", "written on the host", nil)
		Eventually(obs.Named).WithArguments(client.ObsApplied).Should(ContainElement(HaveKeyWithValue("id", "h1")))
	}
	return r
}

// frame is one frame of a decode action, from a message the relay recorded.
func frame(id int, m message) line {
	return line{"id": id, "dir": m.dir, "path": wsrpc.Path, "binary": m.binary, "data": base64.StdEncoding.EncodeToString(m.data)}
}

// decode sends the decode action and returns its answers, in the order of frames.
func (p *proc) decode(frames ...line) []line {
	GinkgoHelper()
	data := p.ok("decode", line{"frames": frames})
	answers, _ := data["frames"].([]any)
	Expect(answers).To(HaveLen(len(frames)))
	out := make([]line, len(answers))
	for i, a := range answers {
		out[i] = a.(line)
		Expect(out[i]).To(HaveKeyWithValue("id", float64(i+1)), "answers in the order of frames")
	}
	return out
}

// decoder starts a driver of role (and kind) that behaves as release f, ready for decode.
func decoder(f release.Features, args ...string) *proc {
	GinkgoHelper()
	p := start(as(f), args...)
	Expect(p.first("hello")["actions"]).To(ContainElement("decode"))
	p.first("ready")
	return p
}

var _ = Describe("notesd-driver decode", func() {
	var rel map[string]release.Features
	BeforeEach(func() { rel = releases() })

	It("names in the host what a cli client sends, as the host's handlers read it, and refuses what it does not receive", func(ctx SpecContext) {
		r := traffic(ctx, rel["worktree"], client.KindCLI, rel["worktree"])
		h := decoder(rel["worktree"], "host")
		open, put, batch, search := r.call(api.Open), r.call(api.Put), r.batch(), r.call(api.Search)
		got := h.decode(frame(1, open), frame(2, put), frame(3, batch), frame(4, search),
			frame(5, r.reply(open)), line{"id": 6, "dir": "C>H", "path": "/elsewhere", "binary": false, "data": base64.StdEncoding.EncodeToString(put.data)},
			line{"id": 7, "dir": "C>H", "path": wsrpc.Path, "binary": true, "data": base64.StdEncoding.EncodeToString(put.data)})
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "session.open", "opcode": 0.0, "fields": line{"id": 1.0, "params": line{
			"client": "cli", "version": "worktree", "protocol": 1.0, "minCompatible": 1.0, "capabilities": []any{}}}}))
		Expect(got[1]).To(Equal(line{"id": 2.0, "type": "notes.put", "opcode": 0.0, "fields": line{"id": 2.0, "params": line{
			"id": "n1", "text": "first", "tags": []any{"work"}}}}))
		Expect(got[2]).To(Equal(line{"id": 3.0, "type": "notes.put", "opcode": 0.0, "fields": []any{
			line{"type": "notes.put", "id": 4.0, "params": line{"id": "b1", "text": "one"}},
			line{"type": "notes.put", "id": 5.0, "params": line{"id": "b2", "text": "two"}}}}))
		Expect(got[3]).To(Equal(line{"id": 4.0, "type": "notes.search", "opcode": 0.0, "fields": line{"id": 7.0, "params": line{"query": "one"}}}))
		Expect(got[4]).To(Equal(line{"id": 5.0, "refused": true, "reason": "host does not receive H>C frames"}))
		Expect(got[5]).To(Equal(line{"id": 6.0, "refused": true, "reason": "no decoder for path /elsewhere"}))
		Expect(got[6]).To(And(HaveKeyWithValue("refused", true),
			HaveKeyWithValue("reason", HavePrefix("binary WebSocket message on a JSON-RPC channel"))))
	}, SpecTimeout(30*time.Second))

	It("refuses notes.search in a host that predates it, in the words of its refused observation, and reads tags only from v0.3.0 on", func(ctx SpecContext) {
		r := traffic(ctx, rel["worktree"], client.KindCLI, rel["worktree"])
		search, put := frame(1, r.call(api.Search)), frame(2, r.call(api.Put))
		for _, tc := range []struct {
			release string
			tags    bool
		}{{"v0.2.0", false}, {"v0.3.0", true}} {
			got := decoder(rel[tc.release], "host").decode(search, put)
			Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.search", "refused": true, "reason": "method not found"}), tc.release)
			params := line{"id": "n1", "text": "first"}
			if tc.tags {
				params["tags"] = []any{"work"}
			}
			Expect(got[1]).To(HaveKeyWithValue("fields", HaveKeyWithValue("params", params)), tc.release)
		}
	}, SpecTimeout(30*time.Second))

	It("names in a client the host's replies and notifications, and refuses what it does not receive", func(ctx SpecContext) {
		r := traffic(ctx, rel["worktree"], client.KindSync, rel["v0.2.0"])
		open, get, batch := r.call(api.Open), r.call(api.Get), r.batch()
		changed := r.notification(api.Changed)

		s := decoder(rel["v0.2.0"], "client", "sync")
		got := s.decode(frame(1, r.reply(open)), frame(2, r.reply(get)), frame(3, r.reply(batch)), frame(4, changed), frame(5, open))
		Expect(got[0]).To(And(HaveKeyWithValue("type", "result"), HaveKeyWithValue("fields", And(
			HaveKeyWithValue("id", idOf(open)), HaveKeyWithValue("result", HaveKeyWithValue("capabilities", []any{"push"}))))))
		Expect(got[1]).To(Equal(line{"id": 2.0, "type": "error", "opcode": 0.0, "fields": line{"id": idOf(get), "error": line{
			"code": -32004.0, "message": `no note "nope"`, "data": line{"id": "nope"}}}}))
		Expect(got[2]).To(And(HaveKeyWithValue("type", "result"), HaveKeyWithValue("fields", HaveLen(2))))
		// Nobody negotiated slim push: the text travels, and the client reads it.
		Expect(got[3]).To(Equal(line{"id": 4.0, "type": "notes.changed", "opcode": 0.0, "fields": line{"params": line{
			"id": "h1", "text": "written on the host", "rev": 1.0, "cursor": 4.0}}}))
		Expect(got[4]).To(Equal(line{"id": 5.0, "refused": true, "reason": "sync client does not receive C>H frames"}))

		// A cli client has no handler for notes.changed, and drops it.
		got = decoder(rel["worktree"], "client", "cli").decode(frame(1, changed))
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.changed", "refused": true, "reason": "no handler for notification notes.changed"}))
	}, SpecTimeout(30*time.Second))

	It("names notes.keepalive in the clients of a release that knows it, and refuses it in one that predates it", func(ctx SpecContext) {
		// The keepalive switch in both builds: the cli client declares keepalive, the host
		// sends notes.keepalive on its timer.
		on := rel["worktree"]
		on.Keepalive = true
		r := traffic(ctx, on, client.KindCLI, on)
		Eventually(func() bool {
			_, ok := r.lookup("H>C", isNotification(api.Keepalive))
			return ok
		}).Should(BeTrue())
		keepalive := frame(1, r.notification(api.Keepalive))
		for _, kind := range []string{"cli", "sync"} {
			got := decoder(rel["worktree"], "client", kind).decode(keepalive)
			Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.keepalive", "opcode": 0.0}), kind)
		}
		got := decoder(rel["v0.3.0"], "client", "cli").decode(keepalive)
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.keepalive", "refused": true, "reason": "no handler for notification notes.keepalive"}))
	}, SpecTimeout(30*time.Second))

	It("refuses notes.changed in a sync client that predates push, and reads v0.3.0's slim push as the known bug does", func(ctx SpecContext) {
		// v0.3.0's host leaves the text out of notes.changed for every push session.
		r := traffic(ctx, rel["v0.3.0"], client.KindSync, rel["v0.3.0"])
		changed := frame(1, r.notification(api.Changed))
		Expect(base64.StdEncoding.DecodeString(changed["data"].(string))).NotTo(ContainSubstring(`"text"`))

		// v0.1.0 predates push: its sync client has no handler for it.
		got := decoder(rel["v0.1.0"], "client", "sync").decode(changed)
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.changed", "refused": true, "reason": "no handler for notification notes.changed"}))

		// v0.2.0 decodes it without a word, and reads the missing text as an empty one: the
		// bug is not a decoder refusal but a note applied empty (README: the matrix).
		got = decoder(rel["v0.2.0"], "client", "sync").decode(changed)
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.changed", "opcode": 0.0, "fields": line{"params": line{
			"id": "h1", "text": "", "rev": 1.0, "cursor": 4.0}}}))

		// v0.3.0 leaves it missing, and fetches it.
		got = decoder(rel["v0.3.0"], "client", "sync").decode(changed)
		Expect(got[0]).To(Equal(line{"id": 1.0, "type": "notes.changed", "opcode": 0.0, "fields": line{"params": line{
			"id": "h1", "rev": 1.0, "cursor": 4.0}}}))
	}, SpecTimeout(30*time.Second))
})
