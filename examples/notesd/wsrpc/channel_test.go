package wsrpc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// pair connects a client WebSocket to a server one and returns both, wrapped.
func pair() (client, server *wsrpc.Channel, serverConn *websocket.Conn) {
	GinkgoHelper()
	got := make(chan *websocket.Conn, 1)
	var up websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err == nil {
			got <- c
		}
	}))
	DeferCleanup(srv.Close)
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+wsrpc.Path, nil)
	Expect(err).NotTo(HaveOccurred())
	s := <-got
	client, server = wsrpc.New(c), wsrpc.New(s)
	DeferCleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server, s
}

var _ = Describe("Channel", func() {
	It("carries one record as one text message, both ways", func() {
		c, s, _ := pair()
		Expect(c.Send([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`))).To(Succeed())
		rec, err := s.Recv()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(HavePrefix(`[{"jsonrpc"`))
		Expect(s.Send([]byte(`{"jsonrpc":"2.0","id":1,"result":true}`))).To(Succeed())
		rec, err = c.Recv()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(Equal(`{"jsonrpc":"2.0","id":1,"result":true}`))
	})

	It("refuses a binary message", func() {
		c, _, s := pair()
		Expect(s.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})).To(Succeed())
		_, err := c.Recv()
		Expect(err).To(MatchError(wsrpc.ErrBinary))
	})

	It("ends with io.EOF when the peer closes, and closes once", func() {
		c, s, _ := pair()
		Expect(s.Close()).To(Succeed())
		Expect(s.Close()).To(Succeed())
		_, err := c.Recv()
		Expect(err).To(Equal(io.EOF))
		Expect(s.Send([]byte("{}"))).NotTo(Succeed())
	})

	It("carries jrpc2 calls and batches end to end", func(ctx SpecContext) {
		c, s, _ := pair()
		srv := jrpc2.NewServer(handler.Map{
			"add": handler.New(func(_ context.Context, xs []int) (int, error) { return xs[0] + xs[1], nil }),
		}, nil).Start(s)
		DeferCleanup(srv.Stop)
		cli := jrpc2.NewClient(c, nil)
		DeferCleanup(cli.Close)
		var sum int
		Expect(cli.CallResult(ctx, "add", []int{2, 3}, &sum)).To(Succeed())
		Expect(sum).To(Equal(5))
		rsps, err := cli.Batch(ctx, []jrpc2.Spec{{Method: "add", Params: []int{1, 1}}, {Method: "nope"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(rsps).To(HaveLen(2))
		Expect(rsps[0].ResultString()).To(Equal("2"))
		Expect(rsps[1].Error().Code).To(Equal(jrpc2.MethodNotFound))
	}, SpecTimeout(5e9))
})
