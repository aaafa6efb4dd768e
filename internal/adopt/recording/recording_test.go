package recording_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
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
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/declare/usage"
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
		Expect(out.String()).To(MatchRegexp(`tap: \d+ messages on 1 connection recorded in `))
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

	Describe("a binary, little-endian, length-prefixed TCP product", func() {
		// packet is a version byte 1, a type byte, a u16le length of the payload, a u32le
		// stream id, then the payload.
		packet := func(typ byte, stream uint32, payload string) []byte {
			b := []byte{1, typ}
			b = binary.LittleEndian.AppendUint16(b, uint16(len(payload)))
			b = binary.LittleEndian.AppendUint32(b, stream)
			return append(b, payload...)
		}
		// record taps an echo host with c while a client writes packets a byte at a time,
		// and returns the recorded C>H messages as "path % x".
		record := func(ctx SpecContext, c recording.Config, packets ...[]byte) []string {
			GinkgoHelper()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
			urls := make(chan string, 1)
			tctx, stop := context.WithCancel(ctx)
			defer stop()
			done := make(chan *transcript.Transcript, 1)
			c.Listen, c.Upstream, c.Dir, c.Ready = "127.0.0.1:0", "tcp://"+ln.Addr().String(), GinkgoT().TempDir(), func(u string) { urls <- u }
			go func() {
				defer GinkgoRecover()
				t, err := recording.Run(tctx, c)
				Expect(err).NotTo(HaveOccurred())
				done <- t
			}()
			var url string
			Eventually(urls).Should(Receive(&url))
			conn, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
			Expect(err).NotTo(HaveOccurred())
			wire := bytes.Join(packets, nil)
			for _, b := range wire {
				_, err := conn.Write([]byte{b})
				Expect(err).NotTo(HaveOccurred())
			}
			echo := make([]byte, len(wire))
			_, err = io.ReadFull(conn, echo)
			Expect(err).NotTo(HaveOccurred())
			Expect(echo).To(Equal(wire), "the host gets the client's bytes")
			Expect(conn.Close()).To(Succeed())
			stop()
			var t *transcript.Transcript
			Eventually(done).Should(Receive(&t))
			var out []string
			for _, f := range t.Frames {
				if f.Control == "" && f.Dir == "C>H" {
					Expect(f.Binary).To(BeTrue())
					out = append(out, fmt.Sprintf("%s % x", f.Path, f.Data))
				}
			}
			return out
		}
		packets := [][]byte{packet(1, 7, "hello"), packet(2, 7, ""), packet(3, 9, "abc")}
		var want []string
		for _, p := range packets {
			want = append(want, fmt.Sprintf("/ % x", p))
		}

		It("records each packet whole, cut by its u16le length at byte 2 of an 8-byte header, with no contract and no path", func(ctx SpecContext) {
			Expect(record(ctx, recording.Config{Stream: tap.Stream{Framing: tap.FramingU16LE, Length: framing.Length{Offset: 2, Header: 8}}}, packets...)).To(Equal(want))
		})

		It("records the same packets with --framing packets, cut where a contract's stream codec says, under its channel's path", func(ctx SpecContext) {
			c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},"channels":[{"name":"wire","paths":["/wire"],
				"binary":{"header":{"length":8,"fields":[{"name":"version","offset":0,"encoding":"u8","value":1},{"name":"type","offset":1,"encoding":"u8"},
				{"name":"length","offset":2,"encoding":"u16le"},{"name":"stream","offset":4,"encoding":"u32le"}]},"stream":true},"frames":[]}]}`))
			Expect(err).NotTo(HaveOccurred())
			got := record(ctx, recording.Config{Stream: tap.Stream{Framing: tap.FramingPackets}, Contract: c}, packets...)
			Expect(got).To(Equal([]string{"/wire " + strings.TrimPrefix(want[0], "/ "), "/wire " + strings.TrimPrefix(want[1], "/ "), "/wire " + strings.TrimPrefix(want[2], "/ ")}))
		})

		It("refuses packets without a contract that says where they end, and a length inside a header of a framing without one (negative controls)", func(ctx SpecContext) {
			run := func(s tap.Stream, c *contract.Contract) error {
				_, err := recording.Run(ctx, recording.Config{Listen: "127.0.0.1:0", Upstream: "tcp://127.0.0.1:1", Stream: s, Contract: c, Dir: GinkgoT().TempDir()})
				Expect(usage.Is(err)).To(BeTrue(), "%v", err)
				return err
			}
			Expect(run(tap.Stream{Framing: tap.FramingPackets}, nil)).To(MatchError(ContainSubstring("Stream.Framing packets cuts where a contract's stream codec says each packet ends: give that contract")))
			noLength, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},"channels":[{"name":"wire","paths":["/wire"],
				"binary":{"header":{"length":2,"fields":[{"name":"type","offset":1,"encoding":"u8"}]}},"frames":[]}]}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(run(tap.Stream{Framing: tap.FramingPackets}, noLength)).To(MatchError(ContainSubstring("packets: the contract's channel wire cannot say where a packet ends")))
			Expect(run(tap.Stream{Framing: tap.FramingPackets, Path: "/other"}, noLength)).To(MatchError(ContainSubstring("Stream.Path /other: no channel of the contract serves it")))
			Expect(run(tap.Stream{Framing: tap.FramingVarint, Length: framing.Length{Offset: 2}}, nil)).To(MatchError(ContainSubstring("Stream.Length.Offset a length inside a header needs a fixed-width length framing")))
		})
	})
})
