package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/internal/tcpproxy"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// The releases, as history.yaml sets them.
var (
	v010     = release.Features{Version: "v0.1.0"}
	v020     = release.Features{Version: "v0.2.0", Push: true}
	v030     = release.Features{Version: "v0.3.0", Push: true, Tags: true, SlimPush: true}
	worktree = release.Features{Version: "worktree", Push: true, Tags: true, SlimPush: true, SlimPushNegotiated: true, Search: true, KeepaliveKnown: true}
)

// network is a host of one release behind a proxy that can cut the network.
type network struct {
	h       *host.Host
	hostObs *observe.Recorder
	proxy   *tcpproxy.Proxy
}

func startHost(f release.Features) *network {
	GinkgoHelper()
	n := &network{hostObs: &observe.Recorder{}}
	n.h = host.New(f, store.New(), n.hostObs, host.WithLog(GinkgoWriter.Printf))
	srv := httptest.NewServer(n.h)
	var err error
	n.proxy, err = tcpproxy.Start(strings.TrimPrefix(srv.URL, "http://"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = n.proxy.Close(); srv.Close(); n.h.Close() })
	return n
}

// client returns a client of kind and release f, connected through the proxy.
func (n *network) client(ctx context.Context, kind string, f release.Features) (*client.Client, *observe.Recorder) {
	GinkgoHelper()
	obs := &observe.Recorder{}
	c, err := client.New(kind, f, "ws://"+n.proxy.Addr(), obs, client.WithLog(GinkgoWriter.Printf))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	_, err = c.Connect(ctx)
	Expect(err).NotTo(HaveOccurred())
	return c, obs
}

