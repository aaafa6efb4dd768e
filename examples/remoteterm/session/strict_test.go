package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// rawDaemon answers any hello with the bytes of info as given (a later release's serverInfo).
func rawDaemon(info string) string {
	GinkgoHelper()
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if strings.Contains(string(msg), `"type":"hello"`) {
				_ = ws.WriteMessage(websocket.TextMessage, []byte(info))
			}
		}
	}))
	DeferCleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		wg.Wait()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// A serverInfo as a later daemon may send it: a field and a feature this build does not know.
const futureInfo = `{"type":"serverInfo","appVersion":"v9","protocolVersion":2,"minCompatibleProtocolVersion":2,` +
	`"features":{"serverRequests":true,"laterFeature":true},"commands":{"ping":[1,2]},"laterField":{"x":1}}`

var _ = Describe("the strictSessionDecoder switch (a negative control for the future-peer pass)", func() {
	It("a client without it takes what a later daemon may add", func(ctx SpecContext) {
		checkLeaks()
		c, err := session.Dial(ctx, rawDaemon(futureInfo), releaseOf("worktree"), session.ClientOptions{Observer: &recorder{}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		info, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.AppVersion).To(Equal("v9"))
	}, SpecTimeout(5e9))

	It("a client with it refuses the frame for its unknown key", func(ctx SpecContext) {
		checkLeaks()
		rel := releaseOf("worktree")
		rel.StrictSessionDecoder = true
		obs := &recorder{}
		c, err := session.Dial(ctx, rawDaemon(futureInfo), rel, session.ClientOptions{Observer: obs})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		hctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := c.Hello(hctx); done <- err }()
		Eventually(func() []map[string]any { return obs.Find(session.EventRefused) }).Should(ContainElement(SatisfyAll(
			HaveKeyWithValue("type", "serverInfo"), HaveKeyWithValue("reason", ContainSubstring("unknown key")))))
		cancel()
		Eventually(done).Should(Receive(HaveOccurred()), "the refused serverInfo never answers the hello")
	}, SpecTimeout(5e9))
})
