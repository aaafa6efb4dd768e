package session_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/gorilla/websocket"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// fakeDaemon answers any hello with a fixed serverInfo, without checking anything, and
// reports the close code the client ends with.
type fakeDaemon struct {
	url       string
	closeCode chan int
}

func newFakeDaemon(info session.ServerInfo) *fakeDaemon {
	GinkgoHelper()
	f := &fakeDaemon{closeCode: make(chan int, 1)}
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		b, _ := session.Encode(info)
		for {
			_, msg, err := ws.ReadMessage()
			if ce, ok := err.(*websocket.CloseError); ok {
				f.closeCode <- ce.Code
			}
			if err != nil {
				return
			}
			if strings.Contains(string(msg), `"type":"hello"`) {
				_ = ws.WriteMessage(websocket.TextMessage, b)
			}
		}
	}))
	DeferCleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		wg.Wait()
	})
	f.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return f
}
