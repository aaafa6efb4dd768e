package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gleak"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// Releases as history.yaml ships them, reduced to what the session package reads.
func releaseOf(version string) release.Features {
	f := release.Features{
		Version: version, SessionProtocol: 1, SessionMinCompatible: 1, ServerRequests: true,
		CommandVersions: map[string][]int{"ping": {1}, "workspace.open": {1}, "review.start": {1}},
	}
	switch version {
	case "v1.4.120":
	case "v1.4.150":
		f.Attention = true
	case "v1.4.157":
		f.Attention, f.RoundProgressSeq = true, true
		f.CommandVersions["review.start"] = []int{1, 2}
	case "v1.4.166-like": // any release with attention, gated presence, before protocol 2
		f.Attention, f.RoundProgressSeq = true, true
		f.CommandVersions["review.start"] = []int{1, 2}
	case "v1.4.165":
		f.Attention, f.RoundProgressSeq, f.PresenceUngated = true, true, true
		f.CommandVersions["review.start"] = []int{1, 2}
	case "v1.4.185", "worktree":
		f.Attention, f.RoundProgressSeq = true, true
		f.SessionProtocol, f.SessionMinCompatible = 2, 2
		f.CommandVersions["review.start"] = []int{1, 2}
	default:
		Fail("no release " + version + " in the spec table")
	}
	return f
}

// recorder collects a peer's events.
type recorder struct {
	mu     sync.Mutex
	events []session.Event
}

func (r *recorder) Observe(e session.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Names lists the event names seen so far, in order.
func (r *recorder) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.events))
	for i, e := range r.events {
		out[i] = e.Name
	}
	return out
}

// Find returns the data of every event with the given name.
func (r *recorder) Find(name string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, e := range r.events {
		if e.Name == name {
			out = append(out, e.Data)
		}
	}
	return out
}

// pairing is a daemon of one release behind a loopback HTTP server, the way the host
// mounts it, and the recorders of both peers.
type pairing struct {
	daemon    *session.Daemon
	url       string
	hostObs   *recorder
	clientObs *recorder
}

// startDaemon serves a daemon of rel at /session on loopback and tears it all down after the
// spec, checking that no goroutine outlives it.
func startDaemon(rel release.Features) *pairing {
	GinkgoHelper()
	checkLeaks()
	p := &pairing{hostObs: &recorder{}, clientObs: &recorder{}}
	d, err := session.NewDaemon(rel, session.DaemonOptions{Observer: p.hostObs})
	Expect(err).NotTo(HaveOccurred())
	mux := http.NewServeMux()
	mux.Handle("/session", d)
	srv := httptest.NewServer(mux)
	DeferCleanup(func() {
		Expect(d.Close()).To(Succeed())
		srv.Close()
	})
	p.daemon = d
	p.url = "ws" + strings.TrimPrefix(srv.URL, "http") + "/session"
	return p
}

// checkLeaks fails the spec if a goroutine started after this call outlives the spec's
// other cleanups.
func checkLeaks() {
	before := Goroutines()
	DeferCleanup(func() {
		Eventually(Goroutines).ShouldNot(HaveLeaked(before))
	})
}

func (p *pairing) dial(ctx context.Context, rel release.Features, opts session.ClientOptions) *session.Client {
	GinkgoHelper()
	opts.Observer = p.clientObs
	c, err := session.Dial(ctx, p.url, rel, opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return c
}

// rawDial connects without the Client, to send frames a real client never would.
func (p *pairing) rawDial(ctx context.Context) *websocket.Conn {
	GinkgoHelper()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, p.url, nil)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ws.Close)
	return ws
}

func rawSend(ws *websocket.Conn, f session.Frame) {
	GinkgoHelper()
	b, err := session.Encode(f)
	Expect(err).NotTo(HaveOccurred())
	Expect(ws.WriteMessage(websocket.TextMessage, b)).To(Succeed())
}

func rawRead(ws *websocket.Conn) session.Frame {
	GinkgoHelper()
	_, b, err := ws.ReadMessage()
	Expect(err).NotTo(HaveOccurred())
	f, err := session.DecodeStrict(b)
	Expect(err).NotTo(HaveOccurred())
	return f
}
