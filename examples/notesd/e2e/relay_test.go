package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// message is one WebSocket text message the relay forwarded.
type message struct {
	dir  string // "C>H" or "H>C"
	text string
}

// relay stands between clients and a host like skewtest's wire tap: it forwards every
// message and records it.
type relay struct {
	srv  *httptest.Server
	host string // the host's ws:// base URL

	mu    sync.Mutex
	msgs  []message
	conns []*websocket.Conn
	wg    sync.WaitGroup
}

func startRelay(hostURL string) *relay {
	r := &relay{host: hostURL}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

// url is the base URL clients dial.
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
		r.msgs = append(r.msgs, message{dir: dir, text: string(data)})
		r.mu.Unlock()
		if err := to.WriteMessage(typ, data); err != nil {
			return
		}
	}
}

func (r *relay) messages() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message(nil), r.msgs...)
}

// close stops the relay and waits for its pumps.
func (r *relay) close() {
	r.srv.Close()
	r.mu.Lock()
	for _, c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
