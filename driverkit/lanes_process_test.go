package driverkit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// driverProc is one driver process, read line by line as it writes.
type driverProc struct {
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []line
	done  chan struct{} // closed once the process has exited and been waited for
	cmd   *exec.Cmd
}

func startProc(binary string, env ...string) *driverProc {
	GinkgoHelper()
	p := &driverProc{cmd: exec.Command(binary), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = GinkgoWriter
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	Expect(err).NotTo(HaveOccurred())
	stdout, err := p.cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(p.cmd.Start()).To(Succeed())
	go func() { // the process's one owner: reads stdout to its end, then waits
		defer close(p.done)
		defer func() { _ = p.cmd.Wait() }()
		sc := bufio.NewScanner(stdout)
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

func (p *driverProc) all() []line {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

func (p *driverProc) send(text string) {
	GinkgoHelper()
	_, err := io.WriteString(p.stdin, text+"\n")
	Expect(err).NotTo(HaveOccurred())
}

func (p *driverProc) await(id float64) line {
	GinkgoHelper()
	var got line
	Eventually(func() line { got = result(id, p.all()); return got }).ShouldNot(BeNil(), "result %v", id)
	return got
}

// answersHTTP reports whether something serves HTTP at a ws:// base URL.
func answersHTTP(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http"+strings.TrimPrefix(url, "ws"), nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

var _ = Describe("a driver process serving lanes (testdata/lanes)", Ordered, func() {
	var binary string
	BeforeAll(func() {
		binary = filepath.Join(GinkgoT().TempDir(), "lanes")
		out, err := exec.Command("go", "build", "-o", binary, "./testdata/lanes").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})

	It("serves its own host and a host per lane, each on its own port, and closes a lane's at close-lane", func(ctx SpecContext) {
		p := startProc(binary, "SKEWTEST_ROLE=host")
		Eventually(func() int { return len(p.all()) }).Should(BeNumerically(">=", 2))
		Expect(p.all()[0]["actions"]).To(Equal([]any{"add", "close-lane", "host-url", "open-lane", "stop"}))
		own, _ := p.all()[1]["url"].(string)
		p.send(`{"id":1,"action":"open-lane","args":{"lane":1}}`)
		p.send(`{"id":2,"action":"open-lane","args":{"lane":2}}`)
		url1, _ := p.await(1)["data"].(line)["url"].(string)
		url2, _ := p.await(2)["data"].(line)["url"].(string)
		Expect([]string{own, url1, url2}).To(HaveEach(MatchRegexp(`^ws://127\.0\.0\.1:\d+$`)))
		Expect(url1).NotTo(Equal(own))
		Expect(url2).NotTo(Or(Equal(own), Equal(url1)))
		for _, url := range []string{own, url1, url2} {
			Expect(answersHTTP(ctx, url)).To(Succeed())
		}

		p.send(`{"id":3,"lane":1,"action":"add","args":{"n":1}}`)
		p.send(`{"id":4,"lane":2,"action":"add","args":{"n":2}}`)
		p.send(`{"id":5,"lane":1,"action":"add","args":{"n":3}}`)
		p.send(`{"id":6,"action":"add","args":{"n":4}}`)
		Expect(p.await(5)["data"]).To(Equal(line{"total": 4.0}))
		Expect(p.await(4)["data"]).To(Equal(line{"total": 2.0}))
		Expect(p.await(6)["data"]).To(Equal(line{"total": 4.0}))
		Expect(p.all()).To(ContainElement(line{"type": "observe", "lane": 2.0, "what": "total", "data": line{"total": 2.0}}))

		p.send(`{"id":7,"action":"close-lane","args":{"lane":1}}`)
		Expect(p.await(7)).To(HaveKeyWithValue("ok", true))
		Expect(answersHTTP(ctx, url1)).NotTo(Succeed(), "lane 1's server is closed")
		Expect(answersHTTP(ctx, url2)).To(Succeed())

		p.send(`{"id":8,"action":"stop"}`)
		Eventually(p.done).Should(BeClosed())
		Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0))
		got := p.all()
		Expect(got[len(got)-1]).To(Equal(line{"type": "result", "id": 8.0, "ok": true, "data": line{}}))
		Expect(answersHTTP(ctx, url2)).NotTo(Succeed(), "stop closed lane 2's server")
	})

	It("gives a client lane the host URL of its open-lane", func(ctx SpecContext) {
		p := startProc(binary, "SKEWTEST_ROLE=client", "SKEWTEST_KIND=desktop", "SKEWTEST_HOST_URL=ws://127.0.0.1:9")
		p.send(`{"id":1,"action":"open-lane","args":{"lane":5,"hostURL":"ws://127.0.0.1:41005"}}`)
		Expect(p.await(1)).To(Equal(line{"type": "result", "id": 1.0, "ok": true, "data": line{}}))
		p.send(`{"id":2,"lane":5,"action":"host-url"}`)
		p.send(`{"id":3,"action":"host-url"}`)
		Expect(p.await(2)["data"]).To(Equal(line{"url": "ws://127.0.0.1:41005"}))
		Expect(p.await(3)["data"]).To(Equal(line{"url": "ws://127.0.0.1:9"}))
	})
})