var _ = Describe("Client", func() {
	It("refuses a kind it does not know", func() {
		_, err := client.New("desktop", v010, "ws://x", observe.Discard)
		Expect(err).To(HaveOccurred())
	})

	Describe("cli", func() {
		It("writes, reads, gets an error reply for a missing note, imports a batch and lists", func(ctx SpecContext) {
			n := startHost(v020)
			c, obs := n.client(ctx, client.KindCLI, v020)
			Expect(c.Accepted()).To(BeEmpty())

			Expect(c.Put(ctx, "n1", "first", nil)).To(Equal(client.PutResult{ID: "n1", Rev: 1}))
			got, err := c.Get(ctx, "n1")
			Expect(err).NotTo(HaveOccurred())
			Expect(*got.Text).To(Equal("first"))

			_, err = c.Get(ctx, "nope")
			var jerr *jrpc2.Error
			Expect(errors.As(err, &jerr)).To(BeTrue())
			Expect(jerr.Code).To(Equal(api.CodeNotFound))
			Expect(obs.Named(client.ObsRPCError)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("method", "notes.get"), HaveKeyWithValue("code", -32004.0))))

			res, err := c.Import(ctx, []api.PutParams{{ID: "b1", Text: "one"}, {ID: "b2", Text: "two"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(res).To(Equal([]client.PutResult{{ID: "b1", Rev: 1}, {ID: "b2", Rev: 1}}))
			Expect(n.hostObs.Named(host.ObsStored)).To(HaveLen(3))

			list, err := c.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(list.Notes).To(HaveLen(3))
		}, SpecTimeout(10e9))

		It("fails a write while offline instead of queueing it", func(ctx SpecContext) {
			n := startHost(v020)
			c, obs := n.client(ctx, client.KindCLI, v020)
			n.proxy.Block()
			Eventually(obs.Named).WithArguments(client.ObsTransportClosed).ShouldNot(BeEmpty())
			_, err := c.Put(ctx, "n1", "lost?", nil)
			Expect(err).To(MatchError(client.ErrOffline))
		}, SpecTimeout(10e9))

		It("searches with notes.search, and falls back to notes.list on a host without it", func(ctx SpecContext) {
			for _, hf := range []release.Features{worktree, v030} {
				n := startHost(hf)
				n.h.Edit("a", "Shopping list", nil)
				n.h.Edit("b", "other", nil)
				c, obs := n.client(ctx, client.KindCLI, worktree)
				found, err := c.Search(ctx, "shop")
				Expect(err).NotTo(HaveOccurred())
				Expect(found).To(HaveLen(1))
				via := "notes.search"
				if !hf.Search {
					via = "notes.list"
				}
				Expect(obs.Named(client.ObsFound)).To(ConsistOf(HaveKeyWithValue("via", via)))
			}
		}, SpecTimeout(10e9))

		It("drops a notification it does not handle, and says so", func(ctx SpecContext) {
			n := startHost(release.Features{Version: "worktree", Push: true, PushUngated: true})
			_, obs := n.client(ctx, client.KindCLI, worktree)
			n.h.Edit("a", "pushed anyway", nil)
			Eventually(obs.Named).WithArguments(client.ObsRefused).Should(ConsistOf(SatisfyAll(
				HaveKeyWithValue("type", "notes.changed"), HaveKeyWithValue("silent", true))))
		}, SpecTimeout(10e9))
	})

	It("acknowledges every notification it handles twice with doubleAck, and takes notices without it", func(ctx SpecContext) {
		async := worktree
		async.NoticeAfterReply = true
		n := startHost(async)
		_, obs := n.client(ctx, client.KindCLI, worktree)
		Consistently(n.hostObs.Named).WithArguments(host.ObsAcked).WithTimeout(200e6).Should(BeEmpty())
		Expect(obs.Named(client.ObsRefused)).To(BeEmpty())

		acker := worktree
		acker.DoubleAck = true
		n.client(ctx, client.KindSync, acker)
		// The notice after session.open's reply, acknowledged twice.
		acks := func(of string) func() int {
			return func() (k int) {
				for _, a := range n.hostObs.Named(host.ObsAcked) {
					if a["of"] == of && a["seq"] == 1.0 {
						k++
					}
				}
				return k
			}
		}
		noticeAcks, changeAcks := acks("notes.notice"), acks("notes.changed")
		Eventually(noticeAcks).Should(Equal(2))
		n.h.Edit("h1", "pushed", nil)
		Eventually(changeAcks).Should(Equal(2))
		Consistently(changeAcks).WithTimeout(200e6).Should(Equal(2))
	}, SpecTimeout(10e9))

	Describe("sync", func() {
		It("applies pushed changes where push was negotiated", func(ctx SpecContext) {
			n := startHost(v020)
			c, obs := n.client(ctx, client.KindSync, v020)
			Expect(c.Accepted()).To(Equal([]string{"push"}))
			n.h.Edit("h1", "from the host", nil)
			Eventually(obs.Named).WithArguments(client.ObsApplied).Should(ConsistOf(SatisfyAll(
				HaveKeyWithValue("text", "from the host"), HaveKeyWithValue("via", "push"))))
		}, SpecTimeout(10e9))

		It("pulls where push was not negotiated (v0.1.0)", func(ctx SpecContext) {
			n := startHost(v010)
			c, obs := n.client(ctx, client.KindSync, worktree)
			Expect(c.Accepted()).To(BeEmpty())
			n.h.Edit("h1", "from the host", nil)
			Expect(c.Pull(ctx)).To(Succeed())
			Expect(obs.Named(client.ObsApplied)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("text", "from the host"), HaveKeyWithValue("via", "pull"))))
		}, SpecTimeout(10e9))

		It("queues writes while offline, then catches up and flushes them as one batch", func(ctx SpecContext) {
			n := startHost(v020)
			c, obs := n.client(ctx, client.KindSync, v020)
			n.proxy.Block()
			Eventually(obs.Named).WithArguments(client.ObsTransportClosed).ShouldNot(BeEmpty())
			n.h.Edit("h2", "while away", nil)
			Expect(c.Put(ctx, "s1", "offline one", nil)).To(Equal(client.PutResult{ID: "s1", Queued: true}))
			Expect(c.Put(ctx, "s2", "offline two", nil)).To(Equal(client.PutResult{ID: "s2", Queued: true}))
			Expect(c.Queued()).To(Equal([]string{"s1", "s2"}))

			_, err := c.Connect(ctx)
			Expect(err).To(HaveOccurred(), "the network is still blocked")
			n.proxy.Unblock()
			_, err = c.Connect(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Queued()).To(BeEmpty())
			Expect(obs.Named(client.ObsApplied)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("id", "h2"), HaveKeyWithValue("via", "pull"))))
			Expect(obs.Named(client.ObsFlushed)).To(ConsistOf(SatisfyAll(
				HaveKeyWithValue("notes", 2.0), HaveKeyWithValue("batch", true))))
			Expect(n.hostObs.Named(host.ObsStored)).To(ContainElements(
				HaveKeyWithValue("text", "offline one"), HaveKeyWithValue("text", "offline two")))
			Expect(c.Replica()).To(Equal(map[string]string{"h2": "while away", "s1": "offline one", "s2": "offline two"}))
		}, SpecTimeout(10e9))

		DescribeTable("slim push across releases",
			func(ctx SpecContext, hf, cf release.Features, text, via string) {
				n := startHost(hf)
				_, obs := n.client(ctx, client.KindSync, cf)
				n.h.Edit("h1", "from the host", nil)
				Eventually(obs.Named).WithArguments(client.ObsApplied).Should(ConsistOf(SatisfyAll(
					HaveKeyWithValue("text", text), HaveKeyWithValue("via", via))))
			},
			Entry("v0.3.0 host, v0.3.0 client: the client fetches the text", v030, v030, "from the host", "push+fetch"),
			Entry("v0.3.0 host, v0.2.0 client: an empty note (the bug)", v030, v020, "", "push"),
			Entry("worktree host, v0.2.0 client: the text, as v0.2.0 expects (the fix)", worktree, v020, "from the host", "push"),
			Entry("worktree host, worktree client: negotiated slim push, fetched", worktree, worktree, "from the host", "push+fetch"),
			Entry("v0.2.0 host, worktree client: the text", v020, worktree, "from the host", "push"),
		)
	})

	Describe("sync with the dropPushInCall switch", func() {
		// pushInPut is a host that, before it answers a notes.put, pushes notes.changed of h1
		// to the writer's own connection: the push is read while the put waits for its reply.
		// servers gets each connection's server, to push between calls.
		pushInPut := func() (url string, servers <-chan *jrpc2.Server) {
			GinkgoHelper()
			started := make(chan *jrpc2.Server, 1)
			var up websocket.Upgrader
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				s := jrpc2.NewServer(handler.Map{
					api.Open: handler.New(func(context.Context, api.OpenParams) (api.OpenResult, error) {
						return api.OpenResult{Protocol: 1, MinCompatible: 1, Capabilities: []string{api.CapPush}}, nil
					}),
					api.Changes: handler.New(func(context.Context, api.ChangesParams) (api.ChangesResult, error) {
						return api.ChangesResult{Changes: []api.Note{}}, nil
					}),
					api.Put: handler.New(func(ctx context.Context, p api.PutParams) (api.PutResult, error) {
						err := jrpc2.ServerFromContext(ctx).Notify(ctx, api.Changed, api.ChangedParams{
							Note: api.Note{ID: "h1", Text: api.Ptr("during the put"), Rev: api.Ptr(int64(1))}, Cursor: 1})
						return api.PutResult{ID: p.ID, Rev: 1, Cursor: 2}, err
					}),
				}, &jrpc2.ServerOptions{AllowPush: true}).Start(wsrpc.New(ws))
				started <- s
				_ = s.Wait()
			}))
			DeferCleanup(srv.Close)
			return "ws" + strings.TrimPrefix(srv.URL, "http"), started
		}

		DescribeTable("a push read while a call waits for its reply",
			func(ctx SpecContext, drop bool, applied []string) {
				url, servers := pushInPut()
				f := worktree
				f.DropPushInCall = drop
				obs := &observe.Recorder{}
				c, err := client.New(client.KindSync, f, url, obs, client.WithLog(GinkgoWriter.Printf))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				_, err = c.Connect(ctx)
				Expect(err).NotTo(HaveOccurred())
				s := <-servers

				Expect(c.Put(ctx, "s1", "written", nil)).To(Equal(client.PutResult{ID: "s1", Rev: 1}))
				// A push between calls: applied with the switch on or off. The client handles
				// notifications in order, so once h2 is applied h1 was handled before it.
				Expect(s.Notify(ctx, api.Changed, api.ChangedParams{
					Note: api.Note{ID: "h2", Text: api.Ptr("between calls"), Rev: api.Ptr(int64(1))}, Cursor: 3})).To(Succeed())
				ids := func() (ids []string) {
					for _, a := range obs.Named(client.ObsApplied) {
						ids = append(ids, a["id"].(string))
					}
					return ids
				}
				Eventually(ids).Should(ContainElement("h2"))
				Expect(ids()).To(Equal(applied))
				Expect(c.Replica()).To(HaveKeyWithValue("h2", "between calls"))
			},
			Entry("off: applied, as every release does", false, []string{"h1", "h2"}),
			Entry("on: dropped, and nothing says so", true, []string{"h2"}),
		)
	})

	Describe("keepalive", func() {
		withSwitch := func(f release.Features) release.Features {
			f.Keepalive = true
			return f
		}

		DescribeTable("declares keepalive only with the switch, whatever its kind",
			func(kind string, f release.Features, declared []string) {
				c, err := client.New(kind, f, "ws://x", observe.Discard)
				Expect(err).NotTo(HaveOccurred())
				Expect(c.Declares()).To(Equal(declared))
			},
			Entry("cli, worktree", client.KindCLI, worktree, []string{}),
			Entry("cli, worktree with the switch", client.KindCLI, withSwitch(worktree), []string{"keepalive"}),
			Entry("sync, worktree", client.KindSync, worktree, []string{"push", "slimPush"}),
			Entry("sync, worktree with the switch", client.KindSync, withSwitch(worktree), []string{"push", "slimPush", "keepalive"}),
		)

		It("negotiates keepalive with a host that has the switch, and not with one that does not", func(ctx SpecContext) {
			c, _ := startHost(withSwitch(worktree)).client(ctx, client.KindCLI, withSwitch(worktree))
			Expect(c.Accepted()).To(Equal([]string{"keepalive"}))
			c, _ = startHost(worktree).client(ctx, client.KindCLI, withSwitch(worktree))
			Expect(c.Accepted()).To(BeEmpty())
		}, SpecTimeout(10e9))

		// keepaliveHost answers session.open accepting keepalive, then sends one message: a
		// batch of notes.keepalive and a notification nobody handles (notes.typing), which a
		// client hands to its handler in order.
		keepaliveHost := func() string {
			GinkgoHelper()
			var up websocket.Upgrader
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer func() { _ = ws.Close() }()
				var open struct {
					ID json.RawMessage `json:"id"`
				}
				if ws.ReadJSON(&open) != nil {
					return
				}
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":`+string(open.ID)+
					`,"result":{"session":"s1","protocol":1,"minCompatible":1,"capabilities":["keepalive"],"cursor":0}}`))
				_ = ws.WriteMessage(websocket.TextMessage, []byte(
					`[{"jsonrpc":"2.0","method":"notes.keepalive"},{"jsonrpc":"2.0","method":"notes.typing"}]`))
				_, _, _ = ws.ReadMessage() // until the client goes
			}))
			DeferCleanup(srv.Close)
			return "ws" + strings.TrimPrefix(srv.URL, "http")
		}

		DescribeTable("takes notes.keepalive without a word where the release knows it",
			func(ctx SpecContext, f release.Features, refused []string) {
				obs := &observe.Recorder{}
				c, err := client.New(client.KindCLI, f, keepaliveHost(), obs, client.WithLog(GinkgoWriter.Printf))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				_, err = c.Connect(ctx)
				Expect(err).NotTo(HaveOccurred())
				types := func() (types []string) {
					for _, r := range obs.Named(client.ObsRefused) {
						types = append(types, r["type"].(string))
					}
					return types
				}
				// notes.typing is handled after the keepalive: once it is refused, the
				// keepalive was handled.
				Eventually(types).Should(ContainElement("notes.typing"))
				Expect(types()).To(Equal(refused))
			},
			Entry("worktree with the switch: taken", withSwitch(worktree), []string{"notes.typing"}),
			Entry("v0.3.0 with the switch (the negative control): no handler, dropped and reported",
				withSwitch(v030), []string{"notes.keepalive", "notes.typing"}),
		)
	})

	Describe("protocol window", func() {
		It("reports a host's refusal", func(ctx SpecContext) {
			n := startHost(release.Features{Version: "v9", Protocol: 2, MinCompatible: 2})
			obs := &observe.Recorder{}
			c, err := client.New(client.KindCLI, v010, "ws://"+n.proxy.Addr(), obs)
			Expect(err).NotTo(HaveOccurred())
			_, err = c.Connect(ctx)
			var refused *client.RefusedError
			Expect(errors.As(err, &refused)).To(BeTrue())
			Expect(refused.By).To(Equal("host"))
			Expect(obs.Named(client.ObsRefusedPeer)).To(ConsistOf(HaveKeyWithValue("by", "host")))
		}, SpecTimeout(10e9))

		It("refuses a host outside its own window", func(ctx SpecContext) {
			// A host that does not check windows, and is too new for this client.
			var up websocket.Upgrader
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				s := jrpc2.NewServer(handler.Map{api.Open: handler.New(func(context.Context, api.OpenParams) (api.OpenResult, error) {
					return api.OpenResult{Protocol: 3, MinCompatible: 3, Capabilities: []string{}}, nil
				})}, nil).Start(wsrpc.New(ws))
				_ = s.Wait()
			}))
			DeferCleanup(srv.Close)
			obs := &observe.Recorder{}
			c, err := client.New(client.KindCLI, v010, "ws"+strings.TrimPrefix(srv.URL, "http"), obs)
			Expect(err).NotTo(HaveOccurred())
			_, err = c.Connect(ctx)
			var refused *client.RefusedError
			Expect(errors.As(err, &refused)).To(BeTrue())
			Expect(refused.By).To(Equal("client"))
			Expect(obs.Named(client.ObsRefusedPeer)).To(ConsistOf(HaveKeyWithValue("by", "client")))
		}, SpecTimeout(10e9))
	})
})
