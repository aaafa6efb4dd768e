package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/drivercheck"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/testkit/drivertest"
)

// messages collects what a driver said.
type messages struct{ drivertest.Messages }

func (m *messages) add(msg driver.Message) { m.Add(msg) }
func (m *messages) all() []driver.Message  { return m.All() }

// observed lists the observations named what, their data as JSON text.
func (m *messages) observed(what string) []string {
	var out []string
	for _, msg := range m.all() {
		if msg.Type == driver.TypeObserve && msg.What == what {
			out = append(out, string(msg.Data))
		}
	}
	return out
}

// kitDriver starts testdata/NAME.js as a client of kind test and waits for ready; its
// stderr goes to the returned log path.
func kitDriver(ctx context.Context, name string, msgs *messages) (*driver.Driver, string) {
	GinkgoHelper()
	log := filepath.Join(GinkgoT().TempDir(), "driver.log")
	d, err := driver.Start(ctx, driver.Spec{Argv: []string{node, name + ".js"}, Dir: "testdata",
		Env:     []string{"SKEWTEST_DRIVER_PROTOCOL=1", "SKEWTEST_ROLE=client", "SKEWTEST_KIND=test"},
		LogPath: log, Name: name, StopGrace: 2 * time.Second, ActionTimeout: 10 * time.Second}, msgs.add)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { _ = d.Stop(ctx) }, NodeTimeout(10*time.Second))
	_, err = d.WaitReady(ctx)
	Expect(err).NotTo(HaveOccurred())
	return d, log
}

// failure is the code and message of an action's failed result.
func failure(err error) (string, string) {
	var ae *driver.ActionError
	if !errors.As(err, &ae) {
		return "", "not an action error: " + err.Error()
	}
	return ae.Code, ae.Message
}

