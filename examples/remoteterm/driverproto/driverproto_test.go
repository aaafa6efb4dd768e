package driverproto_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/driverproto"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

func lines(b *bytes.Buffer) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		ExpectWithOffset(1, json.Unmarshal([]byte(l), &m)).To(Succeed(), l)
		out = append(out, m)
	}
	return out
}

var _ = Describe("Serve", func() {
	var (
		out *bytes.Buffer
		w   *driverproto.Writer
		reg *driverproto.Registry
	)
	BeforeEach(func() {
		out = &bytes.Buffer{}
		w = driverproto.NewWriter(out)
		reg = driverproto.NewRegistry()
		reg.Register("echo", func(_ context.Context, raw json.RawMessage) (any, error) {
			args, err := driverproto.Args[struct {
				Bytes []byte `json:"bytes"`
			}](raw)
			if err != nil {
				return nil, err
			}
			w.Observe(observe.Input{Terminal: "t1", Bytes: args.Bytes})
			return map[string]int{"n": len(args.Bytes)}, nil
		})
		reg.Register("boom", func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.New("subscribe t1: not connected")
		})
		reg.Register(driverproto.StopAction, func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	})

	It("writes hello with the sorted action list", func() {
		Expect(w.Hello(driverproto.Client, "desktop", driverproto.Build{Product: "remoteterm", Version: "v1.4.173"}, reg.Actions())).To(Succeed())
		Expect(out.String()).To(MatchJSON(`{"type":"hello","protocol":1,"role":"client","kind":"desktop",
			"build":{"product":"remoteterm","version":"v1.4.173"},"actions":["boom","echo","stop"]}`))
	})

	It("answers every action with a result, and stops after stop", func(ctx SpecContext) {
		in := strings.NewReader(strings.Join([]string{
			`{"id":1,"action":"echo","args":{"bytes":"aGk="}}`,
			`{"id":2,"action":"echo","args":{"bytes":7}}`,
			`{"id":3,"action":"boom","args":{}}`,
			`{"id":4,"action":"pause","args":{}}`,
			`not json`,
			`{"id":5,"action":"stop","args":{}}`,
			`{"id":6,"action":"echo","args":{}}`,
		}, "\n"))
		Expect(driverproto.Serve(ctx, in, w, reg, "v1.4.120")).To(Succeed())
		got := lines(out)
		Expect(got).To(HaveLen(7))
		Expect(got[0]).To(Equal(map[string]any{"type": "observe", "what": "input", "data": map[string]any{"terminal": "t1", "bytes": "aGk="}}))
		Expect(got[1]).To(Equal(map[string]any{"type": "result", "id": 1.0, "ok": true, "data": map[string]any{"n": 2.0}}))
		Expect(got[2]["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(got[3]).To(Equal(map[string]any{"type": "result", "id": 3.0, "ok": false,
			"error": map[string]any{"code": "failed", "message": "subscribe t1: not connected"}}))
		Expect(got[4]).To(Equal(map[string]any{"type": "result", "id": 4.0, "ok": false,
			"error": map[string]any{"code": "unsupported-action", "message": `no action "pause" in v1.4.120`}}))
		Expect(got[5]).To(HaveKeyWithValue("what", "error"))
		Expect(got[6]).To(Equal(map[string]any{"type": "result", "id": 5.0, "ok": true, "data": map[string]any{}}))
	})

	It("returns at the end of its input", func(ctx SpecContext) {
		Expect(driverproto.Serve(ctx, strings.NewReader(`{"id":1,"action":"echo","args":{}}`+"\n"), w, reg, "worktree")).To(Succeed())
		Expect(lines(out)).To(HaveLen(2))
	})

	It("writes ready with the host's url, and without one for a client", func() {
		Expect(w.Ready("ws://127.0.0.1:1")).To(Succeed())
		Expect(w.Ready("")).To(Succeed())
		Expect(lines(out)).To(Equal([]map[string]any{{"type": "ready", "url": "ws://127.0.0.1:1"}, {"type": "ready"}}))
	})

	It("refuses to register an action twice", func() {
		Expect(func() { reg.Register("echo", nil) }).To(Panic())
	})
})
