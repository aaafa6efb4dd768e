package driverkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/driverkit"
)

// counting builds a counter instance on in: add {"n"} adds n, observes the total and
// returns it. The count has no lock: an instance's actions run one at a time.
func counting(in driverkit.Instance) {
	total := 0
	in.Handle("add", func(_ context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			N int `json:"n"`
		}](raw)
		if err != nil {
			return nil, err
		}
		total += args.N
		in.Observe("total", map[string]int{"total": total})
		return map[string]int{"total": total}, nil
	})
}

// notes is a list of what happened, safe from any goroutine.
type notes struct {
	mu   sync.Mutex
	list []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, s)
}

func (n *notes) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

// await waits for the result of action id.
func (s *session) await(id float64) line {
	GinkgoHelper()
	var got line
	Eventually(func() line { got = result(id, s.out.lines()); return got }).ShouldNot(BeNil(), "result %v", id)
	return got
}

// index is the position of the first line that matches, or -1.
func index(ls []line, match func(line) bool) int {
	for i, l := range ls {
		if match(l) {
			return i
		}
	}
	return -1
}

func isResult(id float64) func(line) bool {
	return func(l line) bool { return l["type"] == "result" && l["id"] == id }
}

func isObserve(lane float64, what string) func(line) bool {
	return func(l line) bool {
		got, _ := l["lane"].(float64)
		return l["type"] == "observe" && got == lane && l["what"] == what
	}
}

