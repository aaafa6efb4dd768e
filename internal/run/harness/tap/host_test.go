package tap_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// testHost is a small WebSocket server standing in for a host. Paths:
//
//	/echo    sends its request URI as a text message, then echoes
//	/close   closes with 4001 "bye" after the first message
//	/flood   ?n=N: sends N text messages "h0".. while echoing nothing
//	/sink    ?n=N: reads N messages, then sends "done"
//	/reject  answers 404 without upgrading
//
// Every connection's final read error goes to ends.
type testHost struct {
	srv  *httptest.Server
	URL  string // ws://127.0.0.1:PORT
	ends chan error

	mu     sync.Mutex
	closed bool
	conns  []*websocket.Conn
	wg     sync.WaitGroup
}

func newTestHost() *testHost {
	h := &testHost{ends: make(chan error, 64)}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	h.URL = "ws" + strings.TrimPrefix(h.srv.URL, "http")
	return h
}

// Close stops the server and waits for its handlers, which httptest does
// not do for hijacked connections.
func (h *testHost) Close() {
	h.srv.Close()
	h.mu.Lock()
	h.closed = true
	for _, c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	h.wg.Wait()
}

var upgrader = websocket.Upgrader{Subprotocols: []string{"v1"}}

func (h *testHost) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/reject" {
		http.NotFound(w, r)
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()

	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	h.mu.Lock()
	h.conns = append(h.conns, ws)
	h.mu.Unlock()
	defer ws.Close()
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))

	switch r.URL.Path {
	case "/echo":
		if ws.WriteMessage(websocket.TextMessage, []byte(r.URL.RequestURI())) != nil {
			break
		}
		for {
			mt, data, err := ws.ReadMessage()
			if err != nil {
				h.end(err)
				return
			}
			if ws.WriteMessage(mt, data) != nil {
				break
			}
		}
	case "/close":
		if _, _, err := ws.ReadMessage(); err != nil {
			h.end(err)
			return
		}
		_ = ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4001, "bye"))
	case "/flood":
		h.wg.Go(func() { // the one writer; ws.Close ends it
			for i := range n {
				if ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, "h%d", i)) != nil {
					return
				}
			}
		})
	case "/sink":
		for range n {
			if _, _, err := ws.ReadMessage(); err != nil {
				h.end(err)
				return
			}
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte("done"))
	}
	for { // until the peer goes
		if _, _, err := ws.ReadMessage(); err != nil {
			h.end(err)
			return
		}
	}
}

func (h *testHost) end(err error) {
	select {
	case h.ends <- err:
	default:
	}
}
