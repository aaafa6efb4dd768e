package host_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/internal/testca"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
)

// streamHost is a host serving a tcp or tls listener with its own accept loop.
type streamHost struct {
	daemon
	served chan error // what Serve returned
}

func serveStream(transport string, f release.Features) *streamHost {
	GinkgoHelper()
	s := &streamHost{daemon: daemon{obs: &observe.Recorder{}}, served: make(chan error, 1)}
	s.h = host.New(f, store.New(), s.obs, host.WithLog(GinkgoWriter.Printf))
	ln, url, err := driverkit.ListenOn(context.Background(), transport)
	Expect(err).NotTo(HaveOccurred())
	s.url = url
	go func() { s.served <- s.h.Serve(ln) }()
	DeferCleanup(s.h.Close)
	return s
}

// linePeer is a raw TCP or TLS client speaking JSON-RPC lines by hand.
type linePeer struct {
	conn net.Conn
	r    *bufio.Reader
}

func (s *streamHost) dial() *linePeer {
	GinkgoHelper()
	nc, err := driverkit.Dial(context.Background(), s.url)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = nc.Close() })
	return &linePeer{conn: nc, r: bufio.NewReader(nc)}
}

func (p *linePeer) send(text string) {
	GinkgoHelper()
	_, err := p.conn.Write([]byte(text + "\n"))
	Expect(err).NotTo(HaveOccurred())
}

