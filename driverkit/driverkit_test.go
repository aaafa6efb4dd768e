package driverkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/driverkit"
)

type line = map[string]any

// buffer is a bytes.Buffer safe to read while the driver writes.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// lines decodes every line written so far; a line that is not JSON fails the spec.
func (b *buffer) lines() []line {
	GinkgoHelper()
	b.mu.Lock()
	text := b.b.String()
	b.mu.Unlock()
	var out []line
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m line
		Expect(json.Unmarshal([]byte(l), &m)).To(Succeed(), "not a JSON line: %q", l)
		out = append(out, m)
	}
	return out
}

// of returns the lines of one type.
func of(typ string, ls []line) []line {
	var out []line
	for _, l := range ls {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

// result returns the result of action id, or nil.
func result(id float64, ls []line) line {
	for _, l := range of("result", ls) {
		if l["id"] == id {
			return l
		}
	}
	return nil
}

// session runs a driver on a pipe, so actions can be sent one at a time.
type session struct {
	in   *io.PipeWriter
	out  *buffer
	done chan struct{} // closed when Run has returned, with err
	err  error
}

func start(ctx context.Context, d *driverkit.Driver, in *io.PipeWriter, out *buffer, startFn func(context.Context) (string, error)) *session {
	s := &session{in: in, out: out, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = d.Run(ctx, startFn)
	}()
	DeferCleanup(func() {
		_ = in.Close()
		Eventually(s.done).Should(BeClosed())
	})
	return s
}

// result waits for Run to return and returns its error.
func (s *session) wait() error {
	GinkgoHelper()
	Eventually(s.done).Should(BeClosed())
	return s.err
}

func (s *session) send(text string) {
	GinkgoHelper()
	_, err := io.WriteString(s.in, text+"\n")
	Expect(err).NotTo(HaveOccurred())
}

func newDriver(hello driverkit.Hello) (*driverkit.Driver, *io.PipeWriter, *buffer) {
	r, w := io.Pipe()
	out := &buffer{}
	return driverkit.New(r, out, hello), w, out
}

var desktop = driverkit.Hello{Role: driverkit.Client, Kind: "desktop", Product: "remoteterm", Version: "v1.4.120"}

func echo(d *driverkit.Driver) {
	d.Handle("echo", func(_ context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Bytes []byte `json:"bytes"`
		}](raw)
		if err != nil {
			return nil, err
		}
		d.Observe("input", map[string]any{"terminal": "t1", "bytes": args.Bytes})
		return map[string]int{"n": len(args.Bytes)}, nil
	})
}

