package main_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sendLane writes an action for lane (0: the driver's own instance) and returns its id.
func (p *proc) sendLane(lane int, action string, args map[string]any) int {
	GinkgoHelper()
	p.nextID++
	msg := map[string]any{"id": p.nextID, "action": action, "args": args}
	if lane != 0 {
		msg["lane"] = lane
	}
	b, err := json.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	_, err = p.stdin.Write(append(b, '\n'))
	Expect(err).NotTo(HaveOccurred())
	return p.nextID
}

// ok waits for the result of action id and expects it ok; it returns its data.
func (p *proc) ok(id int) line {
	GinkgoHelper()
	r := p.result(id)
	Expect(r).To(HaveKeyWithValue("ok", true), "result %d", id)
	data, _ := r["data"].(line)
	return data
}

// observedIn returns the data of every observation named what about lane (0: untagged).
func (p *proc) observedIn(lane int, what string) func() []line {
	return func() []line {
		var out []line
		for _, l := range p.all() {
			got, _ := l["lane"].(float64)
			if l["type"] == "observe" && l["what"] == what && got == float64(lane) {
				out = append(out, l["data"].(line))
			}
		}
		return out
	}
}

// openHostLane opens a host lane and returns its URL.
func openHostLane(h *proc, lane int) string {
	GinkgoHelper()
	url, _ := h.ok(h.send("open-lane", line{"lane": lane}))["url"].(string)
	Expect(url).To(MatchRegexp(`^ws://127\.0\.0\.1:\d+$`))
	return url
}

var _ = Describe("remoteterm-driver lanes", func() {
	It("runs independent hosts and clients in lanes of single processes", func(_ SpecContext) {
		h := start(nil, "host")
		own := readyURL(h)
		Expect(h.all()[0]["actions"]).To(ContainElements("open-lane", "close-lane"))
		url1, url2 := openHostLane(h, 1), openHostLane(h, 2)
		Expect([]string{url1, url2}).NotTo(ContainElement(own))
		Expect(url1).NotTo(Equal(url2))
		// Each host lane is a fresh host: its PTY stand-in writes its own initial scrollback.
		for _, lane := range []int{0, 1, 2} {
			Eventually(h.observedIn(lane, "pty-output")).Should(ContainElement(line{"terminal": "t1", "bytes": b64("initial scrollback\r\n")}), "lane %d", lane)
		}

		c := start([]string{"SKEWTEST_HOST_URL=" + own}, "client", "desktop")
		Expect(c.ok(c.send("open-lane", line{"lane": 1, "hostURL": url1}))).To(BeEmpty())
		Expect(c.ok(c.send("open-lane", line{"lane": 2, "hostURL": url2}))).To(BeEmpty())
		for _, lane := range []int{1, 2} {
			c.ok(c.sendLane(lane, "subscribe", line{"path": "terminal.multiplex", "terminal": "t1", "cols": 80, "rows": 24}))
			Eventually(c.observedIn(lane, "rendered-snapshot")).Should(ContainElement(HaveKeyWithValue("bytes", b64("initial scrollback\r\n"))))
		}
		Eventually(h.observedIn(1, "snapshot-sent")).Should(HaveLen(1))
		Eventually(h.observedIn(2, "snapshot-sent")).Should(HaveLen(1))
		Expect(h.observedIn(0, "snapshot-sent")()).To(BeEmpty(), "no client subscribed to the driver's own host")

		// Output on host lane 1's t1 reaches lane 1's client only, and lane 2's lane 2's.
		h.ok(h.sendLane(1, "emit-output", line{"terminal": "t1", "bytes": b64("only lane one\r\n")}))
		h.ok(h.sendLane(2, "emit-output", line{"terminal": "t1", "bytes": b64("only lane two\r\n")}))
		Eventually(c.observedIn(1, "rendered-output")).Should(ContainElement(HaveKeyWithValue("bytes", b64("only lane one\r\n"))))
		Eventually(c.observedIn(2, "rendered-output")).Should(ContainElement(HaveKeyWithValue("bytes", b64("only lane two\r\n"))))
		Expect(c.observedIn(1, "rendered-output")()).NotTo(ContainElement(HaveKeyWithValue("bytes", b64("only lane two\r\n"))))
		Expect(c.observedIn(2, "rendered-output")()).NotTo(ContainElement(HaveKeyWithValue("bytes", b64("only lane one\r\n"))))
		Expect(c.observedIn(0, "rendered-output")()).To(BeEmpty())

		// Input from lane 2's client reaches lane 2's host only.
		c.ok(c.sendLane(2, "input", line{"terminal": "t1", "bytes": b64("echo two\r")}))
		Eventually(h.observedIn(2, "input")).Should(Equal([]line{{"terminal": "t1", "bytes": b64("echo two\r")}}))
		Expect(h.observedIn(1, "input")()).To(BeEmpty())
		Expect(h.observedIn(0, "input")()).To(BeEmpty())

		// A lane's actions are its own: lane 1's host has no terminal t9 either, and a lane
		// that is not open is bad-args.
		Expect(h.result(h.sendLane(1, "emit-output", line{"terminal": "t9", "bytes": ""}))["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(c.result(c.sendLane(3, "input", line{"terminal": "t1", "bytes": ""}))["error"]).To(HaveKeyWithValue("code", "bad-args"))

		// Closing lane 1 closes its client and then its host (transport closes, listener
		// closed); lane 2 goes on.
		c.ok(c.send("close-lane", line{"lane": 1}))
		h.ok(h.send("close-lane", line{"lane": 1}))
		h.ok(h.sendLane(2, "emit-output", line{"terminal": "t1", "bytes": b64("still lane two\r\n")}))
		Eventually(c.observedIn(2, "rendered-output")).Should(ContainElement(HaveKeyWithValue("bytes", b64("still lane two\r\n"))))
		Expect(h.result(h.sendLane(1, "emit-output", line{"terminal": "t1", "bytes": ""}))["error"]).To(HaveKeyWithValue("code", "bad-args"))

		// The driver's own instance still serves a pairing of its own beside the lanes.
		c.ok(c.send("subscribe", line{"path": "terminal.multiplex", "terminal": "t1"}))
		h.ok(h.send("emit-output", line{"terminal": "t1", "bytes": b64("the driver's own\r\n")}))
		Eventually(c.observedIn(0, "rendered-output")).Should(ContainElement(HaveKeyWithValue("bytes", b64("the driver's own\r\n"))))
		Expect(c.observedIn(2, "rendered-output")()).NotTo(ContainElement(HaveKeyWithValue("bytes", b64("the driver's own\r\n"))))

		// stop closes lane 2 in both and exits 0, stop's result last.
		for _, p := range []*proc{c, h} {
			stop := p.send("stop", nil)
			Eventually(func() error { return processDone(p) }).Should(Succeed())
			Expect(p.cmd.ProcessState.ExitCode()).To(Equal(0))
			all := p.all()
			Expect(all[len(all)-1]).To(Equal(line{"type": "result", "id": float64(stop), "ok": true, "data": line{}}))
			for _, l := range all {
				Expect(l["type"]).NotTo(Equal("not-json"))
			}
		}
	}, SpecTimeout(60*time.Second))

	It("runs session clients in lanes, each against its own host lane's daemon", func(_ SpecContext) {
		h := start(nil, "host")
		readyURL(h)
		url1, url2 := openHostLane(h, 1), openHostLane(h, 2)

		s := start([]string{"SKEWTEST_HOST_URL=ws://127.0.0.1:1"}, "client", "session")
		s.ok(s.send("open-lane", line{"lane": 1, "hostURL": url1}))
		s.ok(s.send("open-lane", line{"lane": 2, "hostURL": url2}))
		for _, lane := range []int{1, 2} {
			Expect(s.ok(s.sendLane(lane, "hello", nil))).To(HaveKeyWithValue("accepted", true))
			Expect(s.ok(s.sendLane(lane, "call", line{"command": "ping", "input": line{"message": "lane"}}))).To(HaveKeyWithValue("requestId", "r1"))
			Eventually(s.observedIn(lane, "session")).Should(ContainElement(And(
				HaveKeyWithValue("event", "response"), HaveKeyWithValue("command", "ping"))))
			Eventually(h.observedIn(lane, "session")).Should(ContainElement(HaveKeyWithValue("event", "request-received")))
		}
		Expect(h.observedIn(0, "session")()).To(BeEmpty())
		Expect(s.observedIn(0, "session")()).To(BeEmpty())

		s.ok(s.send("close-lane", line{"lane": 1}))
		Expect(s.result(s.sendLane(1, "call", line{"command": "ping", "input": line{}}))["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(s.ok(s.sendLane(2, "call", line{"command": "ping", "input": line{}}))).To(HaveKeyWithValue("requestId", "r2"))
	}, SpecTimeout(60*time.Second))
})
