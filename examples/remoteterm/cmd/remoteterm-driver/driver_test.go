package main_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

type line = map[string]any

// proc is one driver process and every line it wrote.
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
	p.cmd.Env = append(os.Environ(), env...)
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

// send writes an action and returns its id.
func (p *proc) send(action string, args map[string]any) int {
	GinkgoHelper()
	p.nextID++
	b, err := json.Marshal(map[string]any{"id": p.nextID, "action": action, "args": args})
	Expect(err).NotTo(HaveOccurred())
	_, err = p.stdin.Write(append(b, '\n'))
	Expect(err).NotTo(HaveOccurred())
	return p.nextID
}

// result waits for the result of action id.
func (p *proc) result(id int) line {
	GinkgoHelper()
	var got line
	Eventually(func() bool {
		for _, l := range p.all() {
			if l["type"] == "result" && l["id"] == float64(id) {
				got = l
				return true
			}
		}
		return false
	}).Should(BeTrue(), "result %d", id)
	return got
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

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

var _ = Describe("remoteterm-driver", func() {
	It("runs a host and a desktop client through a JSON-lines conversation", func(_ SpecContext) {
		h := start(nil, "host")
		Eventually(func() int { return len(h.all()) }).Should(BeNumerically(">=", 3))
		hello := h.all()[0]
		Expect(hello).To(HaveKeyWithValue("type", "hello"))
		Expect(hello).To(HaveKeyWithValue("protocol", 1.0))
		Expect(hello).To(HaveKeyWithValue("role", "host"))
		Expect(hello).To(HaveKeyWithValue("build", line{"product": "remoteterm", "version": "worktree"}))
		Expect(hello["actions"]).To(ContainElements("emit-output", "emit-transformed", "set-writable", "set-cwd", "attention-event", "round-progress", "stop"))
		Eventually(h.observed("pty-output")).Should(ContainElement(line{"terminal": "t1", "bytes": b64("initial scrollback\r\n")}))
		url := readyURL(h)

		c := start([]string{"SKEWTEST_HOST_URL=" + url}, "client", "desktop")
		Eventually(func() int { return len(c.all()) }).Should(BeNumerically(">=", 2))
		Expect(c.all()[0]["actions"]).To(Equal([]any{"close-lane", "decode", "input", "open-lane", "pause", "request-snapshot", "resize", "resubscribe", "stop", "subscribe", "unsubscribe"}))
		Expect(c.all()[1]).To(Equal(line{"type": "ready"}))

		Expect(c.result(c.send("subscribe", line{"path": "terminal.multiplex", "terminal": "t1", "cols": 120, "rows": 40}))).To(HaveKeyWithValue("ok", true))
		Eventually(c.observed("connected")).Should(Equal([]line{{"path": "/terminal.multiplex"}}))
		Eventually(c.observed("subscribed")).Should(HaveLen(1))
		Expect(c.observed("subscribed")()[0]).To(HaveKeyWithValue("capabilities", HaveKey("outputPause")))
		Eventually(c.observed("rendered-snapshot")).Should(ContainElement(HaveKeyWithValue("bytes", b64("initial scrollback\r\n"))))

		Expect(c.result(c.send("input", line{"terminal": "t1", "bytes": b64("echo cross-version\r")}))).To(HaveKeyWithValue("ok", true))
		Eventually(h.observed("input")).Should(Equal([]line{{"terminal": "t1", "bytes": b64("echo cross-version\r")}}))

		Expect(h.result(h.send("emit-output", line{"terminal": "t1", "bytes": b64("cross-version live output\r\n")}))).To(HaveKeyWithValue("ok", true))
		Eventually(c.observed("rendered-output")).Should(ContainElement(And(
			HaveKeyWithValue("bytes", b64("cross-version live output\r\n")),
			HaveKeyWithValue("seq", 27.0),
			// The render reports the buffer past what the snapshot's report covered.
			HaveKeyWithValue("screen", b64("cross-version live output\r\n")),
			HaveKeyWithValue("screenFrom", float64(len("initial scrollback\r\n"))))))

		Expect(h.result(h.send("emit-transformed", line{"terminal": "t1", "bytes": b64("transformed run\r\n")}))["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(h.result(h.send("emit-output", line{"terminal": "t9", "bytes": ""}))["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(c.result(c.send("wiggle", nil))["error"]).To(Equal(line{"code": "unsupported-action", "message": `no action "wiggle" in worktree`}))
		Expect(c.result(c.send("input", line{"terminal": "t2", "bytes": ""}))["error"]).To(HaveKeyWithValue("code", "failed"))

		Expect(c.result(c.send("stop", nil))).To(HaveKeyWithValue("ok", true))
		Eventually(func() error { return processDone(c) }).Should(Succeed())
		Expect(c.cmd.ProcessState.ExitCode()).To(Equal(0))
		Expect(h.result(h.send("stop", nil))).To(HaveKeyWithValue("ok", true))
		Eventually(func() error { return processDone(h) }).Should(Succeed())
		Expect(h.cmd.ProcessState.ExitCode()).To(Equal(0))
		for _, l := range append(h.all(), c.all()...) {
			Expect(l["type"]).NotTo(Equal("not-json"))
		}
	}, SpecTimeout(60*time.Second))

	It("drops the opcodes named in REMOTETERM_DECODER_WITHOUT from the host's decoder", func(_ SpecContext) {
		h := start([]string{"REMOTETERM_DECODER_WITHOUT=7"}, "host")
		url := readyURL(h)
		c := start([]string{"SKEWTEST_HOST_URL=" + url}, "client", "desktop")
		Expect(c.result(c.send("subscribe", line{"terminal": "t1"}))).To(HaveKeyWithValue("ok", true))
		Eventually(c.observed("rendered-snapshot")).Should(HaveLen(1))
		Expect(c.result(c.send("input", line{"terminal": "t1", "bytes": b64("echo hi\r")}))).To(HaveKeyWithValue("ok", true))
		Eventually(h.observed("refused")).Should(Equal([]line{{"direction": "C>H", "opcode": 7.0, "length": 24.0, "reason": "unknown opcode", "silent": true}}))
		Expect(h.observed("input")()).To(BeEmpty())
	}, SpecTimeout(60*time.Second))

	It("lists no pause for a mobile client and exits 0 when stdin closes", func(_ SpecContext) {
		m := start([]string{"SKEWTEST_HOST_URL=ws://127.0.0.1:1"}, "client", "mobile")
		Eventually(func() int { return len(m.all()) }).Should(BeNumerically(">=", 2))
		Expect(m.all()[0]).To(HaveKeyWithValue("kind", "mobile"))
		Expect(m.all()[0]["actions"]).NotTo(ContainElement("pause"))
		Expect(m.stdin.Close()).To(Succeed())
		Eventually(func() error { return processDone(m) }).Should(Succeed())
		Expect(m.cmd.ProcessState.ExitCode()).To(Equal(0))
	}, SpecTimeout(60*time.Second))

	It("exits 2 on bad arguments", func() {
		out, err := exec.Command(binary, "client", "tablet").CombinedOutput()
		var ee *exec.ExitError
		Expect(err).To(BeAssignableToTypeOf(ee))
		Expect(err.(*exec.ExitError).ExitCode()).To(Equal(2))
		Expect(string(out)).To(ContainSubstring(`unknown client kind "tablet"`))
	})
})

// readyURL waits for a host's ready line and returns its URL.
func readyURL(h *proc) string {
	GinkgoHelper()
	var url string
	Eventually(func() string {
		for _, l := range h.all() {
			if l["type"] == "ready" {
				url, _ = l["url"].(string)
			}
		}
		return url
	}).Should(MatchRegexp(`^ws://127\.0\.0\.1:\d+$`))
	return url
}

// processDone reports whether p has exited and been waited for, without waiting.
func processDone(p *proc) error {
	select {
	case <-p.done:
		return nil
	default:
		return fmt.Errorf("still running")
	}
}
