package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/internal/tcpproxy"
	"github.com/skewtest/skewtest/examples/notesd/internal/testca"
)

type line = map[string]any

// proc is one driver process and every line it wrote on stdout.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	lines  []line
	done   chan struct{} // closed once the process has exited and been waited for
	nextID int
}

func start(env []string, args ...string) *proc {
	GinkgoHelper()
	p := &proc{cmd: exec.Command(binary, args...)}
	p.cmd.Env = append(os.Environ(), append([]string{"SKEWTEST_DRIVER_PROTOCOL=1"}, env...)...)
	p.cmd.Stderr = GinkgoWriter
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	stdout, err := p.cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(p.cmd.Start()).To(Succeed())
	p.done = make(chan struct{})
	// The one owner of the process: it reads stdout to the end, then waits.
	go func() {
		defer close(p.done)
		defer func() { _ = p.cmd.Wait() }()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var l line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l = line{"type": "not-json", "text": sc.Text()}
			}
			p.mu.Lock()
			p.lines = append(p.lines, l)
			p.mu.Unlock()
		}
	}()
	DeferCleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) all() []line {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]line(nil), p.lines...)
}

// do sends an action and returns its result line.
func (p *proc) do(action string, args map[string]any) line {
	GinkgoHelper()
	p.nextID++
	id := p.nextID
	b, err := json.Marshal(map[string]any{"id": id, "action": action, "args": args})
	Expect(err).NotTo(HaveOccurred())
	_, err = p.stdin.Write(append(b, '\n'))
	Expect(err).NotTo(HaveOccurred())
	var got line
	Eventually(func() bool {
		for _, l := range p.all() {
			if l["type"] == "result" && l["id"] == float64(id) {
				got = l
				return true
			}
		}
		return false
	}, 10*time.Second).Should(BeTrue(), "result of %s", action)
	return got
}

// ok sends an action that must succeed and returns its data.
func (p *proc) ok(action string, args map[string]any) line {
	GinkgoHelper()
	r := p.do(action, args)
	Expect(r).To(HaveKeyWithValue("ok", true), "%s: %v", action, r)
	d, _ := r["data"].(line)
	return d
}

// observed returns the data of every observation named what.
func (p *proc) observed(what string) func() []line {
	return func() []line {
		var out []line
		for _, l := range p.all() {
			if l["type"] == "observe" && l["what"] == what {
				out = append(out, l["data"].(line))
			}
		}
		return out
	}
}

func (p *proc) first(typ string) line {
	GinkgoHelper()
	var got line
	Eventually(func() bool {
		for _, l := range p.all() {
			if l["type"] == typ {
				got = l
				return true
			}
		}
		return false
	}, 10*time.Second).Should(BeTrue(), "a %s line", typ)
	return got
}

// stop stops the driver and expects a clean exit with nothing but protocol lines on stdout.
func (p *proc) stop() {
	GinkgoHelper()
	p.ok("stop", nil)
	Eventually(p.done, 10*time.Second).Should(BeClosed())
	Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0))
	for _, l := range p.all() {
		Expect(l["type"]).To(BeElementOf("hello", "ready", "result", "observe"), "stdout line %v", l)
	}
}

// pairing is a host driver and a client driver between which a proxy can cut the network.
type pairing struct {
	host, client *proc
	net          *tcpproxy.Proxy
}

func startPairing(kind string, hostEnv, clientEnv []string) *pairing {
	GinkgoHelper()
	return startPairingOn("ws", kind, hostEnv, clientEnv)
}

