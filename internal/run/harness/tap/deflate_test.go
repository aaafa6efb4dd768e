package tap_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// counted is a connection that counts the bytes read from it: what crossed the wire.
type counted struct {
	net.Conn
	n *atomic.Int64
}

func (c counted) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return counted{c, l.n}, nil
}

var _ = Describe("permessage-deflate", func() {
	// compressingHost echoes one message on a connection that negotiates compression when
	// its client offers it, and counts the bytes it reads off the wire; offered gets the
	// extensions the tap offered it.
	compressingHost := func(offered chan<- string, enable ...bool) (string, *atomic.Int64) {
		read := &atomic.Int64{}
		up := websocket.Upgrader{EnableCompression: len(enable) == 0 || enable[0]}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			offered <- r.Header.Get("Sec-Websocket-Extensions")
			ws, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer ws.Close()
			mt, data, err := ws.ReadMessage()
			if err == nil {
				_ = ws.WriteMessage(mt, data)
			}
			_, _, _ = ws.ReadMessage() // until the client closes
		}))
		srv.Listener = countingListener{srv.Listener, read}
		srv.Start()
		DeferCleanup(srv.Close)
		return "ws" + strings.TrimPrefix(srv.URL, "http"), read
	}
	// echo sends msg through the tap and reads the echo, counting the client's wire bytes.
	echo := func(ctx context.Context, url string, compress bool, msg []byte) (*http.Response, int64) {
		read := &atomic.Int64{}
		d := websocket.Dialer{EnableCompression: compress, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return counted{c, read}, nil
		}}
		ws, resp, err := d.DialContext(ctx, url, nil)
		Expect(err).NotTo(HaveOccurred())
		defer ws.Close()
		Expect(ws.WriteMessage(websocket.TextMessage, msg)).To(Succeed())
		Expect(ws.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, got, err := ws.ReadMessage()
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(msg))
		return resp, read.Load()
	}
	msg := bytes.Repeat([]byte("compressible "), 5000) // 65,000 bytes

	It("is negotiated on both sides of the tap where the client offers it, and the frames are recorded as the peers read them", func(ctx SpecContext) {
		offered := make(chan string, 1)
		url, hostRead := compressingHost(offered)
		rec := &recording{}
		p := startTap(ctx, url, rec)
		resp, clientRead := echo(ctx, p.URL()+"/c", true, msg)

		Expect(<-offered).To(ContainSubstring(tap.Deflate), "the tap offered it to the host")
		Expect(resp.Header.Get("Sec-Websocket-Extensions")).To(ContainSubstring(tap.Deflate), "the tap accepted it from the client")
		// The message crossed both wires compressed: far fewer bytes than it holds.
		Expect(hostRead.Load()).To(BeNumerically("<", len(msg)/10))
		Expect(clientRead).To(BeNumerically("<", len(msg)/10))
		Eventually(rec.Frames).Should(HaveLen(2))
		for _, f := range rec.Frames() {
			Expect(f.Data).To(Equal(msg), "recorded decompressed")
		}
		Expect(rec.summary()).To(ContainElement("1 open " + tap.Deflate))
	})

	It("is not offered to the host where the client does not offer it (negative control)", func(ctx SpecContext) {
		offered := make(chan string, 1)
		url, hostRead := compressingHost(offered)
		rec := &recording{}
		p := startTap(ctx, url, rec)
		resp, clientRead := echo(ctx, p.URL()+"/c", false, msg)

		Expect(<-offered).To(BeEmpty())
		Expect(resp.Header.Get("Sec-Websocket-Extensions")).To(BeEmpty())
		Expect(hostRead.Load()).To(BeNumerically(">", len(msg)))
		Expect(clientRead).To(BeNumerically(">", len(msg)))
		Expect(rec.summary()).To(ContainElement("1 open "))
	})

	It("is not accepted from the client where the host does not accept it", func(ctx SpecContext) {
		offered := make(chan string, 1)
		url, _ := compressingHost(offered, false)
		p := startTap(ctx, url, &recording{})
		resp, clientRead := echo(ctx, p.URL()+"/c", true, msg)
		Expect(<-offered).To(ContainSubstring(tap.Deflate))
		Expect(resp.Header.Get("Sec-Websocket-Extensions")).To(BeEmpty(), "the client speaks to the host as the host allows")
		Expect(clientRead).To(BeNumerically(">", len(msg)))
	})
})