var _ = Describe("The Node.js driver kit", func() {
	BeforeEach(needNode)

	It("passes the driver check with its example, as a host and as a client, every check made", func(ctx SpecContext) {
		for _, c := range []drivercheck.Config{{Role: "host"}, {Role: "client", Kind: "web"}} {
			c.Argv, c.Dir = []string{node, "minimal.js"}, "testdata"
			r, err := drivercheck.Run(ctx, c)
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Failed()).To(BeEmpty(), "%v", r.Checks)
			var names []string
			for _, ch := range r.Checks {
				Expect(ch.Skipped).To(BeFalse(), ch.String())
				names = append(names, ch.Name)
			}
			Expect(names).To(Equal([]string{"start", "hello", "ready", "unknown action", "decode", "stop", "stdout", "stdin closed"}))
		}
	}, SpecTimeout(time.Minute))

	It("serves TLS with the certificate skewtest hands over, and reports a tls:// URL that answers", func(ctx SpecContext) {
		r, err := drivercheck.Run(ctx, drivercheck.Config{Role: "host", Argv: []string{node, "tlshost.js"}, Dir: "testdata"})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Checks).To(ContainElement(And(HaveField("Name", "ready"), HaveField("OK", true))), "%v", r.Checks)
		// Without the files (a run with no TLS host), the kit says where they come from.
		out, err := exec.CommandContext(ctx, node, "-e", `require("./driverkit").tlsFiles({})`).CombinedOutput()
		Expect(err).To(HaveOccurred())
		Expect(string(out)).To(ContainSubstring("no TLS files from skewtest (SKEWTEST_TLS_CA, SKEWTEST_TLS_CERT, SKEWTEST_TLS_KEY)"))
	}, SpecTimeout(time.Minute))

	It("says hello with its actions sorted, decode among them, and its params; an early observation follows hello", func(ctx SpecContext) {
		msgs := &messages{}
		d, _ := kitDriver(ctx, "minimal", msgs)
		h := d.Hello()
		Expect(h.Protocol).To(Equal(1))
		Expect(h.Role).To(Equal("client"))
		Expect(h.Kind).To(Equal("test"))
		Expect(string(h.Build)).To(MatchJSON(`{"product":"counter","version":"v1.0.0"}`))
		Expect(h.Actions).To(Equal([]string{"add", "decode", "stop"}))
		Expect(driver.CheckParams(h)).To(Succeed())
		Expect(h.Params).To(HaveKeyWithValue("add", ConsistOf(HaveField("Name", "n"))))

		msgs = &messages{}
		_, _ = kitDriver(ctx, "behaviour", msgs)
		all := msgs.all()
		Expect(all[0].Type).To(Equal(driver.TypeHello))
		Expect(all[1].What).To(Equal("early"))
	}, SpecTimeout(time.Minute))

	It("answers a thrown error, a rejected promise and a late unsupported action with their codes, and keeps serving", func(ctx SpecContext) {
		msgs := &messages{}
		d, log := kitDriver(ctx, "behaviour", msgs)
		for action, want := range map[string][2]string{
			"throw":            {"failed", "the product broke"},
			"reject":           {"failed", "a promise rejected"},
			"reject-value":     {"failed", "not an Error"},
			"late-unsupported": {"unsupported-action", "this build has no such thing after all"},
			"pause":            {"unsupported-action", `no action "pause" in v0.0.1`},
			"not-json":         {"failed", "the result is not JSON: Do not know how to serialize a BigInt"},
		} {
			_, err := d.Do(ctx, action, nil)
			Expect(err).To(HaveOccurred(), action)
			code, message := failure(err)
			Expect([2]string{code, message}).To(Equal(want), action)
		}
		_, err := d.DoLane(ctx, 2, "wait", nil)
		code, message := failure(err)
		Expect(code).To(Equal("bad-args"))
		Expect(message).To(ContainSubstring("lane 2 is not open"))
		m, err := d.Do(ctx, "wait", map[string]any{"tag": "still here"})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(m.Data)).To(ContainSubstring("still here"))
		Expect(os.ReadFile(log)).To(ContainSubstring("Error: the product broke\n    at "), "the stack is in the driver's log")
	}, SpecTimeout(time.Minute))

	It("runs actions one at a time in order, and decode beside them", func(ctx SpecContext) {
		msgs := &messages{}
		d, _ := kitDriver(ctx, "behaviour", msgs)
		slow, err := d.Send("wait", map[string]any{"ms": 400, "tag": "slow"})
		Expect(err).NotTo(HaveOccurred())
		fast, err := d.Send("wait", map[string]any{"tag": "fast"})
		Expect(err).NotTo(HaveOccurred())
		frames := []map[string]any{
			{"id": 1, "dir": "H>C", "path": "/x", "binary": true, "data": "UGluZw=="},
			{"id": 2, "dir": "H>C", "path": "/throw", "binary": false, "data": ""},
		}
		m, err := d.Do(ctx, "decode", map[string]any{"frames": frames})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(m.Data)).To(MatchJSON(`{"frames":[{"id":1,"type":"Ping","opcode":7},
			{"id":2,"refused":true,"reason":"decoder threw: this decoder cannot read /throw"}]}`))
		results := func() []int {
			var ids []int
			for _, m := range msgs.all() {
				if m.Type == driver.TypeResult {
					ids = append(ids, m.ID)
				}
			}
			return ids
		}
		Expect(results()).To(Equal([]int{m.ID}), "decode did not wait for the slow action")
		Eventually(results).WithContext(ctx).Should(Equal([]int{m.ID, slow, fast}))
		for _, msg := range msgs.all() {
			if msg.ID == fast {
				Expect(string(msg.Data)).To(MatchJSON(`{"done":["slow","fast"],"aborted":false}`))
			}
		}
	}, SpecTimeout(time.Minute))

	It("reports an error nothing caught as an error observation and keeps serving", func(ctx SpecContext) {
		msgs := &messages{}
		d, _ := kitDriver(ctx, "behaviour", msgs)
		_, err := d.Do(ctx, "crash-later", nil)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() []string { return msgs.observed("error") }).WithContext(ctx).Should(ConsistOf(
			MatchJSON(`{"message":"uncaught exception: a timer threw"}`),
			MatchJSON(`{"message":"unhandled rejection: nobody caught this"}`)))
		_, err = d.Do(ctx, "observe-not-json", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(msgs.observed("error")).To(ContainElement(MatchJSON(`{"message":"observation cycle is not JSON"}`)))
		_, err = d.Do(ctx, "wait", nil)
		Expect(err).NotTo(HaveOccurred())
	}, SpecTimeout(time.Minute))

	It("sends console.log, console.info and process.stdout.write to the log, never to the protocol", func(ctx SpecContext) {
		msgs := &messages{}
		d, log := kitDriver(ctx, "behaviour", msgs)
		_, err := d.Do(ctx, "log", nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Stop(ctx)).To(Succeed())
		for _, m := range msgs.all() {
			Expect(m.Type).NotTo(Equal(driver.TypeInvalid), m.Line)
		}
		Expect(os.ReadFile(log)).To(And(ContainSubstring("console.log\n"), ContainSubstring("console.info\n"),
			ContainSubstring("console.debug\n"), ContainSubstring("process.stdout.write\n")))
	}, SpecTimeout(time.Minute))

	It("answers stop after every earlier action, then exits 0", func(ctx SpecContext) {
		msgs := &messages{}
		d, _ := kitDriver(ctx, "behaviour", msgs)
		slow, err := d.Send("wait", map[string]any{"ms": 300, "tag": "slow"})
		Expect(err).NotTo(HaveOccurred())
		m, err := d.Do(ctx, "stop", nil)
		Expect(err).NotTo(HaveOccurred())
		var ids []int
		for _, msg := range msgs.all() {
			if msg.Type == driver.TypeResult {
				ids = append(ids, msg.ID)
			}
		}
		Expect(ids).To(Equal([]int{slow, m.ID}))
		Eventually(d.Exited()).WithContext(ctx).Should(BeClosed())
		Expect(d.ExitErr()).NotTo(HaveOccurred())
	}, SpecTimeout(time.Minute))

	It("exits 0 when its stdin closes", func(ctx SpecContext) {
		d, _ := kitDriver(ctx, "behaviour", &messages{})
		d.CloseStdin()
		Eventually(d.Exited()).WithContext(ctx).Within(5 * time.Second).Should(BeClosed())
		Expect(d.ExitErr()).NotTo(HaveOccurred())
	}, SpecTimeout(time.Minute))

	It("refuses what skewtest would refuse, when the driver registers it", func(ctx SpecContext) {
		// The kit's own checks run in node: each line is one misuse and the error it throws.
		script := `
const kit = require(process.env.DRIVERKIT);
const d = kit.newDriver({role: 'client', kind: 'k', product: 'p', version: 'v'}, {input: process.stdin, output: {write() {}}});
const tries = {
  'handle stop': () => d.handle('stop', () => {}),
  'handle decode': () => d.handle('decode', () => {}),
  'handle open-lane': () => d.handle('open-lane', () => {}),
  'twice': () => { d.handle('a', () => {}); d.handle('a', () => {}); },
  'enum without values': () => d.describe('a', {name: 'x', type: 'enum'}),
  'unknown type': () => d.describe('a', {name: 'x', type: 'float'}),
  'max below min': () => d.describe('a', {name: 'x', type: 'int', min: 5, max: 2}),
  'json without example': () => d.describe('a', {name: 'x', type: 'json'}),
  'limit 0': () => d.describe('a', {name: 'x', type: 'text', limits: [0]}),
};
const out = {};
for (const [name, f] of Object.entries(tries)) {
  try { f(); out[name] = 'accepted'; } catch (err) { out[name] = err.message; }
}
process.stderr.write(JSON.stringify(out));
`
		out, err := runNode(ctx, script)
		Expect(err).NotTo(HaveOccurred(), string(out))
		var got map[string]string
		Expect(json.Unmarshal(out, &got)).To(Succeed(), string(out))
		Expect(got).To(Equal(map[string]string{
			"handle stop":          "driverkit: stop is built in: close what the driver opened with onClose",
			"handle decode":        "driverkit: register decode with decode()",
			"handle open-lane":     "driverkit: open-lane: this kit serves no lanes",
			"twice":                `driverkit: action "a" registered twice`,
			"enum without values":  `driverkit: describe("a"): parameter x: an enum needs values`,
			"unknown type":         `driverkit: describe("a"): parameter x: type "float" is not one of text, int, bool, enum, id, json`,
			"max below min":        `driverkit: describe("a"): parameter x: max 2 is below min 5`,
			"json without example": `driverkit: describe("a"): parameter x: a json parameter needs an example`,
			"limit 0":              `driverkit: describe("a"): parameter x: limit 0: a limit is a size of at least 1`,
		}))
	}, SpecTimeout(time.Minute))
})
