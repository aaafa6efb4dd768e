package recording_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/recording"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("A standalone tap", func() {
	It("keeps every message of a product's own client and host, both ways, until it is stopped", func(ctx SpecContext) {
		// The product's host: answers each message with "ack:" and the message.
		host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer c.Close()
			for {
				mt, data, err := c.ReadMessage()
				if err != nil {
					return
				}
				if c.WriteMessage(mt, append([]byte("ack:"), data...)) != nil {
					return
				}
			}
		}))
		defer host.Close()

		dir := filepath.Join(GinkgoT().TempDir(), "rec")
		urls := make(chan string, 1)
		tctx, stop := context.WithCancel(ctx)
		defer stop()
		var out bytes.Buffer
		done := make(chan *transcript.Transcript, 1)
		go func() {
			defer GinkgoRecover()
			t, err := recording.Run(tctx, recording.Config{Listen: "127.0.0.1:0", Upstream: "ws://" + strings.TrimPrefix(host.URL, "http://"),
				Dir: dir, Label: "v1.0.0", Ready: func(u string) { urls <- u }, Stdout: &out})
			Expect(err).NotTo(HaveOccurred())
			done <- t
		}()

		// The product's own client, pointed at the tap.
		var url string
		Eventually(urls).Should(Receive(&url))
		c, _, err := websocket.DefaultDialer.DialContext(ctx, url+"/rpc", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello"}`))).To(Succeed())
		_, reply, err := c.ReadMessage()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(reply)).To(Equal(`ack:{"type":"hello"}`))
		Expect(c.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3})).To(Succeed())
		_, _, err = c.ReadMessage()
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Close()).To(Succeed())
		stop()

		var t *transcript.Transcript
		Eventually(done).Should(Receive(&t))
		var data []string
		for _, f := range t.Frames {
			if f.Control == "" {
				data = append(data, f.Dir+" "+f.Path+" "+string(f.Data))
			}
		}
		Expect(data).To(Equal([]string{`C>H /rpc {"type":"hello"}`, `H>C /rpc ack:{"type":"hello"}`, "C>H /rpc \x01\x02\x03", "H>C /rpc ack:\x01\x02\x03"}))
		Expect(t.Host.Label).To(Equal("v1.0.0"))
		saved, err := transcript.Load(dir)
		Expect(err).NotTo(HaveOccurred(), "written where skewtest transcript, contract decode and infer read it")
		Expect(saved.Frames).To(HaveLen(len(t.Frames)))
		Expect(out.String()).To(ContainSubstring("tap: connection 1 open /rpc"))
		Expect(out.String()).To(MatchRegexp(`tap: \d+ messages on 1 connections recorded in `))
	})

	It("refuses an upstream that is no WebSocket URL, as a usage error", func(ctx SpecContext) {
		_, err := recording.Run(ctx, recording.Config{Listen: "127.0.0.1:0", Upstream: "http://x", Dir: GinkgoT().TempDir()})
		Expect(err).To(MatchError(ContainSubstring("want ws://, wss://, tcp:// or tls://host:port")))
		_, err = recording.Run(ctx, recording.Config{Listen: "127.0.0.1:0", Upstream: "tls://127.0.0.1:1", Dir: GinkgoT().TempDir()})
		Expect(err).To(MatchError(ContainSubstring("a standalone tap cannot end the product's TLS")))
	})

	It("records a TCP product's lines as messages, filed under the path it is given", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if _, err := io.WriteString(c, "ack:"+line); err != nil {
					return
				}
			}
		}()
		urls := make(chan string, 1)
		tctx, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan *transcript.Transcript, 1)
		go func() {
			defer GinkgoRecover()
			t, err := recording.Run(tctx, recording.Config{Listen: "127.0.0.1:0", Upstream: "tcp://" + ln.Addr().String(),
				Stream: tap.Stream{Framing: tap.FramingLines, Path: "/rpc", Text: true}, Dir: GinkgoT().TempDir(), Ready: func(u string) { urls <- u }})
			Expect(err).NotTo(HaveOccurred())
			done <- t
		}()
		var url string
		Eventually(urls).Should(Receive(&url))
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
		Expect(err).NotTo(HaveOccurred())
		_, err = io.WriteString(c, "one\ntwo\n")
		Expect(err).NotTo(HaveOccurred())
		r := bufio.NewReader(c)
		Expect(r.ReadString('\n')).To(Equal("ack:one\n"))
		Expect(r.ReadString('\n')).To(Equal("ack:two\n"))
		Expect(c.Close()).To(Succeed())
		stop()
		var t *transcript.Transcript
		Eventually(done).Should(Receive(&t))
		var data []string
		for _, f := range t.Frames {
			if f.Control == "" && f.Dir == "C>H" {
				data = append(data, f.Path+" "+string(f.Data))
			}
		}
		Expect(data).To(Equal([]string{"/rpc one", "/rpc two"}))
	})
})
