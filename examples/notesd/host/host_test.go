package host_test

import (
	"encoding/json"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

type msg = map[string]any

// daemon is a running host and what it reported.
type daemon struct {
	h   *host.Host
	obs *observe.Recorder
	url string
}

func startHost(f release.Features) *daemon {
	GinkgoHelper()
	d := &daemon{obs: &observe.Recorder{}}
	d.h = host.New(f, store.New(), d.obs, host.WithLog(GinkgoWriter.Printf))
	srv := httptest.NewServer(d.h)
	d.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	DeferCleanup(func() { srv.Close(); d.h.Close() })
	return d
}

// peer is a raw WebSocket client speaking JSON-RPC text by hand.
type peer struct{ ws *websocket.Conn }

func (d *daemon) dial() *peer {
	GinkgoHelper()
	ws, _, err := websocket.DefaultDialer.Dial(d.url+wsrpc.Path, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ws.Close)
	return &peer{ws: ws}
}

func (p *peer) send(text string) {
	GinkgoHelper()
	Expect(p.ws.WriteMessage(websocket.TextMessage, []byte(text))).To(Succeed())
}

// read returns the next message decoded: an object or an array.
func (p *peer) read() any {
	GinkgoHelper()
	Expect(p.ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	typ, data, err := p.ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	Expect(typ).To(Equal(websocket.TextMessage))
	var v any
	Expect(json.Unmarshal(data, &v)).To(Succeed())
	return v
}

func (p *peer) call(text string) msg {
	GinkgoHelper()
	p.send(text)
	return p.read().(msg)
}

func (p *peer) open(caps string) msg {
	GinkgoHelper()
	return p.call(`{"jsonrpc":"2.0","id":1,"method":"session.open","params":{"client":"sync","version":"spec","protocol":1,"minCompatible":1,"capabilities":` + caps + `}}`)
}

// quiet asserts nothing arrives for a moment.
func (p *peer) quiet() {
	GinkgoHelper()
	Expect(p.ws.SetReadDeadline(time.Now().Add(200 * time.Millisecond))).To(Succeed())
	_, data, err := p.ws.ReadMessage()
	Expect(err).To(HaveOccurred(), "unexpected message %s", data)
}

var v020 = release.Features{Version: "v0.2.0", Push: true}

var _ = Describe("Host", func() {
	It("opens a session and echoes the declared capabilities it accepts", func() {
		d := startHost(v020)
		res := d.dial().open(`["push","telepathy"]`)["result"].(msg)
		Expect(res["capabilities"]).To(Equal([]any{"push"}))
		Expect(res).To(HaveKeyWithValue("server", "v0.2.0"))
		Expect(d.obs.Named(host.ObsSessionOpened)).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("declared", []any{"push", "telepathy"}), HaveKeyWithValue("accepted", []any{"push"}))))
	})

	It("accepts nothing before push shipped (v0.1.0)", func() {
		d := startHost(release.Features{Version: "v0.1.0"})
		Expect(d.dial().open(`["push"]`)["result"].(msg)["capabilities"]).To(BeEmpty())
	})

	It("answers a method before session.open with an error reply", func() {
		p := startHost(v020).dial()
		rsp := p.call(`{"jsonrpc":"2.0","id":7,"method":"notes.list"}`)
		Expect(rsp["error"].(msg)["code"]).To(BeEquivalentTo(-32003))
	})

	It("refuses a client outside its protocol window, with its window in the error's data", func() {
		d := startHost(release.Features{Version: "v9", Protocol: 2, MinCompatible: 2})
		rsp := d.dial().open(`[]`)
		e := rsp["error"].(msg)
		Expect(e["code"]).To(BeEquivalentTo(-32010))
		Expect(e["data"]).To(Equal(msg{"protocol": 2.0, "minCompatible": 2.0}))
		Expect(d.obs.Named(host.ObsRefusedPeer)).To(HaveLen(1))
	})

	It("answers notes.get of an unknown id with code -32004", func() {
		p := startHost(v020).dial()
		p.open(`[]`)
		e := p.call(`{"jsonrpc":"2.0","id":2,"method":"notes.get","params":{"id":"nope"}}`)["error"].(msg)
		Expect(e["code"]).To(BeEquivalentTo(-32004))
	})

	It("answers a batch with one array, in order, and stores every note", func() {
		d := startHost(v020)
		p := d.dial()
		p.open(`[]`)
		p.send(`[{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"a","text":"A"}},` +
			`{"jsonrpc":"2.0","id":3,"method":"notes.put","params":{"id":"b","text":"B"}}]`)
		rsps := p.read().([]any)
		Expect(rsps).To(HaveLen(2))
		Expect(rsps[0].(msg)["id"]).To(BeEquivalentTo(2))
		Expect(rsps[1].(msg)["result"].(msg)["id"]).To(Equal("b"))
		Expect(d.obs.Named(host.ObsStored)).To(ConsistOf(
			HaveKeyWithValue("text", "A"), HaveKeyWithValue("text", "B")))
	})

	It("reports a method it does not serve as refused: answered for a call, silent for a notification", func() {
		d := startHost(v020)
		p := d.dial()
		p.open(`[]`)
		rsp := p.call(`{"jsonrpc":"2.0","id":2,"method":"notes.search","params":{"query":"x"}}`)
		Expect(rsp["error"].(msg)["code"]).To(BeEquivalentTo(-32601))
		p.send(`{"jsonrpc":"2.0","method":"notes.typing"}`)
		p.quiet()
		Expect(d.obs.Named(host.ObsRefused)).To(ConsistOf(
			SatisfyAll(HaveKeyWithValue("type", "notes.search"), HaveKeyWithValue("silent", false)),
			SatisfyAll(HaveKeyWithValue("type", "notes.typing"), HaveKeyWithValue("silent", true))))
	})

	Describe("push", func() {
		It("sends notes.changed with the text to a session that negotiated push, never to the writer", func() {
			d := startHost(v020)
			pusher, writer, other := d.dial(), d.dial(), d.dial()
			pusher.open(`["push"]`)
			writer.open(`["push"]`)
			other.open(`[]`)
			writer.call(`{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"n","text":"hello"}}`)
			got := pusher.read().(msg)
			Expect(got).To(HaveKeyWithValue("method", "notes.changed"))
			Expect(got).NotTo(HaveKey("id"))
			Expect(got["params"]).To(Equal(msg{"id": "n", "text": "hello", "rev": 1.0, "cursor": 1.0}))
			writer.quiet()
			other.quiet()
		})

		It("leaves the text out for everyone in v0.3.0 (slim push, the bug)", func() {
			d := startHost(release.Features{Version: "v0.3.0", Push: true, Tags: true, SlimPush: true})
			p := d.dial()
			p.open(`["push"]`)
			d.h.Edit("n", "hello", []string{"t"})
			Expect(p.read().(msg)["params"]).To(Equal(msg{"id": "n", "tags": []any{"t"}, "rev": 1.0, "cursor": 1.0}))
		})

		It("leaves the text out only for sessions that declared slimPush (worktree)", func() {
			d := startHost(release.Features{Version: "worktree", Push: true, Tags: true, SlimPush: true, SlimPushNegotiated: true})
			slim, full := d.dial(), d.dial()
			Expect(slim.open(`["push","slimPush"]`)["result"].(msg)["capabilities"]).To(Equal([]any{"push", "slimPush"}))
			full.open(`["push"]`)
			d.h.Edit("n", "hello", nil)
			Expect(slim.read().(msg)["params"]).NotTo(HaveKey("text"))
			Expect(full.read().(msg)["params"]).To(HaveKeyWithValue("text", "hello"))
		})

		It("pushes to a session that did not negotiate it with pushUngated (the negative control)", func() {
			d := startHost(release.Features{Version: "worktree", Push: true, PushUngated: true})
			p := d.dial()
			Expect(p.open(`[]`)["result"].(msg)["capabilities"]).To(BeEmpty())
			d.h.Edit("n", "hello", nil)
			Expect(p.read().(msg)).To(HaveKeyWithValue("method", "notes.changed"))
		})
	})

	It("stops publishing rev with hideRev (the negative control)", func() {
		d := startHost(release.Features{Version: "worktree", HideRev: true})
		p := d.dial()
		p.open(`[]`)
		d.h.Edit("n", "hello", nil)
		res := p.call(`{"jsonrpc":"2.0","id":2,"method":"notes.get","params":{"id":"n"}}`)["result"].(msg)
		Expect(res).To(Equal(msg{"id": "n", "text": "hello"}))
	})

	It("keeps tags from v0.3.0 on and ignores them before", func() {
		for _, f := range []release.Features{{Version: "v0.2.0"}, {Version: "v0.3.0", Tags: true}} {
			p := startHost(f).dial()
			p.open(`[]`)
			p.call(`{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"n","text":"x","tags":["a"]}}`)
			res := p.call(`{"jsonrpc":"2.0","id":3,"method":"notes.get","params":{"id":"n"}}`)["result"].(msg)
			if f.Tags {
				Expect(res).To(HaveKeyWithValue("tags", []any{"a"}))
			} else {
				Expect(res).NotTo(HaveKey("tags"))
			}
		}
	})

	Describe("asynchronous traffic", func() {
		It("pushes notes.notice in its own message right after each reply with noticeAfterReply, a batch's too", func() {
			d := startHost(release.Features{Version: "worktree", NoticeAfterReply: true})
			p := d.dial()
			Expect(p.open(`[]`)).To(HaveKey("result"))
			Expect(p.read()).To(Equal(msg{"jsonrpc": "2.0", "method": "notes.notice", "params": msg{"seq": 1.0}}))
			p.send(`[{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"a","text":"A"}},` +
				`{"jsonrpc":"2.0","id":3,"method":"notes.get","params":{"id":"nope"}}]`)
			Expect(p.read()).To(HaveLen(2))
			Expect(p.read()).To(HaveKeyWithValue("params", msg{"seq": 2.0}))
			p.send(`{"jsonrpc":"2.0","method":"notes.ack","params":{"of":"notes.notice","seq":2}}`)
			p.quiet() // a notification is not answered, so nothing is noticed
			Expect(d.obs.Named(host.ObsAcked)).To(ConsistOf(HaveKeyWithValue("seq", 2.0)))
			Expect(d.obs.Named(host.ObsRefused)).To(BeEmpty())
		})

		It("sends no notice without the switch, and takes an acknowledgement all the same", func() {
			d := startHost(v020)
			p := d.dial()
			p.open(`[]`)
			p.send(`{"jsonrpc":"2.0","method":"notes.ack","params":{"of":"notes.notice","seq":1}}`)
			p.quiet()
			Expect(d.obs.Named(host.ObsAcked)).To(HaveLen(1))
			Expect(d.obs.Named(host.ObsRefused)).To(BeEmpty())
		})
	})

	Describe("keepalive", func() {
		keepalive := msg{"jsonrpc": "2.0", "method": "notes.keepalive"}

		It("sends notes.keepalive, without params, after session.open's reply to a session that negotiated it, and to no other", func() {
			f := release.Features{Version: "worktree", KeepaliveKnown: true, Keepalive: true}
			d := startHost(f)
			kept, other := d.dial(), d.dial()
			// open reads the first message: the reply comes before any keepalive.
			Expect(kept.open(`["keepalive"]`)["result"].(msg)["capabilities"]).To(Equal([]any{"keepalive"}))
			Expect(other.open(`[]`)["result"].(msg)["capabilities"]).To(BeEmpty())
			for range 3 {
				Expect(kept.read()).To(Equal(keepalive))
			}
			// A call in between is answered as ever; keepalives go on around its reply.
			kept.send(`{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"n","text":"x"}}`)
			Eventually(kept.read).Should(HaveKey("result"))
			Expect(kept.read()).To(Equal(keepalive))
			other.quiet()
		})

		It("accepts no keepalive capability and sends nothing without the switch (the negative control)", func() {
			d := startHost(release.Features{Version: "worktree", KeepaliveKnown: true})
			p := d.dial()
			Expect(p.open(`["keepalive"]`)["result"].(msg)["capabilities"]).To(BeEmpty())
			p.quiet()
		})

		It("ends a session's keepalives with its connection: Close returns, and the peer reads the end", func() {
			d := startHost(release.Features{Version: "worktree", KeepaliveKnown: true, Keepalive: true})
			p := d.dial()
			p.open(`["keepalive"]`)
			Expect(p.read()).To(Equal(keepalive))
			d.h.Close() // waits for every connection, its keepalive loop included
			Expect(p.ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
			var err error
			for err == nil {
				_, _, err = p.ws.ReadMessage() // a keepalive may still be on its way
			}
			var timeout net.Error
			Expect(errors.As(err, &timeout) && timeout.Timeout()).To(BeFalse(), "the connection ended: %v", err)
		})
	})

	It("closes every connection on Close", func() {
		d := startHost(v020)
		p := d.dial()
		p.open(`[]`)
		d.h.Close()
		Expect(p.ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, _, err := p.ws.ReadMessage()
		Expect(err).To(HaveOccurred())
	})
})
