package tap_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// tcpHost serves each connection with handle on a loopback port, over TLS when conf is set;
// it returns the port's address and waits for every handler at cleanup.
func tcpHost(conf *tls.Config, handle func(net.Conn)) string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	if conf != nil {
		ln = tls.NewListener(ln, conf)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	DeferCleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// lineEcho answers each line "re:" + line, and ends its side when the client ends its own.
func lineEcho(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := io.WriteString(c, "re:"+line); err != nil {
			return
		}
	}
}

// caFiles is the CA's files, by the variable that hands each to a driver.
func caFiles(ca *tap.CA) map[string]string {
	files := map[string]string{}
	for _, kv := range ca.Env() {
		k, v, _ := strings.Cut(kv, "=")
		files[k] = v
	}
	return files
}

func startStreamTap(ctx context.Context, upstream string, rec tap.Recorder, opts ...tap.Option) *tap.Proxy {
	GinkgoHelper()
	p, err := tap.Start(ctx, upstream, rec, opts...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	return p
}

func dialTCP(url string) net.Conn {
	GinkgoHelper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "tcp://"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	Expect(c.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
	return c
}

func dataFrames(rec *recording) []string {
	var out []string
	for _, f := range rec.Frames() {
		if f.Control == "" {
			out = append(out, string(f.Dir)+" "+string(f.Data))
		}
	}
	return out
}

var _ = Describe("Proxy over a byte stream", func() {
	It("cuts lines into messages whatever the writes, forwards the bytes exactly and files them under the stream's path", func(ctx SpecContext) {
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+tcpHost(nil, lineEcho), rec,
			tap.WithStream(tap.Stream{Framing: tap.FramingLines, Path: "/rpc", Text: true}))
		Expect(p.URL()).To(HavePrefix("tcp://127.0.0.1:"))
		c := dialTCP(p.URL())
		r := bufio.NewReader(c)
		_, err := io.WriteString(c, "one\ntw")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ReadString('\n')).To(Equal("re:one\n"))
		_, err = io.WriteString(c, "o\nthree\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ReadString('\n')).To(Equal("re:two\n"))
		Expect(r.ReadString('\n')).To(Equal("re:three\n"))

		// Each direction in order (how the two interleave is the peers' timing).
		var c2h, h2c []string
		for _, f := range dataFrames(rec) {
			if strings.HasPrefix(f, "C>H") {
				c2h = append(c2h, f)
			} else {
				h2c = append(h2c, f)
			}
		}
		Expect(c2h).To(Equal([]string{"C>H one", "C>H two", "C>H three"}))
		Expect(h2c).To(Equal([]string{"H>C re:one", "H>C re:two", "H>C re:three"}))
		for _, f := range rec.Frames() {
			Expect(f.Path).To(Equal("/rpc"))
			Expect(f.Binary).To(BeFalse())
		}
	}, NodeTimeout(20*time.Second))

	It("passes an orderly end on as a close, and the host's end back", func(ctx SpecContext) {
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+tcpHost(nil, lineEcho), rec, tap.WithStream(tap.Stream{Framing: tap.FramingLines}))
		c := dialTCP(p.URL())
		_, err := io.WriteString(c, "bye\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
		rest, err := io.ReadAll(c)
		Expect(err).NotTo(HaveOccurred(), "the host's end reaches the client as an end, not a reset")
		Expect(string(rest)).To(Equal("re:bye\n"))
		Eventually(rec.summary).WithContext(ctx).Should(Equal([]string{"1 open ", "1 close client ended its stream"}))
		var closes []tap.Direction
		for _, f := range rec.Frames() {
			if f.Control == tap.ControlClose {
				closes = append(closes, f.Dir)
				Expect(f.Data).To(BeEmpty())
			}
		}
		Expect(closes).To(Equal([]tap.Direction{tap.ClientToHost, tap.HostToClient}))
	}, NodeTimeout(20*time.Second))

	It("re-frames length-prefixed messages, fragmented into small writes, to the same bytes", func(ctx SpecContext) {
		for _, framing := range []string{tap.FramingU16BE, tap.FramingU32BE, tap.FramingU16LE, tap.FramingU32LE, tap.FramingVarint} {
			By(framing)
			got := make(chan []byte, 1)
			addr := tcpHost(nil, func(c net.Conn) {
				b, _ := io.ReadAll(c)
				got <- b
			})
			rec := &recording{}
			p := startStreamTap(ctx, "tcp://"+addr, rec, tap.WithStream(tap.Stream{Framing: framing}))
			p.Fragment(tap.ClientToHost, 3, 0)
			var wire []byte
			for _, m := range []string{"alpha", "", "a longer message of forty-odd bytes ...."} {
				switch framing {
				case tap.FramingU16BE:
					wire = binary.BigEndian.AppendUint16(wire, uint16(len(m)))
				case tap.FramingU32BE:
					wire = binary.BigEndian.AppendUint32(wire, uint32(len(m)))
				case tap.FramingU16LE:
					wire = binary.LittleEndian.AppendUint16(wire, uint16(len(m)))
				case tap.FramingU32LE:
					wire = binary.LittleEndian.AppendUint32(wire, uint32(len(m)))
				default:
					wire = binary.AppendUvarint(wire, uint64(len(m)))
				}
				wire = append(wire, m...)
			}
			c := dialTCP(p.URL())
			for _, b := range wire { // a byte a write: the messages recorded do not depend on it
				_, err := c.Write([]byte{b})
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
			Eventually(got).WithContext(ctx).Should(Receive(Equal(wire)))
			Expect(dataFrames(rec)).To(Equal([]string{"C>H alpha", "C>H ", "C>H a longer message of forty-odd bytes ...."}))
			Expect(rec.Frames()[0].Binary).To(BeTrue())
		}
	}, NodeTimeout(30*time.Second))

	Describe("a length inside a fixed header", func() {
		// sink serves a host that keeps what it is sent, and hands it over once the client
		// ends its side.
		sink := func() (string, chan []byte) {
			got := make(chan []byte, 1)
			return tcpHost(nil, func(c net.Conn) {
				b, _ := io.ReadAll(c)
				got <- b
			}), got
		}
		// packet is a version byte 1, a type byte, a u16le length, a u32le stream id, then the
		// payload; with whole, the length counts the 8-byte header too.
		packet := func(typ byte, stream uint32, payload string, whole bool) []byte {
			n := len(payload)
			if whole {
				n += 8
			}
			b := []byte{1, typ}
			b = binary.LittleEndian.AppendUint16(b, uint16(n))
			b = binary.LittleEndian.AppendUint32(b, stream)
			return append(b, payload...)
		}

		It("records each message whole, header and all, whatever the writes, and forwards the same bytes", func(ctx SpecContext) {
			for _, whole := range []bool{false, true} {
				By(fmt.Sprintf("the length counting the header: %t", whole))
				addr, got := sink()
				rec := &recording{}
				p := startStreamTap(ctx, "tcp://"+addr, rec, tap.WithStream(tap.Stream{Framing: tap.FramingU16LE,
					Length: framing.Length{Offset: 2, Header: 8, IncludesHeader: whole}}))
				p.Fragment(tap.ClientToHost, 3, 0)
				packets := [][]byte{packet(1, 7, "hello", whole), packet(2, 7, "", whole), packet(3, 9, strings.Repeat("x", 300), whole)}
				wire := bytes.Join(packets, nil)
				c := dialTCP(p.URL())
				for _, b := range wire { // a byte a write
					_, err := c.Write([]byte{b})
					Expect(err).NotTo(HaveOccurred())
				}
				Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
				Eventually(got).WithContext(ctx).Should(Receive(Equal(wire)))
				var want []string
				for _, pk := range packets {
					want = append(want, "C>H "+string(pk))
				}
				Expect(dataFrames(rec)).To(Equal(want))
			}
		}, NodeTimeout(30*time.Second))

		It("cuts the same messages however a seeded stream of packets is split into reads", func(ctx SpecContext) {
			seed := GinkgoRandomSeed()
			By(fmt.Sprintf("seed %d (ginkgo --seed reproduces it)", seed))
			rnd := rand.New(rand.NewPCG(uint64(seed), 36))
			for _, fr := range []string{tap.FramingU16LE, tap.FramingU32LE, tap.FramingU16BE, tap.FramingU32BE} {
				w := map[string]int{tap.FramingU16LE: 2, tap.FramingU16BE: 2}[fr]
				if w == 0 {
					w = 4
				}
				l := framing.Length{Offset: rnd.IntN(4), IncludesHeader: rnd.IntN(2) == 0}
				l.Header = l.Offset + w + rnd.IntN(5)
				By(fmt.Sprintf("%s, %s", fr, l.String(fr)))
				addr, got := sink()
				rec := &recording{}
				p := startStreamTap(ctx, "tcp://"+addr, rec, tap.WithStream(tap.Stream{Framing: fr, Length: l}))
				var wire []byte
				var want []string
				for range 20 {
					head := make([]byte, l.Header)
					for i := range head {
						head[i] = byte(rnd.IntN(256))
					}
					payload := make([]byte, rnd.IntN(600))
					for i := range payload {
						payload[i] = byte(rnd.IntN(256))
					}
					n := len(payload)
					if l.IncludesHeader {
						n += len(head)
					}
					lb := head[l.Offset:]
					switch fr {
					case tap.FramingU16LE:
						binary.LittleEndian.PutUint16(lb, uint16(n))
					case tap.FramingU32LE:
						binary.LittleEndian.PutUint32(lb, uint32(n))
					case tap.FramingU16BE:
						binary.BigEndian.PutUint16(lb, uint16(n))
					default:
						binary.BigEndian.PutUint32(lb, uint32(n))
					}
					pk := append(head, payload...)
					wire = append(wire, pk...)
					if !l.Whole(fr) {
						pk = payload // a bare prefix is not recorded
					}
					want = append(want, "C>H "+string(pk))
				}
				c := dialTCP(p.URL())
				for rest := wire; len(rest) > 0; {
					k := min(len(rest), 1+rnd.IntN(97))
					_, err := c.Write(rest[:k])
					Expect(err).NotTo(HaveOccurred())
					rest = rest[k:]
				}
				Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
				Eventually(got).WithContext(ctx).Should(Receive(Equal(wire)))
				Expect(dataFrames(rec)).To(Equal(want))
			}
		}, NodeTimeout(60*time.Second))

		DescribeTable("ends a connection whose bytes break the framing with an error, never a panic (negative controls)",
			func(ctx SpecContext, fr string, l framing.Length, sent []byte, why string) {
				addr, _ := sink()
				rec := &recording{}
				p := startStreamTap(ctx, "tcp://"+addr, rec, tap.WithStream(tap.Stream{Framing: fr, Length: l}))
				c := dialTCP(p.URL())
				_, err := c.Write(sent)
				Expect(err).NotTo(HaveOccurred())
				Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
				Eventually(rec.summary).WithContext(ctx).WithTimeout(10 * time.Second).Should(ContainElement(And(HavePrefix("1 close client"), ContainSubstring(why))))
				Expect(dataFrames(rec)).To(BeEmpty())
			},
			Entry("a length past the bound", tap.FramingU32LE, framing.Length{Offset: 2, Header: 8},
				[]byte{1, 1, 0xff, 0xff, 0xff, 0xff, 0, 0}, "a u32le length of 4294967295 bytes: not u32le framing?"),
			Entry("a length counting the header that is shorter than it", tap.FramingU16LE, framing.Length{Offset: 2, Header: 8, IncludesHeader: true},
				[]byte{1, 1, 5, 0, 0, 0, 0, 0}, "a u16le length of 5 bytes counting a 8-byte header"),
			Entry("an end inside the header", tap.FramingU16LE, framing.Length{Offset: 2, Header: 8},
				[]byte{1, 1, 5}, "closed inside a message (3 bytes inside a u16le 8-byte header)"),
			Entry("an end inside the payload", tap.FramingU16LE, framing.Length{Offset: 2, Header: 8},
				[]byte{1, 1, 5, 0, 0, 0, 0, 0, 'a', 'b'}, "closed inside a message (10 of 13 bytes)"),
			Entry("an end inside a bare prefix", tap.FramingU32LE, framing.Length{},
				[]byte{9, 0}, "closed inside a message (2 bytes inside a u32le length)"),
			Entry("an end inside the message after a bare prefix", tap.FramingU16LE, framing.Length{},
				[]byte{5, 0, 'a', 'b'}, "closed inside a message (2 of 5 bytes)"),
		)

		It("refuses a length that does not fit its framing", func(ctx SpecContext) {
			for _, c := range []struct {
				s   tap.Stream
				why string
			}{
				{tap.Stream{Framing: tap.FramingVarint, Length: framing.Length{Offset: 1}}, "tap framing varint: a length inside a header needs a fixed-width length framing (u16be, u32be, u16le, u32le)"},
				{tap.Stream{Framing: tap.FramingU32LE, Length: framing.Length{Offset: 2, Header: 4}}, "tap framing u32le: 4 bytes cannot hold a 4-byte length at byte 2: want at least 6"},
				{tap.Stream{Framing: tap.FramingU16LE, Length: framing.Length{Offset: -1}}, "tap framing u16le: -1: want the byte the length starts at"},
			} {
				_, err := tap.Start(ctx, "tcp://127.0.0.1:1", nil, tap.WithStream(c.s))
				Expect(err).To(MatchError(ContainSubstring(c.why)))
			}
		})
	})

	It("cuts packets where the protocol says they end, whatever the writes, and goes on raw after bytes that start none", func(ctx SpecContext) {
		got := make(chan []byte, 1)
		addr := tcpHost(nil, func(c net.Conn) {
			b, _ := io.ReadAll(c)
			got <- b
		})
		// A packet: a type byte (0xff is none), a length byte, that many bytes.
		end := func(dir tap.Direction, b []byte) (int, error) {
			Expect(dir).To(Equal(tap.ClientToHost))
			switch {
			case len(b) > 0 && b[0] == 0xff:
				return 0, errors.New("no packet starts with 0xff")
			case len(b) < 2 || len(b) < 2+int(b[1]):
				return 0, nil
			}
			return 2 + int(b[1]), nil
		}
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+addr, rec, tap.WithStream(tap.Stream{Framing: tap.FramingPackets, PacketEnd: end}))
		packets := []string{"\x01\x03abc", "\x02\x00", "\x03\x05hello"}
		c := dialTCP(p.URL())
		for _, b := range []byte(strings.Join(packets, "")) {
			_, err := c.Write([]byte{b})
			Expect(err).NotTo(HaveOccurred())
		}
		Eventually(func() []string { return dataFrames(rec) }).WithContext(ctx).Should(HaveLen(3))
		Expect(dataFrames(rec)).To(Equal([]string{"C>H \x01\x03abc", "C>H \x02\x00", "C>H \x03\x05hello"}))
		_, err := c.Write([]byte("\xffgarbage"))
		Expect(err).NotTo(HaveOccurred())
		// What arrives after goes on as it arrives, in as many messages as it takes.
		Eventually(func() string {
			var after []string
			for _, f := range dataFrames(rec)[3:] {
				after = append(after, strings.TrimPrefix(f, "C>H "))
			}
			return strings.Join(after, "")
		}).WithContext(ctx).Should(Equal("\xffgarbage"))
		Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
		Eventually(got).WithContext(ctx).Should(Receive(Equal([]byte(strings.Join(packets, "") + "\xffgarbage"))))
	}, NodeTimeout(20*time.Second))

	It("ends a connection whose peer stops inside a message, and says so", func(ctx SpecContext) {
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+tcpHost(nil, lineEcho), rec, tap.WithStream(tap.Stream{Framing: tap.FramingLines}))
		c := dialTCP(p.URL())
		_, err := io.WriteString(c, "half a li")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.(*net.TCPConn).CloseWrite()).To(Succeed())
		Eventually(rec.summary).WithContext(ctx).Should(ContainElement(And(HavePrefix("1 close client"), ContainSubstring("closed inside a message (9 bytes of a line with no end)"))))
	}, NodeTimeout(20*time.Second))

	It("holds a direction until Release, drops with a reset and refuses while blocked", func(ctx SpecContext) {
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+tcpHost(nil, lineEcho), rec, tap.WithStream(tap.Stream{Framing: tap.FramingLines}))
		c := dialTCP(p.URL())
		r := bufio.NewReader(c)
		p.Hold(tap.HostToClient)
		_, err := io.WriteString(c, "held\n")
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []string { return dataFrames(rec) }).WithContext(ctx).Should(Equal([]string{"C>H held"}))
		Consistently(func() []string { return dataFrames(rec) }, 200*time.Millisecond).Should(HaveLen(1), "the answer waits in the tap")
		p.Release(tap.HostToClient)
		Expect(r.ReadString('\n')).To(Equal("re:held\n"))

		Expect(p.Drop()).To(Equal(1))
		_, err = r.ReadString('\n')
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset")).To(BeTrue(), err.Error())

		p.Block()
		blocked := dialTCP(p.URL())
		_, err = io.ReadAll(blocked)
		Expect(err).NotTo(HaveOccurred(), "a blocked client is closed at once")
		p.Unblock()
		again := dialTCP(p.URL())
		_, err = io.WriteString(again, "back\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(bufio.NewReader(again).ReadString('\n')).To(Equal("re:back\n"))
		Expect(rec.summary()).To(ContainElements("1 drop ", "2 refused blocked by the journey (tap block)", "3 open "))
	}, NodeTimeout(20*time.Second))

	It("records an upstream it cannot reach, and refuses a framing it does not know", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := ln.Addr().String()
		ln.Close()
		rec := &recording{}
		p := startStreamTap(ctx, "tcp://"+addr, rec)
		c := dialTCP(p.URL())
		_, err = io.ReadAll(c)
		Expect(err).NotTo(HaveOccurred())
		Eventually(rec.summary).WithContext(ctx).Should(ConsistOf(And(HavePrefix("1 upstream-error"), ContainSubstring("refused"))))

		_, err = tap.Start(ctx, "tcp://"+addr, nil, tap.WithStream(tap.Stream{Framing: "crlf"}))
		Expect(err).To(MatchError(ContainSubstring(`tap framing "crlf": want one of raw, lines, u16be, u32be, u16le, u32le, varint, packets`)))
		_, err = tap.Start(ctx, "tcp://"+addr+"/rpc", nil)
		Expect(err).To(MatchError(ContainSubstring("want ws://, wss://, tcp:// or tls://host:port")))
	}, NodeTimeout(20*time.Second))

	Describe("over TLS, with a throwaway CA", func() {
		var ca *tap.CA
		var trust *x509.CertPool
		var hostTLS *tls.Config
		BeforeEach(func() {
			var err error
			ca, err = tap.NewCA(GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())
			files := caFiles(ca)
			pair, err := tls.LoadX509KeyPair(files[tap.EnvTLSCert], files[tap.EnvTLSKey])
			Expect(err).NotTo(HaveOccurred())
			hostTLS = &tls.Config{Certificates: []tls.Certificate{pair}}
			pem, err := os.ReadFile(files[tap.EnvTLSCA])
			Expect(err).NotTo(HaveOccurred())
			trust = x509.NewCertPool()
			Expect(trust.AppendCertsFromPEM(pem)).To(BeTrue())
		})

		It("records what travels inside tls://, and a client that does not trust the CA gets nowhere", func(ctx SpecContext) {
			rec := &recording{}
			p := startStreamTap(ctx, "tls://"+tcpHost(hostTLS, lineEcho), rec,
				tap.WithTLS(ca), tap.WithStream(tap.Stream{Framing: tap.FramingLines, Text: true}))
			Expect(p.URL()).To(HavePrefix("tls://127.0.0.1:"))
			addr := strings.TrimPrefix(p.URL(), "tls://")
			c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: trust})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			_, err = io.WriteString(c, "secret\n")
			Expect(err).NotTo(HaveOccurred())
			Expect(bufio.NewReader(c).ReadString('\n')).To(Equal("re:secret\n"))
			Expect(dataFrames(rec)).To(Equal([]string{"C>H secret", "H>C re:secret"}))

			_, err = tls.Dial("tcp", addr, &tls.Config{})
			Expect(err).To(MatchError(ContainSubstring("certificate")), "the system's roots do not know the CA")

			_, err = tap.Start(ctx, "tls://"+addr, nil)
			Expect(err).To(MatchError(ContainSubstring("tls needs the run's certificate authority (WithTLS)")))
		}, NodeTimeout(20*time.Second))

		It("records what travels inside wss://, fragmented frames included", func(ctx SpecContext) {
			ln, err := tls.Listen("tcp", "127.0.0.1:0", hostTLS)
			Expect(err).NotTo(HaveOccurred())
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer ws.Close()
				for {
					mt, data, err := ws.ReadMessage()
					if err != nil || ws.WriteMessage(mt, append([]byte("re:"), data...)) != nil {
						return
					}
				}
			})}
			go func() { _ = srv.Serve(ln) }()
			DeferCleanup(srv.Close)

			rec := &recording{}
			p := startStreamTap(ctx, "wss://"+ln.Addr().String(), rec, tap.WithTLS(ca))
			Expect(p.URL()).To(HavePrefix("wss://127.0.0.1:"))
			p.Fragment(tap.ClientToHost, 4, 0)
			d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: trust}}
			ws, _, err := d.DialContext(ctx, p.URL()+"/x", nil)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ws.Close)
			Expect(ws.WriteMessage(websocket.TextMessage, []byte("over tls in pieces"))).To(Succeed())
			_, data := read(ws)
			Expect(string(data)).To(Equal("re:over tls in pieces"))
			Expect(dataFrames(rec)).To(Equal([]string{"C>H over tls in pieces", "H>C re:over tls in pieces"}))
		}, NodeTimeout(20*time.Second))
	})
})