// line reads the next line, without its newline.
func (p *linePeer) line() string {
	GinkgoHelper()
	Expect(p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	l, err := p.r.ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	return l[:len(l)-1]
}

// read returns the next line decoded: an object or an array.
func (p *linePeer) read() any {
	GinkgoHelper()
	var v any
	Expect(json.Unmarshal([]byte(p.line()), &v)).To(Succeed())
	return v
}

func (p *linePeer) open(caps string) msg {
	GinkgoHelper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"session.open","params":{"client":"sync","version":"spec","protocol":1,"minCompatible":1,"capabilities":` + caps + `}}`)
	return p.read().(msg)
}

// ended asserts the host closed the connection: the peer reads the end of the stream.
func (p *linePeer) ended() {
	GinkgoHelper()
	Expect(p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
	_, err := p.r.ReadString('\n')
	Expect(err).To(MatchError(io.EOF))
}

var _ = Describe("Host over a byte stream (Serve, ServeConn)", func() {
	BeforeEach(func() {
		ca, err := testca.Write(GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		ca.Env(GinkgoT().Setenv)
	})

	for _, transport := range []string{driverkit.TransportTCP, driverkit.TransportTLS} {
		It("serves one record per line over "+transport+": a session, a batch as one line, a parse error, push on a line of its own", func() {
			s := serveStream(transport, release.Features{Version: "worktree", Push: true, NoticeAfterReply: true})
			p := s.dial()
			Expect(p.open(`["push"]`)["result"]).To(HaveKeyWithValue("session", "s1"))
			Expect(p.read()).To(Equal(msg{"jsonrpc": "2.0", "method": "notes.notice", "params": msg{"seq": 1.0}}),
				"the notice after a reply, a line of its own")
			writer := s.dial()
			Expect(writer.open(`[]`)["result"]).To(HaveKeyWithValue("session", "s2"))
			writer.line() // its notice

			writer.send(`[{"jsonrpc":"2.0","id":2,"method":"notes.put","params":{"id":"a","text":"A\nB"}},` +
				`{"jsonrpc":"2.0","id":3,"method":"notes.get","params":{"id":"nope"}}]`)
			line := writer.line()
			Expect(line).To(HavePrefix("["), "a batch's replies are one line")
			var rsps []msg
			Expect(json.Unmarshal([]byte(line), &rsps)).To(Succeed())
			Expect(rsps).To(HaveLen(2))
			Expect(rsps[0]["result"]).To(HaveKeyWithValue("rev", 1.0))
			Expect(rsps[1]["error"]).To(HaveKeyWithValue("code", -32004.0))
			Expect(writer.read()).To(HaveKeyWithValue("method", "notes.notice"))

			changed := p.read().(msg)
			Expect(changed).To(HaveKeyWithValue("method", "notes.changed"))
			Expect(changed["params"]).To(HaveKeyWithValue("text", "A\nB"), "a newline in a note travels escaped")

			writer.send(`{"jsonrpc":`)
			Expect(writer.read().(msg)["error"]).To(HaveKeyWithValue("code", -32700.0), "jrpc2 answers a line it cannot parse")
			Expect(writer.read()).To(HaveKeyWithValue("method", "notes.notice"))
			writer.send(`{"jsonrpc":"2.0","id":4,"method":"notes.search","params":{"query":"x"}}`)
			Expect(writer.read().(msg)["error"]).To(HaveKeyWithValue("code", -32601.0))
			Expect(s.obs.Named(host.ObsRefused)).To(ConsistOf(HaveKeyWithValue("type", "notes.search")))
			Expect(s.obs.Named(host.ObsSessionOpened)).To(HaveLen(2))
			Expect(s.obs.Named(host.ObsPushed)).To(ConsistOf(HaveKeyWithValue("session", "s1")))
		})
	}

	It("closes while a peer floods it with malformed lines, without crashing", func() {
		// jrpc2 answers a malformed record on its channel; a Stop from outside its read loop
		// could clear that channel between the read and the answer (a nil dereference).
		for range 50 {
			s := serveStream(driverkit.TransportTCP, release.Features{})
			p := s.dial()
			go func() {
				for {
					if _, err := p.conn.Write([]byte("not json\n")); err != nil {
						return
					}
				}
			}()
			Expect(p.line()).To(ContainSubstring(`"code":-32700`), "a parse error, answered")
			s.h.Close()
		}
	})

	It("ends every connection on Close, stops Serve, and leaves no goroutine behind", func() {
		before := runtime.NumGoroutine()
		s := serveStream(driverkit.TransportTLS, v020)
		p, q := s.dial(), s.dial()
		p.open(`["push"]`)
		q.open(`[]`)
		raw, err := net.Dial("tcp", s.url[len("tls://"):]) // never says hello: still in its handshake
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = raw.Close() })
		Eventually(func() int { return runtime.NumGoroutine() }).Should(BeNumerically(">", before))

		s.h.Close()
		Eventually(s.served).Should(Receive(BeNil()))
		p.ended()
		q.ended()
		Expect(raw.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, err = raw.Read(make([]byte, 1))
		Expect(err).To(HaveOccurred())
		_ = raw.Close()
		_ = p.conn.Close()
		_ = q.conn.Close()
		Eventually(func() int { return runtime.NumGoroutine() }, 5*time.Second).Should(BeNumerically("<=", before))
	})

	It("ends a connection without a session when the peer gets the TLS handshake wrong", func() {
		s := serveStream(driverkit.TransportTLS, v020)
		raw, err := net.Dial("tcp", s.url[len("tls://"):])
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = raw.Close() })
		_, err = raw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.open","params":{}}` + "\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(raw.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, err = io.ReadAll(raw)
		Expect(errors.Is(err, os.ErrDeadlineExceeded)).To(BeFalse(), "the host closed it: %v", err)
		Expect(s.obs.Named(host.ObsSessionOpened)).To(BeEmpty())

		// A client that does not trust the host's authority is refused by its own side.
		conf, err := driverkit.ClientTLS()
		Expect(err).NotTo(HaveOccurred())
		conf.RootCAs = nil
		_, err = tls.Dial("tcp", s.url[len("tls://"):], conf)
		Expect(err).To(HaveOccurred())
		Expect(s.obs.Named(host.ObsSessionOpened)).To(BeEmpty())
	})

	It("closes what it is handed after Close: ServeConn's connection, Serve's listener", func() {
		h := host.New(v020, store.New(), observe.Discard)
		h.Close()
		a, b := net.Pipe()
		DeferCleanup(func() { _ = b.Close() })
		h.ServeConn(a)
		_, err := b.Read(make([]byte, 1))
		Expect(err).To(MatchError(io.EOF))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Serve(ln)).To(Succeed())
		_, err = ln.Accept()
		Expect(err).To(MatchError(net.ErrClosed))
	})
})
