package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/internal/tcpproxy"
	"github.com/skewtest/skewtest/examples/notesd/internal/testca"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/store"
)

// useCA makes a throwaway authority and hands it over as skewtest does, in the
// environment, for the spec.
func useCA() testca.Files {
	GinkgoHelper()
	ca, err := testca.Write(GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	ca.Env(GinkgoT().Setenv)
	return ca
}

// serveOn runs a host of release f on a transport as the driver does (driverkit.ListenOn,
// then an http.Server for ws and wss, the host's own accept loop for tcp and tls) behind a
// proxy that can cut the network. url is the proxy's, with the transport's scheme.
func serveOn(transport string, f release.Features) (n *network, url string) {
	GinkgoHelper()
	n = &network{hostObs: &observe.Recorder{}}
	n.h = host.New(f, store.New(), n.hostObs, host.WithLog(GinkgoWriter.Printf))
	ln, hostURL, err := driverkit.ListenOn(context.Background(), transport)
	Expect(err).NotTo(HaveOccurred())
	Expect(hostURL).To(HavePrefix(transport + "://127.0.0.1:"))
	served := make(chan error, 1)
	var srv *http.Server
	if transport == driverkit.TransportWS || transport == driverkit.TransportWSS {
		srv = &http.Server{Handler: n.h, ReadHeaderTimeout: 10 * time.Second}
		go func() { served <- srv.Serve(ln) }()
	} else {
		go func() { served <- n.h.Serve(ln) }()
	}
	n.proxy, err = tcpproxy.Start(ln.Addr().String())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = n.proxy.Close()
		if srv != nil {
			_ = srv.Close()
		}
		n.h.Close()
		err := <-served
		if srv != nil {
			Expect(err).To(MatchError(http.ErrServerClosed))
		} else {
			Expect(err).NotTo(HaveOccurred(), "Close ends Serve")
		}
	})
	return n, transport + "://" + n.proxy.Addr()
}

var transports = []string{driverkit.TransportWS, driverkit.TransportWSS, driverkit.TransportTCP, driverkit.TransportTLS}