var _ = Describe("Lanes", func() {
	It("lists open-lane and close-lane in hello only when the driver serves lanes", func(ctx SpecContext) {
		for _, lanes := range []bool{false, true} {
			out := &buffer{}
			d := driverkit.New(strings.NewReader(""), out, desktop)
			counting(d)
			want := []any{"add", "stop"}
			if lanes {
				d.Lanes(func(context.Context, *driverkit.Lane) (string, error) { return "", nil })
				want = []any{"add", "close-lane", "open-lane", "stop"}
			}
			Expect(d.Run(ctx, nil)).To(Succeed())
			Expect(out.lines()[0]["actions"]).To(Equal(want))
		}
	})

	It("opens each lane as a fresh instance whose observations carry the lane; lane 0 is the driver's own, as before", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		counting(d)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			counting(l)
			l.Handle("where", func(context.Context, json.RawMessage) (any, error) {
				return map[string]any{"lane": l.ID(), "hostURL": l.HostURL()}, nil
			})
			return "", nil
		})
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"open-lane","args":{"lane":1,"hostURL":"ws://127.0.0.1:41001"}}`)
		s.send(`{"id":2,"action":"open-lane","args":{"lane":2,"hostURL":"ws://127.0.0.1:41002"}}`)
		s.send(`{"id":3,"lane":1,"action":"add","args":{"n":1}}`)
		s.send(`{"id":4,"lane":2,"action":"add","args":{"n":10}}`)
		s.send(`{"id":5,"lane":1,"action":"add","args":{"n":2}}`)
		s.send(`{"id":6,"action":"add","args":{"n":100}}`)
		s.send(`{"id":7,"lane":0,"action":"add","args":{"n":5}}`)
		s.send(`{"id":8,"lane":2,"action":"where"}`)
		s.send(`{"id":9,"action":"where"}`)

		Expect(s.await(1)).To(Equal(line{"type": "result", "id": 1.0, "ok": true, "data": line{}}))
		Expect(s.await(2)).To(Equal(line{"type": "result", "id": 2.0, "ok": true, "data": line{}}))
		Expect(s.await(3)["data"]).To(Equal(line{"total": 1.0}))
		Expect(s.await(4)["data"]).To(Equal(line{"total": 10.0}))
		Expect(s.await(5)["data"]).To(Equal(line{"total": 3.0}))
		Expect(s.await(6)["data"]).To(Equal(line{"total": 100.0}))
		Expect(s.await(7)["data"]).To(Equal(line{"total": 105.0}))
		Expect(s.await(8)["data"]).To(Equal(line{"lane": 2.0, "hostURL": "ws://127.0.0.1:41002"}))
		Expect(s.await(9)["error"]).To(HaveKeyWithValue("code", "unsupported-action"))

		obs := of("observe", out.lines())
		Expect(obs).To(ConsistOf(
			line{"type": "observe", "lane": 1.0, "what": "total", "data": line{"total": 1.0}},
			line{"type": "observe", "lane": 2.0, "what": "total", "data": line{"total": 10.0}},
			line{"type": "observe", "lane": 1.0, "what": "total", "data": line{"total": 3.0}},
			line{"type": "observe", "what": "total", "data": line{"total": 100.0}},
			line{"type": "observe", "what": "total", "data": line{"total": 105.0}},
		))
		for _, r := range of("result", out.lines()) {
			Expect(r).NotTo(HaveKey("lane"), "results carry no lane")
		}
		s.send(`{"id":10,"action":"stop"}`)
		Expect(s.wait()).To(Succeed())
	})

	It("answers a host lane's open-lane with the URL it listens on", func(ctx SpecContext) {
		d, in, out := newDriver(driverkit.Hello{Role: driverkit.Host, Product: "p", Version: "worktree"})
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			return fmt.Sprintf("ws://127.0.0.1:%d", 40000+l.ID()), nil
		})
		s := start(ctx, d, in, out, func(context.Context) (string, error) { return "ws://127.0.0.1:40000", nil })
		s.send(`{"id":1,"action":"open-lane","args":{"lane":3}}`)
		Expect(s.await(1)).To(Equal(line{"type": "result", "id": 1.0, "ok": true, "data": line{"url": "ws://127.0.0.1:40003"}}))
	})

	It("runs each lane on its own: a blocked action holds up neither another lane nor the driver's own instance", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		counting(d)
		release := make(chan struct{})
		var done notes
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			counting(l)
			l.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				done.add(fmt.Sprintf("lane %d: block", l.ID()))
				return nil, nil
			})
			l.Handle("note", func(_ context.Context, raw json.RawMessage) (any, error) {
				args, _ := driverkit.Args[struct{ Text string }](raw)
				done.add(fmt.Sprintf("lane %d: %s", l.ID(), args.Text))
				return nil, nil
			})
			return "", nil
		})
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"open-lane","args":{"lane":1}}`)
		s.send(`{"id":2,"action":"open-lane","args":{"lane":2}}`)
		s.send(`{"id":3,"lane":1,"action":"block"}`)
		s.send(`{"id":4,"lane":1,"action":"note","args":{"text":"a"}}`)
		s.send(`{"id":5,"lane":1,"action":"note","args":{"text":"b"}}`)
		s.send(`{"id":6,"lane":2,"action":"note","args":{"text":"x"}}`)
		s.send(`{"id":7,"lane":2,"action":"add","args":{"n":1}}`)
		s.send(`{"id":8,"action":"add","args":{"n":1}}`)

		Expect(s.await(6)).To(HaveKeyWithValue("ok", true))
		Expect(s.await(7)).To(HaveKeyWithValue("ok", true))
		Expect(s.await(8)).To(HaveKeyWithValue("ok", true))
		got := out.lines()
		Expect(result(3, got)).To(BeNil(), "lane 1 is blocked")
		Expect(result(4, got)).To(BeNil(), "lane 1's next actions wait for it")
		Expect(done.get()).To(Equal([]string{"lane 2: x"}))

		close(release)
		s.await(5)
		Expect(done.get()).To(Equal([]string{"lane 2: x", "lane 1: block", "lane 1: a", "lane 1: b"}))
		got = out.lines()
		Expect(index(got, isResult(3))).To(BeNumerically("<", index(got, isResult(4))))
		Expect(index(got, isResult(4))).To(BeNumerically("<", index(got, isResult(5))))
	})

	It("carries out a lane's actions in the order sent while other lanes run", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			seen := 0
			l.Handle("next", func(_ context.Context, raw json.RawMessage) (any, error) {
				args, _ := driverkit.Args[struct{ I int }](raw)
				if args.I != seen+1 {
					return nil, fmt.Errorf("lane %d: action %d after %d", l.ID(), args.I, seen)
				}
				seen = args.I
				l.Observe("seen", map[string]int{"i": seen})
				return map[string]int{"i": seen}, nil
			})
			return "", nil
		})
		s := start(ctx, d, in, out, nil)
		const lanes, each = 4, 200
		var text strings.Builder
		id := 0
		for lane := 1; lane <= lanes; lane++ {
			id++
			fmt.Fprintf(&text, `{"id":%d,"action":"open-lane","args":{"lane":%d}}`+"\n", id, lane)
		}
		for i := 1; i <= each; i++ {
			for lane := 1; lane <= lanes; lane++ {
				id++
				fmt.Fprintf(&text, `{"id":%d,"lane":%d,"action":"next","args":{"i":%d}}`+"\n", id, lane, i)
			}
		}
		id++
		fmt.Fprintf(&text, `{"id":%d,"action":"stop"}`, id)
		s.send(text.String())
		Expect(s.wait()).To(Succeed())

		got := out.lines()
		Expect(of("result", got)).To(HaveLen(id))
		Expect(got[len(got)-1]).To(Equal(line{"type": "result", "id": float64(id), "ok": true, "data": line{}}))
		last := map[float64]float64{} // lane -> last i seen, in output order
		for _, l := range got {
			switch {
			case l["type"] == "result" && l["ok"] == false:
				Fail(fmt.Sprint(l))
			case l["type"] == "observe":
				lane, i := l["lane"].(float64), l["data"].(line)["i"].(float64)
				Expect(i).To(Equal(last[lane]+1), "lane %v", lane)
				last[lane] = i
			}
		}
		Expect(last).To(Equal(map[float64]float64{1: each, 2: each, 3: each, 4: each}))
	})

	It("closes a lane after its earlier actions: OnClose newest first, then the result, and nothing of the lane after it", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		release := make(chan struct{})
		var done notes
		lanes := make(chan *driverkit.Lane, 1)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			l.OnClose(func() { done.add("closed first"); l.Observe("closing", nil) })
			l.OnClose(func() { done.add("closed second") })
			l.Handle("block", func(context.Context, json.RawMessage) (any, error) {
				<-release
				done.add("block")
				return nil, nil
			})
			lanes <- l
			return "", nil
		})
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"open-lane","args":{"lane":1}}`)
		s.send(`{"id":2,"lane":1,"action":"block"}`)
		s.send(`{"id":3,"action":"close-lane","args":{"lane":1}}`)
		s.send(`{"id":4,"lane":1,"action":"block"}`)
		s.await(1)
		Expect(s.await(4)["error"]).To(Equal(line{"code": "bad-args", "message": "block: lane 1 is not open"}))
		Expect(result(3, out.lines())).To(BeNil())
		Expect(done.get()).To(BeEmpty())

		close(release)
		Expect(s.await(3)).To(Equal(line{"type": "result", "id": 3.0, "ok": true, "data": line{}}))
		Expect(done.get()).To(Equal([]string{"block", "closed second", "closed first"}))
		got := out.lines()
		Expect(index(got, isResult(2))).To(BeNumerically("<", index(got, isObserve(1, "closing"))))
		Expect(index(got, isObserve(1, "closing"))).To(BeNumerically("<", index(got, isResult(3))))

		l := <-lanes
		l.Observe("late", nil)
		l.Errorf("late: %s", "too")
		l.OnClose(func() { done.add("registered late") })
		Expect(done.get()[len(done.get())-1]).To(Equal("registered late"), "OnClose on a closed lane runs at once")
		s.send(`{"id":5,"action":"close-lane","args":{"lane":1}}`)
		Expect(s.await(5)["error"]).To(Equal(line{"code": "bad-args", "message": "close-lane: lane 1 is not open"}))
		got = out.lines()
		closedAt := index(got, isResult(3))
		for _, l := range got[closedAt+1:] {
			Expect(l).NotTo(HaveKey("lane"), "nothing of lane 1 after its close-lane result")
		}
	})

	It("reports an OnClose that panics as an error of the lane, and still runs the others", func(ctx SpecContext) {
		out := &buffer{}
		var done notes
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"open-lane","args":{"lane":1}}`+"\n"+`{"id":2,"action":"close-lane","args":{"lane":1}}`), out, desktop)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			l.OnClose(func() { done.add("closed") })
			l.OnClose(func() { panic("server already closed") })
			return "", nil
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(done.get()).To(Equal([]string{"closed"}))
		got := out.lines()
		Expect(got).To(ContainElement(line{"type": "observe", "lane": 1.0, "what": "error", "data": line{"message": "lane 1: close: panic: server already closed"}}))
		Expect(result(2, got)).To(HaveKeyWithValue("ok", true))
	})

	It("answers actions for a lane that is not open bad-args, and an action the lane lacks unsupported-action", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(strings.Join([]string{
			`{"id":1,"lane":7,"action":"add","args":{"n":1}}`,
			`{"id":2,"action":"open-lane","args":{"lane":0}}`,
			`{"id":3,"action":"open-lane","args":{"lane":"one"}}`,
			`{"id":4,"action":"open-lane","args":{"lane":1}}`,
			`{"id":5,"action":"open-lane","args":{"lane":1}}`,
			`{"id":6,"lane":1,"action":"pause"}`,
			`{"id":7,"action":"close-lane","args":{"lane":9}}`,
			`{"id":8,"lane":-1,"action":"add"}`,
			`{"id":9,"lane":1,"action":"decode","args":{"frames":[]}}`,
		}, "\n")), out, desktop)
		counting(d)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) { counting(l); return "", nil })
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(result(1, got)["error"]).To(Equal(line{"code": "bad-args", "message": "add: lane 7 is not open"}))
		Expect(result(2, got)["error"]).To(Equal(line{"code": "bad-args", "message": "open-lane needs a positive lane, not 0"}))
		Expect(result(3, got)["error"]).To(HaveKeyWithValue("code", "bad-args"))
		Expect(result(4, got)).To(HaveKeyWithValue("ok", true))
		Expect(result(5, got)["error"]).To(Equal(line{"code": "bad-args", "message": "open-lane: lane 1 is already open"}))
		Expect(result(6, got)["error"]).To(Equal(line{"code": "unsupported-action", "message": `no action "pause" in v1.4.120`}))
		Expect(result(7, got)["error"]).To(Equal(line{"code": "bad-args", "message": "close-lane: lane 9 is not open"}))
		Expect(result(8, got)["error"]).To(Equal(line{"code": "bad-args", "message": "add: lane -1 is not open"}))
		Expect(result(9, got)["error"]).To(HaveKeyWithValue("code", "unsupported-action"), "decode belongs to no lane")
	})

	It("answers lane actions of a driver without lanes as before: open-lane is unsupported, a lane is not open", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"open-lane","args":{"lane":1}}`+"\n"+`{"id":2,"lane":1,"action":"add"}`), out, desktop)
		counting(d)
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(result(1, out.lines())["error"]).To(HaveKeyWithValue("code", "unsupported-action"))
		Expect(result(2, out.lines())["error"]).To(HaveKeyWithValue("code", "bad-args"))
	})

	It("answers a failed open with its error, closes what it opened, and answers the lane's later actions bad-args", func(ctx SpecContext) {
		out := &buffer{}
		var done notes
		d := driverkit.New(strings.NewReader(strings.Join([]string{
			`{"id":1,"action":"open-lane","args":{"lane":2}}`,
			`{"id":2,"lane":2,"action":"add"}`,
			`{"id":3,"action":"open-lane","args":{"lane":3}}`,
			`{"id":4,"action":"open-lane","args":{"lane":4}}`,
		}, "\n")), out, desktop)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			counting(l)
			l.OnClose(func() { done.add(fmt.Sprintf("lane %d closed", l.ID())) })
			switch l.ID() {
			case 2:
				return "", errors.New("listen: address in use")
			case 3:
				var m map[string]int
				m["x"] = 1 // nil map: panics
			case 4:
				return "", driverkit.BadArgs("hostURL is required")
			}
			return "", nil
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		got := out.lines()
		Expect(result(1, got)["error"]).To(Equal(line{"code": "failed", "message": "listen: address in use"}))
		Expect(result(2, got)["error"]).To(Equal(line{"code": "bad-args", "message": "add: lane 2 is not open"}))
		Expect(result(3, got)["error"]).To(And(HaveKeyWithValue("code", "failed"), HaveKeyWithValue("message", ContainSubstring("open-lane: panic: assignment to entry in nil map"))))
		Expect(result(4, got)["error"]).To(Equal(line{"code": "bad-args", "message": "hostURL is required"}))
		Expect(done.get()).To(ConsistOf("lane 2 closed", "lane 3 closed", "lane 4 closed"))
	})

	It("closes every open lane at stop, after the lanes' earlier actions, and writes stop's result last", func(ctx SpecContext) {
		d, in, out := newDriver(desktop)
		release := make(chan struct{})
		var done notes
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			l.OnClose(func() { done.add(fmt.Sprintf("lane %d closed", l.ID())) })
			l.Handle("block", func(context.Context, json.RawMessage) (any, error) {
				<-release
				done.add(fmt.Sprintf("lane %d unblocked", l.ID()))
				return nil, nil
			})
			return "", nil
		})
		s := start(ctx, d, in, out, nil)
		s.send(`{"id":1,"action":"open-lane","args":{"lane":1}}`)
		s.send(`{"id":2,"action":"open-lane","args":{"lane":2}}`)
		s.send(`{"id":3,"lane":1,"action":"block"}`)
		s.await(2)
		s.send(`{"id":4,"action":"stop"}`)
		Consistently(s.done, 100*time.Millisecond).ShouldNot(BeClosed())
		Expect(done.get()).NotTo(ContainElement("lane 1 closed"))
		close(release)
		Expect(s.wait()).To(Succeed())
		// Lane 2 may close while lane 1 waits; lane 1 closes after its action.
		Expect(done.get()).To(ConsistOf("lane 1 unblocked", "lane 1 closed", "lane 2 closed"))
		Expect(slices.Index(done.get(), "lane 1 unblocked")).To(BeNumerically("<", slices.Index(done.get(), "lane 1 closed")))
		got := out.lines()
		Expect(got[len(got)-1]).To(Equal(line{"type": "result", "id": 4.0, "ok": true, "data": line{}}))
		Expect(result(3, got)).To(HaveKeyWithValue("ok", true))
	})

	It("closes every open lane at the end of the input and when Run's context ends", func(ctx SpecContext) {
		for _, cancelRun := range []bool{false, true} {
			d, in, out := newDriver(desktop)
			var done notes
			d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
				l.OnClose(func() { done.add(fmt.Sprintf("lane %d closed", l.ID())) })
				return "", nil
			})
			runCtx, cancel := context.WithCancel(ctx)
			s := start(runCtx, d, in, out, nil)
			s.send(`{"id":1,"action":"open-lane","args":{"lane":1}}`)
			s.await(1)
			if cancelRun {
				cancel()
				Expect(s.wait()).To(MatchError(context.Canceled))
			} else {
				Expect(in.Close()).To(Succeed())
				Expect(s.wait()).To(Succeed())
			}
			cancel()
			Expect(done.get()).To(Equal([]string{"lane 1 closed"}))
		}
	})

	It("leaves no goroutine of its own behind when Run returns", func(ctx SpecContext) {
		before := runtime.NumGoroutine()
		var text strings.Builder
		for lane := 1; lane <= 8; lane++ {
			fmt.Fprintf(&text, `{"id":%d,"action":"open-lane","args":{"lane":%d}}`+"\n", lane, lane)
			fmt.Fprintf(&text, `{"id":%d,"lane":%d,"action":"add","args":{"n":1}}`+"\n", 100+lane, lane)
			fmt.Fprintf(&text, `{"id":%d,"action":"decode","args":{"frames":[{"id":1}]}}`+"\n", 200+lane)
		}
		fmt.Fprintf(&text, `{"id":%d,"action":"close-lane","args":{"lane":1}}`+"\n", 300)
		fmt.Fprintf(&text, `{"id":%d,"action":"stop"}`+"\n", 301)
		out := &buffer{}
		d := driverkit.New(strings.NewReader(text.String()), out, desktop)
		d.Decode(func(driverkit.Frame) driverkit.Decoded { return driverkit.Decoded{Type: "x"} })
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) { counting(l); return "", nil })
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(of("result", out.lines())).To(HaveLen(8*3 + 2))
		Eventually(runtime.NumGoroutine).Should(BeNumerically("<=", before))
	})

	DescribeTable("refuses to register",
		func(register func(d *driverkit.Driver), want string) {
			d := driverkit.New(strings.NewReader(""), io.Discard, desktop)
			Expect(func() { register(d) }).To(PanicWith(ContainSubstring(want)))
		},
		Entry("lanes twice", func(d *driverkit.Driver) {
			open := func(context.Context, *driverkit.Lane) (string, error) { return "", nil }
			d.Lanes(open)
			d.Lanes(open)
		}, "Lanes registered twice"),
		Entry("lanes without a function", func(d *driverkit.Driver) { d.Lanes(nil) }, "needs a function"),
		Entry("lanes after Run", func(d *driverkit.Driver) {
			_ = d.Run(context.Background(), nil)
			d.Lanes(func(context.Context, *driverkit.Lane) (string, error) { return "", nil })
		}, "Lanes after Run"),
		Entry("open-lane as an action", func(d *driverkit.Driver) {
			d.Handle("open-lane", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}, "open-lane is built in"),
		Entry("close-lane as an action", func(d *driverkit.Driver) {
			d.Handle("close-lane", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}, "close-lane is built in"),
	)

	It("refuses a lane's Handle once the lane is open, and the kit's own actions on a lane", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(`{"id":1,"action":"open-lane","args":{"lane":1}}`+"\n"+`{"id":2,"lane":1,"action":"late"}`+"\n"+
			`{"id":3,"action":"open-lane","args":{"lane":2}}`), out, desktop)
		d.Lanes(func(_ context.Context, l *driverkit.Lane) (string, error) {
			if l.ID() == 2 {
				l.Handle("stop", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
			}
			l.Handle("late", func(context.Context, json.RawMessage) (any, error) {
				l.Handle("later", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
				return nil, nil
			})
			return "", nil
		})
		Expect(d.Run(ctx, nil)).To(Succeed())
		Expect(result(2, out.lines())["error"]).To(HaveKeyWithValue("message", ContainSubstring(`lane 1: Handle("later") after the lane opened`)))
		Expect(result(3, out.lines())["error"]).To(HaveKeyWithValue("message", ContainSubstring("stop is built in")))
	})
})

// gatedWriter records each Write; a write holding gate's text waits until release closes.
type gatedWriter struct {
	gate    string
	release chan struct{}
	blocked chan struct{} // closed when the gated write has started

	mu     sync.Mutex
	writes [][]byte
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.gate) {
		close(w.blocked)
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

func (w *gatedWriter) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, b := range w.writes {
		out = append(out, string(b))
	}
	return out
}

var _ = Describe("the driver's output", func() {
	It("combines lines put during a write into later writes, each line whole and in order", func(ctx SpecContext) {
		w := &gatedWriter{gate: `"what":"first"`, release: make(chan struct{}), blocked: make(chan struct{})}
		r, in := io.Pipe()
		d := driverkit.New(r, w, desktop)
		s := start(ctx, d, in, nil, nil)
		Eventually(func() int { return len(w.all()) }).Should(Equal(2)) // hello, ready

		first := make(chan struct{})
		go func() {
			defer close(first)
			d.Observe("first", nil) // writes, and waits in the write
		}()
		Eventually(w.blocked).Should(BeClosed())

		// Writers arriving while the write is in progress put their lines and return.
		const goroutines, each = 32, 100
		big := strings.Repeat("x", 500)
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					d.Observe("burst", map[string]any{"g": g, "i": i, "text": big})
				}
			})
		}
		wg.Wait()
		Expect(w.all()).To(HaveLen(2), "nothing written while the first write waits")

		close(w.release)
		Eventually(first).Should(BeClosed())
		_, err := io.WriteString(in, `{"id":1,"action":"stop"}`+"\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.wait()).To(Succeed())

		writes := w.all()
		Expect(len(writes)).To(BeNumerically("<=", 5), "the burst is written in a few writes") // hello, ready, first, the burst, stop
		var lines []string
		for _, b := range writes {
			Expect(b).To(HaveSuffix("\n"), "a write holds whole lines")
			lines = append(lines, strings.Split(strings.TrimSuffix(b, "\n"), "\n")...)
		}
		Expect(lines).To(HaveLen(2 + 1 + goroutines*each + 1))
		Expect(lines[2]).To(ContainSubstring(`"what":"first"`))
		Expect(lines[len(lines)-1]).To(Equal(`{"type":"result","id":1,"ok":true,"data":{}}`))
		next := map[float64]float64{}
		for _, l := range lines[3 : len(lines)-1] {
			var m struct {
				What string
				Data struct {
					G, I float64
					Text string
				}
			}
			Expect(json.Unmarshal([]byte(l), &m)).To(Succeed(), "a whole line: %.80q", l)
			Expect(m.What).To(Equal("burst"))
			Expect(m.Data.I).To(Equal(next[m.Data.G]), "goroutine %v's lines in order", m.Data.G)
			Expect(m.Data.Text).To(Equal(big))
			next[m.Data.G]++
		}
	})

	It("keeps every line whole and in order when many goroutines write at once", func(ctx SpecContext) {
		out := &buffer{}
		d := driverkit.New(strings.NewReader(""), out, desktop)
		Expect(d.Run(ctx, nil)).To(Succeed())
		const goroutines, each = 64, 200
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					d.Observe("seq", map[string]int{"g": g, "i": i})
				}
			})
		}
		wg.Wait()
		next := map[float64]float64{}
		obs := of("observe", out.lines())
		Expect(obs).To(HaveLen(goroutines * each))
		for _, l := range obs {
			data := l["data"].(line)
			g, i := data["g"].(float64), data["i"].(float64)
			Expect(i).To(Equal(next[g]))
			next[g]++
		}
	})
})