// startPairingOn is startPairing on a transport: the host is started with --transport
// (but for ws, its default) and the client reaches it through the proxy with the
// transport's scheme.
func startPairingOn(transport, kind string, hostEnv, clientEnv []string) *pairing {
	GinkgoHelper()
	args := []string{"host"}
	if transport != "ws" {
		args = append(args, "--transport", transport)
	}
	h := start(hostEnv, args...)
	url, _ := h.first("ready")["url"].(string)
	Expect(url).To(HavePrefix(transport + "://127.0.0.1:"))
	proxy, err := tcpproxy.Start(strings.TrimPrefix(url, transport+"://"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(proxy.Close)
	c := start(append([]string{"SKEWTEST_ROLE=client", "SKEWTEST_KIND=" + kind, "SKEWTEST_HOST_URL=" + transport + "://" + proxy.Addr()}, clientEnv...),
		"client", kind)
	c.first("ready")
	return &pairing{host: h, client: c, net: proxy}
}

var _ = Describe("notesd-driver", func() {
	It("says hello with its actions, and a host reports where it listens", func() {
		p := startPairing("cli", nil, nil)
		Expect(p.host.first("hello")).To(SatisfyAll(
			HaveKeyWithValue("role", "host"),
			HaveKeyWithValue("build", line{"product": "notesd", "version": "worktree"}),
			HaveKeyWithValue("actions", ConsistOf("decode", "edit", "stop"))))
		Expect(p.client.first("hello")).To(SatisfyAll(
			HaveKeyWithValue("role", "client"), HaveKeyWithValue("kind", "cli"),
			HaveKeyWithValue("actions", ConsistOf("close", "decode", "get", "import", "list", "open", "pull", "put", "reconnect", "search", "stop"))))
		p.client.stop()
		p.host.stop()
	})

	It("runs a cli client against a host: calls, an error reply, a batch, a reconnect", func() {
		p := startPairing("cli", nil, nil)
		Expect(p.client.ok("open", nil)).To(HaveKeyWithValue("accepted", true))
		Expect(p.host.observed("session-opened")()).To(ConsistOf(HaveKeyWithValue("client", "cli")))

		Expect(p.client.ok("put", line{"id": "n1", "content": "first note"})).To(HaveKeyWithValue("rev", 1.0))
		Expect(p.host.observed("stored")()).To(ConsistOf(SatisfyAll(
			HaveKeyWithValue("id", "n1"), HaveKeyWithValue("text", "first note"))))

		Expect(p.client.ok("get", line{"id": "nope"})).To(HaveKeyWithValue("error", HaveKeyWithValue("code", -32004.0)))
		Expect(p.client.observed("rpc-error")()).To(ConsistOf(HaveKeyWithValue("code", -32004.0)))

		p.client.ok("import", line{"notes": []line{{"id": "b1", "content": "one"}, {"id": "b2", "content": "two"}}})
		Expect(p.host.observed("stored")()).To(HaveLen(3))

		p.net.Drop()
		Eventually(p.client.observed("transport-closed")).ShouldNot(BeEmpty())
		p.client.ok("reconnect", nil)
		Expect(p.client.ok("get", line{"id": "b2"})).To(HaveKeyWithValue("text", "two"))
		p.client.stop()
		p.host.stop()
	})

	It("runs a sync client through push, an offline spell and the catch-up", func() {
		p := startPairing("sync", nil, nil)
		Expect(p.client.ok("open", nil)).To(HaveKeyWithValue("capabilities", []any{"push", "slimPush"}))
		p.host.ok("edit", line{"id": "h1", "content": "written on the host"})
		Eventually(p.client.observed("applied")).Should(ConsistOf(HaveKeyWithValue("text", "written on the host")))

		p.net.Block()
		Eventually(p.client.observed("transport-closed")).ShouldNot(BeEmpty())
		p.host.ok("edit", line{"id": "h2", "content": "while away"})
		Expect(p.client.ok("put", line{"id": "s1", "content": "offline"})).To(HaveKeyWithValue("queued", true))
		p.net.Unblock()
		p.client.ok("reconnect", nil)
		Expect(p.client.observed("applied")()).To(ContainElement(HaveKeyWithValue("text", "while away")))
		Expect(p.client.observed("flushed")()).To(ConsistOf(HaveKeyWithValue("notes", 1.0)))
		Expect(p.host.observed("stored")()).To(ContainElement(HaveKeyWithValue("text", "offline")))
		p.client.stop()
		p.host.stop()
	})

	It("answers an action this build does not have with unsupported-action", func() {
		p := startPairing("cli", nil, []string{`NOTESD_FEATURES={"search":false}`})
		r := p.client.do("search", line{"query": "x"})
		Expect(r).To(HaveKeyWithValue("ok", false))
		Expect(r["error"]).To(HaveKeyWithValue("code", "unsupported-action"))
	})

	It("pushes without negotiation under NOTESD_FEATURES pushUngated, and the cli says it dropped it", func() {
		p := startPairing("cli", []string{`NOTESD_FEATURES={"pushUngated":true}`}, nil)
		Expect(p.client.ok("open", nil)).To(HaveKeyWithValue("capabilities", BeEmpty()))
		p.host.ok("edit", line{"id": "h1", "content": "unasked"})
		Eventually(p.client.observed("refused")).Should(ConsistOf(SatisfyAll(
			HaveKeyWithValue("type", "notes.changed"), HaveKeyWithValue("silent", true))))
	})

	It("refuses a peer outside the window cleanly under NOTESD_FEATURES, and the open is still ok", func() {
		p := startPairing("sync", []string{`NOTESD_FEATURES={"protocol":2,"minCompatible":2}`}, nil)
		Expect(p.client.ok("open", nil)).To(SatisfyAll(HaveKeyWithValue("accepted", false), HaveKeyWithValue("by", "host")))
		Expect(p.client.observed("refused-peer")()).To(HaveLen(1))
		Expect(p.host.observed("refused-peer")()).To(HaveLen(1))
	})

	It("exits 2 on a bad NOTESD_FEATURES or bad arguments", func() {
		for _, c := range []struct {
			env  []string
			args []string
		}{
			{[]string{`NOTESD_FEATURES={"nope":true}`}, []string{"host"}},
			{nil, []string{"client", "desktop"}},
			{nil, []string{"server"}},
			{nil, []string{"host", "--transport", "quic"}},
			{nil, []string{"host", "--transport"}},
			{nil, []string{"host", "tcp"}},
		} {
			cmd := exec.Command(binary, c.args...)
			cmd.Env = append(os.Environ(), c.env...)
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.Output()
			var ee *exec.ExitError
			Expect(err).To(BeAssignableToTypeOf(ee), "%v", c.args)
			Expect(err.(*exec.ExitError).ExitCode()).To(Equal(2))
			Expect(out).To(BeEmpty())
		}
	})

	Describe("transports", func() {
		BeforeEach(func() {
			ca, err := testca.Write(GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())
			ca.Env(GinkgoT().Setenv) // the driver processes inherit it
		})

		for _, transport := range []string{"wss", "tcp", "tls"} {
			It("runs a cli and a sync client against a host on "+transport+": a session, a round trip, a batch, push, a drop and a reconnect", func() {
				p := startPairingOn(transport, "cli", nil, nil)
				Expect(p.client.ok("open", nil)).To(HaveKeyWithValue("accepted", true))
				Expect(p.client.observed("connected")()).To(ConsistOf(HaveKeyWithValue("path", "/rpc")))
				Expect(p.client.ok("put", line{"id": "n1", "content": "first note"})).To(HaveKeyWithValue("rev", 1.0))
				Expect(p.client.ok("get", line{"id": "n1"})).To(HaveKeyWithValue("text", "first note"))
				Expect(p.client.ok("get", line{"id": "nope"})).To(HaveKeyWithValue("error", HaveKeyWithValue("code", -32004.0)))
				p.client.ok("import", line{"notes": []line{{"id": "b1", "content": "one"}, {"id": "b2", "content": "two"}}})
				Expect(p.host.observed("stored")()).To(HaveLen(3))

				s := start([]string{"SKEWTEST_ROLE=client", "SKEWTEST_KIND=sync", "SKEWTEST_HOST_URL=" + transport + "://" + p.net.Addr()}, "client", "sync")
				Expect(s.ok("open", nil)).To(HaveKeyWithValue("capabilities", []any{"push", "slimPush"}))
				p.host.ok("edit", line{"id": "h1", "content": "written on the host"})
				Eventually(s.observed("applied")).Should(ContainElement(SatisfyAll(
					HaveKeyWithValue("text", "written on the host"), HaveKeyWithValue("via", "push+fetch"))))

				p.net.Drop()
				Eventually(p.client.observed("transport-closed")).ShouldNot(BeEmpty())
				Eventually(s.observed("transport-closed")).ShouldNot(BeEmpty())
				p.client.ok("reconnect", nil)
				Expect(p.client.ok("get", line{"id": "b2"})).To(HaveKeyWithValue("text", "two"))
				s.stop()
				p.client.stop()
				p.host.stop()
			})
		}

		It("fails to start a tls host without skewtest's TLS files, saying so", func() {
			GinkgoT().Setenv("SKEWTEST_TLS_CERT", "")
			cmd := exec.Command(binary, "host", "--transport", "tls")
			cmd.Env = append(os.Environ(), "SKEWTEST_DRIVER_PROTOCOL=1")
			cmd.Stdin = strings.NewReader("")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			Expect(err).To(HaveOccurred())
			Expect(string(out)).NotTo(ContainSubstring(`"ready"`))
			Expect(stderr.String()).To(ContainSubstring("SKEWTEST_TLS_CERT"))
		})

		It("a client of tls:// against a tcp host fails to open, and does not hang", func() {
			h := start(nil, "host", "--transport", "tcp")
			url, _ := h.first("ready")["url"].(string)
			c := start([]string{"SKEWTEST_ROLE=client", "SKEWTEST_KIND=cli", "SKEWTEST_HOST_URL=tls://" + strings.TrimPrefix(url, "tcp://")}, "client", "cli")
			Expect(c.do("open", nil)).To(HaveKeyWithValue("ok", false))
			Expect(h.observed("session-opened")()).To(BeEmpty())
		})
	})
})