var _ = Describe("Client on every transport", func() {
	BeforeEach(func() { useCA() })

	for _, transport := range transports {
		Describe(transport, func() {
			It("opens a session, writes and reads, gets an error reply, imports a batch, and sees the host go", func(ctx SpecContext) {
				n, url := serveOn(transport, worktree)
				obs := &observe.Recorder{}
				c, err := client.New(client.KindCLI, worktree, url, obs, client.WithLog(GinkgoWriter.Printf))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				res, err := c.Connect(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Session).To(Equal("s1"))
				Expect(obs.Named(client.ObsConnected)).To(ConsistOf(HaveKeyWithValue("path", "/rpc")))
				Expect(n.hostObs.Named(host.ObsSessionOpened)).To(ConsistOf(HaveKeyWithValue("client", "cli")))

				Expect(c.Put(ctx, "n1", "first\nline", []string{"t"})).To(Equal(client.PutResult{ID: "n1", Rev: 1}))
				got, err := c.Get(ctx, "n1")
				Expect(err).NotTo(HaveOccurred())
				Expect(*got.Text).To(Equal("first\nline"), "a newline in a note travels escaped")
				_, err = c.Get(ctx, "nope")
				Expect(err).To(HaveOccurred())
				Expect(obs.Named(client.ObsRPCError)).To(ConsistOf(HaveKeyWithValue("code", float64(api.CodeNotFound))))
				Expect(c.Import(ctx, []api.PutParams{{ID: "b1", Text: "one"}, {ID: "b2", Text: "two"}})).To(HaveLen(2))
				Expect(n.hostObs.Named(host.ObsStored)).To(HaveLen(3))

				n.h.Close()
				Eventually(obs.Named).WithArguments(client.ObsTransportClosed).
					Should(ConsistOf(HaveKeyWithValue("reason", "EOF")), "the same orderly end on every transport")
				_, err = c.Get(ctx, "n1")
				Expect(err).To(MatchError(client.ErrOffline))
			}, SpecTimeout(10e9))

			It("syncs: push, an offline spell, the catch-up and the flush", func(ctx SpecContext) {
				n, url := serveOn(transport, worktree)
				obs := &observe.Recorder{}
				c, err := client.New(client.KindSync, worktree, url, obs, client.WithLog(GinkgoWriter.Printf))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				_, err = c.Connect(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(c.Accepted()).To(Equal([]string{"push", "slimPush"}))
				n.h.Edit("h1", "from the host", nil)
				Eventually(obs.Named).WithArguments(client.ObsApplied).Should(ConsistOf(SatisfyAll(
					HaveKeyWithValue("text", "from the host"), HaveKeyWithValue("via", "push+fetch"))))

				n.proxy.Block()
				Eventually(obs.Named).WithArguments(client.ObsTransportClosed).ShouldNot(BeEmpty())
				n.h.Edit("h2", "while away", nil)
				Expect(c.Put(ctx, "s1", "offline one", nil)).To(Equal(client.PutResult{ID: "s1", Queued: true}))
				Expect(c.Put(ctx, "s2", "offline two", nil)).To(Equal(client.PutResult{ID: "s2", Queued: true}))
				n.proxy.Unblock()
				_, err = c.Connect(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(obs.Named(client.ObsFlushed)).To(ConsistOf(SatisfyAll(
					HaveKeyWithValue("notes", 2.0), HaveKeyWithValue("batch", true))))
				Expect(c.Replica()).To(Equal(map[string]string{
					"h1": "from the host", "h2": "while away", "s1": "offline one", "s2": "offline two"}))
				Expect(n.hostObs.Named(host.ObsSessionOpened)).To(HaveLen(2))
			}, SpecTimeout(10e9))
		})
	}

	Describe("negative controls: a wrong pairing fails, and does not hang", func() {
		// connect connects a cli client to url with a short deadline and returns the error.
		connect := func(ctx context.Context, url string) error {
			GinkgoHelper()
			c, err := client.New(client.KindCLI, worktree, url, observe.Discard, client.WithLog(GinkgoWriter.Printf))
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(c.Close)
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err = c.Connect(ctx)
			return err
		}

		It("a tls client against a tcp host", func(ctx SpecContext) {
			n, url := serveOn(driverkit.TransportTCP, worktree)
			Expect(connect(ctx, "tls://"+strings.TrimPrefix(url, "tcp://"))).To(HaveOccurred())
			Expect(n.hostObs.Named(host.ObsSessionOpened)).To(BeEmpty())
		}, SpecTimeout(10e9))

		It("a tcp client against a tls host: the host's handshake fails, no session", func(ctx SpecContext) {
			n, url := serveOn(driverkit.TransportTLS, worktree)
			err := connect(ctx, "tcp://"+strings.TrimPrefix(url, "tls://"))
			Expect(err).To(HaveOccurred())
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeFalse(), "an error, not a timeout: %v", err)
			Expect(n.hostObs.Named(host.ObsSessionOpened)).To(BeEmpty())
		}, SpecTimeout(10e9))

		for _, transport := range []string{driverkit.TransportTLS, driverkit.TransportWSS} {
			It("a "+transport+" client that does not trust the host's authority", func(ctx SpecContext) {
				n, url := serveOn(transport, worktree)
				other, err := testca.Write(GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				GinkgoT().Setenv(driverkit.EnvTLSCA, other.CA)
				err = connect(ctx, url)
				Expect(err).To(MatchError(ContainSubstring("certificate signed by unknown authority")))
				Expect(n.hostObs.Named(host.ObsSessionOpened)).To(BeEmpty())

				GinkgoT().Setenv(driverkit.EnvTLSCA, "")
				Expect(connect(ctx, url)).To(MatchError(ContainSubstring(driverkit.EnvTLSCA)))
			}, SpecTimeout(10e9))
		}

		It("a host URL of a scheme it does not dial", func(ctx SpecContext) {
			Expect(connect(ctx, "http://127.0.0.1:1")).To(MatchError(ContainSubstring("want ws://, wss://, tcp:// or tls://")))
		})
	})

	It("closes a tls host promptly: a connection still in its TLS handshake, and every session", func(ctx SpecContext) {
		n, url := serveOn(driverkit.TransportTLS, worktree)
		raw, err := net.Dial("tcp", strings.TrimPrefix(url, "tls://"))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(raw.Close)
		c, err := client.New(client.KindCLI, worktree, url, observe.Discard)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		_, err = c.Connect(ctx)
		Expect(err).NotTo(HaveOccurred())
		closed := make(chan struct{})
		go func() { n.h.Close(); close(closed) }()
		Eventually(closed, 5*time.Second).Should(BeClosed())
		Expect(raw.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, err = raw.Read(make([]byte, 1))
		Expect(err).To(HaveOccurred(), "the host closed the half-open connection")
	}, SpecTimeout(10e9))
})
