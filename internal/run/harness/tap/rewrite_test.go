package tap_test

import (
	"bytes"
	"context"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// upper rewrites client-to-host messages that start with "x" to upper case.
type upper struct{}

func (upper) Rewrite(f tap.Frame) ([]byte, string, bool) {
	if f.Dir != tap.ClientToHost || !bytes.HasPrefix(f.Data, []byte("x")) {
		return nil, "", false
	}
	return bytes.ToUpper(f.Data), "upper-cased", true
}

var _ = Describe("Proxy with a rewriter", func() {
	It("forwards and records the rewrite, keeps the sender's bytes, and leaves other messages alone", func(ctx SpecContext) {
		rec := &recording{}
		h := host()
		p, err := tap.Start(ctx, h.URL, rec, tap.WithRewriter(upper{}))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		ws := dial(ctx, p.URL()+"/echo")
		read(ws) // the request URI
		for _, m := range []string{"xyz", "abc"} {
			Expect(ws.WriteMessage(websocket.TextMessage, []byte(m))).To(Succeed())
		}
		_, got := read(ws)
		Expect(string(got)).To(Equal("XYZ"), "the host got the rewrite")
		_, got = read(ws)
		Expect(string(got)).To(Equal("abc"), "a message the rewriter declines goes on unchanged")

		var c2h []tap.Frame
		for _, f := range rec.Frames() {
			if f.Dir == tap.ClientToHost && f.Control == "" {
				c2h = append(c2h, f)
			}
		}
		Expect(c2h).To(HaveLen(2))
		Expect(string(c2h[0].Data)).To(Equal("XYZ"))
		Expect(string(c2h[0].Original)).To(Equal("xyz"))
		Expect(c2h[0].Rewrite).To(Equal("upper-cased"))
		Expect(c2h[1].Original).To(BeNil())
		Expect(c2h[1].Rewrite).To(BeEmpty())
	})
})

var _ = Describe("Proxy started with a context that has ended", func() {
	It("closes at once, however Start and its Close meet (make race checks they share nothing unguarded), and Close again returns", func(ctx SpecContext) {
		h := host()
		for range 20 {
			ended, cancel := context.WithCancel(ctx)
			cancel()
			p, err := tap.Start(ended, h.URL, &recording{})
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() error {
				_, _, err := websocket.DefaultDialer.DialContext(ctx, p.URL()+"/echo", nil)
				return err
			}).Should(HaveOccurred(), "the tap closed with its context")
			Expect(p.Close()).To(Succeed())
		}
	})
})