var _ = Describe("Driver", func() {
	It("writes hello, ready, observations and one result per action, and stops after stop", func(ctx SpecContext) {
		out := &buffer{}
		in := strings.NewReader(strings.Join([]string{
			`{"id":1,"action":"echo","args":{"bytes":"aGk="}}`,
			`{"id":2,"action":"echo","args":{"bytes":7}}`,
			`{"id":3,"action":"boom","args":{}}`,
			`{"id":4,"action":"pause","args":{}}`,
			`not json`,
			`{"id":5,"action":"stop","args":{}}`,
			`{"id":6,"action":"echo","args":{}}`,
		}, "\n"))
		d := driverkit.New(in, out, desktop)
		echo(d)
		d.Handle("boom", func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.New("subscribe t1: not connected")
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		all := out.lines()
		Expect(all).To(HaveLen(9))
		// The reader reports a line that is not an action at once, ahead of the results of
		// earlier actions still waiting their turn.
		bad := line{"type": "observe", "what": "error", "data": line{"message": `action line "not json": invalid character 'o' in literal null (expecting 'u')`}}
		Expect(all).To(ContainElement(bad))
		var got []line
		for _, l := range all {
			if l["what"] != "error" {
				got = append(got, l)
			}
		}
		Expect(got[0]).To(Equal(line{"type": "hello", "protocol": 1.0, "role": "client", "kind": "desktop",
			"build": line{"product": "remoteterm", "version": "v1.4.120"}, "actions": []any{"boom", "echo", "stop"}}))
		Expect(got[1]).To(Equal(line{"type": "ready"}))
		Expect(got[2]).To(Equal(line{"type": "observe", "what": "input", "data": line{"terminal": "t1", "bytes": "aGk="}}))
		Expect(got[3]).To(Equal(line{"type": "result", "id": 1.0, "ok": true, "data": line{"n": 2.0}}))
		Expect(got[4]).To(HaveKeyWithValue("ok", false))
		Expect(got[4]["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(got[5]).To(Equal(line{"type": "result", "id": 3.0, "ok": false,
			"error": line{"code": "failed", "message": "subscribe t1: not connected"}}))
		Expect(got[6]).To(Equal(line{"type": "result", "id": 4.0, "ok": false,
			"error": line{"code": "unsupported-action", "message": `no action "pause" in v1.4.120`}}))
		Expect(got[7]).To(Equal(line{"type": "result", "id": 5.0, "ok": true, "data": line{}}))
	})

	It("reports a host's URL in ready, and returns at the end of its input", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"echo","args":{}}`), out, driverkit.Hello{Role: driverkit.Host, Product: "p", Version: "worktree"})
		echo(d)
		Expect(d.Run(ctx, func(context.Context) (string, error) { return "ws://127.0.0.1:1", nil })).To(Succeed())
		got := out.lines()
		Expect(got[0]).NotTo(HaveKey("kind"))
		Expect(got[1]).To(Equal(line{"type": "ready", "url": "ws://127.0.0.1:1"}))
		Expect(result(1, got)).To(HaveKeyWithValue("ok", true))
	})

	It("describes actions' parameters in hello, and only the described ones", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		echo(d)
		d.Handle("resize", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		d.Describe("echo", driverkit.Param{Name: "text", Type: driverkit.Text, Max: 1 << 20, Limits: []int{49152}, UTF8: true, Feeds: "screen"},
			driverkit.Param{Name: "terminal", Type: driverkit.ID, Example: "t1"})
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(got[0]["params"]).To(Equal(line{"echo": []any{
			line{"name": "text", "type": "text", "max": 1048576.0, "limits": []any{49152.0}, "utf8": true, "feeds": "screen"},
			line{"name": "terminal", "type": "id", "example": "t1"}}}))
	})

	It("leaves params out of a hello that describes nothing", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		echo(d)
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(out.lines()[0]).NotTo(HaveKey("params"))
	})

	It("panics on a description that cannot be drawn from", func() {
		d := driverkit.New(strings.NewReader(""), io.Discard, desktop)
		Expect(func() { d.Describe("echo", driverkit.Param{Name: "n", Type: "float"}) }).To(PanicWith(ContainSubstring(`type "float"`)))
		Expect(func() { d.Describe("echo", driverkit.Param{Name: "mode", Type: driverkit.Enum}) }).To(PanicWith(ContainSubstring("an enum needs values")))
		Expect(func() { d.Describe("echo", driverkit.Param{Name: "n", Type: driverkit.Int, Min: 5, Max: 1}) }).To(PanicWith(ContainSubstring("max 1 is below min 5")))
		Expect(func() { d.Describe("echo", driverkit.Param{Type: driverkit.Int}) }).To(PanicWith(ContainSubstring("needs a name")))
	})

	It("panics at Run on a described action that is not registered", func(ctx SpecContext) {
		d := driverkit.New(strings.NewReader(""), io.Discard, desktop)
		d.Describe("nope", driverkit.Param{Name: "n", Type: driverkit.Int})
		Expect(func() { _ = d.Run(ctx, nil) }).To(PanicWith(ContainSubstring(`Describe("nope"): no such action`)))
	})

	It("reports a start error as an error observation, without ready", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		err := d.Run(ctx, func(context.Context) (string, error) { return "", errors.New("listen: address in use") })
		Expect(err).To(MatchError("start: listen: address in use"))
		got := out.lines()
		Expect(got).To(HaveLen(2))
		Expect(got[1]).To(Equal(line{"type": "observe", "what": "error", "data": line{"message": "listen: address in use"}}))
	})

	It("writes observations made before Run after hello", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		d.Errorf("session: %s", "no daemon")
		d.Observe("nothing", nil)
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(got[0]).To(HaveKeyWithValue("type", "hello"))
		Expect(got[1]).To(Equal(line{"type": "observe", "what": "error", "data": line{"message": "session: no daemon"}}))
		Expect(got[2]).To(Equal(line{"type": "observe", "what": "nothing", "data": line{}}))
		Expect(got[3]).To(HaveKeyWithValue("type", "ready"))
	})

	It("answers a handler's panic with a failed result and keeps serving", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"crash"}`+"\n"+`{"id":2,"action":"echo"}`), out, desktop)
		echo(d)
		d.Handle("crash", func(context.Context, json.RawMessage) (any, error) {
			var m map[string]int
			m["x"] = 1 // nil map: panics
			return nil, nil
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(result(1, got)["error"]).To(And(HaveKeyWithValue("code", "failed"),
			HaveKeyWithValue("message", ContainSubstring("crash: panic: assignment to entry in nil map"))))
		Expect(result(2, got)).To(HaveKeyWithValue("ok", true))
	})

	It("lets a handler answer unsupported-action, bad-args or failed", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"presence"}`+"\n"+`{"id":2,"action":"wrapped"}`+"\n"+`{"id":3,"action":"data"}`), out, desktop)
		d.Handle("presence", func(context.Context, json.RawMessage) (any, error) {
			return nil, driverkit.Unsupported("presence: no presence in %s", "v1.4.120")
		})
		d.Handle("wrapped", func(context.Context, json.RawMessage) (any, error) {
			return nil, driverkit.Failed(fmt.Errorf("dial: %w", driverkit.BadArgs("bad url")))
		})
		d.Handle("data", func(context.Context, json.RawMessage) (any, error) { return make(chan int), nil })
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(result(1, got)["error"]).To(Equal(line{"code": "unsupported-action", "message": "presence: no presence in v1.4.120"}))
		Expect(result(2, got)["error"]).To(Equal(line{"code": "failed", "message": "dial: bad url"}))
		Expect(result(3, got)["error"]).To(HaveKeyWithValue("message", ContainSubstring("encode result")))
	})

	It("runs actions one at a time in order, and decode beside a blocked action", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		release := make(chan struct{})
		var order []string
		var mu sync.Mutex
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		d.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
			note("slow")
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, nil
		})
		d.Handle("next", func(context.Context, json.RawMessage) (any, error) { note("next"); return nil, nil })
		d.Decode(func(f driverkit.Frame) driverkit.Decoded {
			if f.Binary {
				return driverkit.Decoded{Refused: true, Reason: fmt.Sprintf("unknown packet type %d", f.Data[0])}
			}
			return driverkit.Decoded{Type: "publish", Fields: map[string]any{"topic": string(f.Data)}}
		})
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"slow"}`)
		s.send(`{"id":2,"action":"next"}`)
		s.send(`{"id":3,"action":"decode","args":{"frames":[{"id":1,"dir":"H>C","path":"/rpc","binary":false,"data":"bmV3cw=="},{"id":2,"dir":"H>C","path":"/rpc","binary":true,"data":"CQ=="}]}}`)
		Eventually(func() line { return result(3, out.lines()) }).Should(Equal(line{"type": "result", "id": 3.0, "ok": true, "data": line{"frames": []any{
			line{"id": 1.0, "type": "publish", "opcode": 0.0, "fields": line{"topic": "news"}},
			line{"id": 2.0, "refused": true, "reason": "unknown packet type 9"},
		}}}))
		Expect(result(1, out.lines())).To(BeNil())
		Expect(result(2, out.lines())).To(BeNil())
		close(release)
		Eventually(func() line { return result(2, out.lines()) }).ShouldNot(BeNil())
		mu.Lock()
		Expect(order).To(Equal([]string{"slow", "next"}))
		mu.Unlock()
		Expect(out.lines()[0]["actions"]).To(Equal([]any{"decode", "next", "slow", "stop"}))
		s.send(`{"id":4,"action":"stop"}`)
		Expect(s.wait()).To(Succeed())
	})

	It("writes stop's result after every earlier action's, decode included, then returns", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		release := make(chan struct{})
		d.Decode(func(driverkit.Frame) driverkit.Decoded { <-release; return driverkit.Decoded{Type: "x"} })
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"decode","args":{"frames":[{"id":7}]}}`)
		s.send(`{"id":2,"action":"stop"}`)
		Consistently(s.done, 100*time.Millisecond).ShouldNot(BeClosed())
		close(release)
		Expect(s.wait()).To(Succeed())
		got := of("result", out.lines())
		Expect(got).To(HaveLen(2))
		Expect(got[0]["id"]).To(Equal(1.0))
		Expect(got[1]).To(Equal(line{"type": "result", "id": 2.0, "ok": true, "data": line{}}))
	})

	It("answers decode frame by frame: a panicking decoder refuses that frame, and frames are required", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"decode","args":{"frames":[{"id":1,"data":""},{"id":2,"binary":true,"data":"Dw=="}]}}`+"\n"+`{"id":2,"action":"decode","args":{}}`), out, desktop)
		d.Decode(func(f driverkit.Frame) driverkit.Decoded {
			if len(f.Data) == 0 {
				panic("empty frame")
			}
			return driverkit.Decoded{Type: "OutputSpan", Opcode: int(f.Data[0]), Refused: true, Reason: "unknown opcode"}
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(result(1, got)["data"]).To(Equal(line{"frames": []any{
			line{"id": 1.0, "refused": true, "reason": "decoder panicked: empty frame"},
			line{"id": 2.0, "type": "OutputSpan", "opcode": 15.0, "refused": true, "reason": "unknown opcode"},
		}}))
		Expect(result(2, got)["error"]).To(Equal(line{"code": "bad-args", "message": "decode needs frames"}))
	})

	It("answers decode with unsupported-action when no decoder is registered", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"decode","args":{"frames":[]}}`), out, desktop)
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(result(1, out.lines())["error"]).To(HaveKeyWithValue("code", "unsupported-action"))
		Expect(out.lines()[0]["actions"]).To(Equal([]any{"stop"}))
	})

	It("writes whole lines when observations come from many goroutines", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		Expect(d.Run(ctx, nil)).To(Succeed())
		var wg sync.WaitGroup
		big := strings.Repeat("x", 64<<10)
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					d.Observe("rendered-output", map[string]any{"g": g, "i": i, "text": big})
				}
			}()
		}
		wg.Wait()
		Expect(of("observe", out.lines())).To(HaveLen(16 * 50))
	})

	It("ends Run when its context is cancelled, with a blocked action's context cancelled", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		started, cancelled := make(chan struct{}), make(chan struct{})
		d.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})
		runCtx, cancel := context.WithCancel(ctx)
		s := start(runCtx, d, in, out, nil)
		s.send(`{"id":1,"action":"block"}`)
		Eventually(started).Should(BeClosed())
		cancel()
		Expect(s.wait()).To(MatchError(context.Canceled))
		Expect(cancelled).To(BeClosed())
	})

	It("skips an action line that is too long, and goes on", func(ctx SpecContext) {
		out := &buffer{}
		long := `{"id":1,"action":"echo","args":{"bytes":"` + strings.Repeat("A", 64<<20) + `"}}`
		d := driverkit.New(strings.NewReader(long+"\n"+`{"id":2,"action":"echo"}`+"\n"), out, desktop)
		echo(d)
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(got[2]["data"]).To(HaveKeyWithValue("message", ContainSubstring("longer than")))
		Expect(result(1, got)).To(BeNil())
		Expect(result(2, got)).To(HaveKeyWithValue("ok", true))
	})

	It("returns the error when stdout breaks", func(ctx SpecContext) {
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"stop"}`), failingWriter{}, desktop)
		Expect(d.Run(ctx, nil)).To(MatchError(ContainSubstring("write to stdout: broken pipe")))
	})

	DescribeTable("refuses to register",
		func(register func(d *driverkit.Driver), want string) {
			d := driverkit.New(strings.NewReader(""), io.Discard, desktop)
			echo(d)
			Expect(func() { register(d) }).To(PanicWith(ContainSubstring(want)))
		},
		Entry("an action twice", func(d *driverkit.Driver) { echo(d) }, `"echo" registered twice`),
		Entry("stop", func(d *driverkit.Driver) {
			d.Handle("stop", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}, "stop is built in"),
		Entry("decode as an action", func(d *driverkit.Driver) {
			d.Handle("decode", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}, "with Decode"),
		Entry("a second decoder", func(d *driverkit.Driver) {
			f := func(driverkit.Frame) driverkit.Decoded { return driverkit.Decoded{} }
			d.Decode(f)
			d.Decode(f)
		}, "registered twice"),
		Entry("after Run", func(d *driverkit.Driver) {
			_ = d.Run(context.Background(), nil)
			d.Handle("late", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}, "after Run"),
	)
})

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

var _ = Describe("Args", func() {
	type args struct {
		Terminal string `json:"terminal"`
	}
	It("decodes, ignores unknown fields, and takes absent args as zero", func() {
		Expect(driverkit.Args[args](json.RawMessage(`{"terminal":"t1","later":1}`))).To(Equal(args{Terminal: "t1"}))
		Expect(driverkit.Args[args](nil)).To(Equal(args{}))
		Expect(driverkit.Args[args](json.RawMessage(`null`))).To(Equal(args{}))
	})
	It("calls malformed args bad-args", func() {
		_, err := driverkit.Args[args](json.RawMessage(`{"terminal":7}`))
		var e *driverkit.Error
		Expect(errors.As(err, &e)).To(BeTrue())
		Expect(e.Code).To(Equal(driverkit.CodeBadArgs))
	})
})

var _ = Describe("Listen", func() {
	It("listens on loopback port 0 and reports the port it got", func(ctx SpecContext) {
		ln, url, err := driverkit.Listen(ctx)
		Expect(err).NotTo(HaveOccurred())
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port
		Expect(port).NotTo(BeZero())
		Expect(url).To(Equal(fmt.Sprintf("ws://127.0.0.1:%d", port)))
	})
})

var _ = Describe("FromEnv", func() {
	It("reads the SKEWTEST_ variables", func() {
		for k, v := range map[string]string{"SKEWTEST_DRIVER_PROTOCOL": "1", "SKEWTEST_ROLE": "client", "SKEWTEST_KIND": "mobile",
			"SKEWTEST_HOST_URL": "ws://127.0.0.1:9", "SKEWTEST_BUILD_LABEL": "v1.4.173", "SKEWTEST_BUILD_REVISION": "abc123"} {
			GinkgoT().Setenv(k, v)
		}
		Expect(driverkit.FromEnv()).To(Equal(driverkit.Env{Protocol: 1, Role: "client", Kind: "mobile",
			HostURL: "ws://127.0.0.1:9", BuildLabel: "v1.4.173", BuildRevision: "abc123"}))
	})
})
