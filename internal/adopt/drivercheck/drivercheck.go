// Package drivercheck runs any executable as a skewtest driver and checks it against the
// driver protocol (docs/driver-protocol.md): hello, ready, stdout holding nothing but
// protocol lines, an unknown action answered unsupported-action, decode when it lists it,
// stop, and exiting once its stdin closes. It needs no build and no peer: a driver in any
// language is checked before it is ever paired (skewtest driver check).
package drivercheck

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// Config is one driver to check.
type Config struct {
	// Argv is the driver's command; Dir its working directory (a build's output directory).
	Argv []string
	Dir  string
	// Role is "host" or "client"; Kind the client kind.
	Role, Kind string
	// Env is extra environment, after the protocol's SKEWTEST_* variables.
	Env []string
	// ReadyTimeout bounds hello and ready (default: the protocol's 30 s); Grace how long it
	// may take to answer an action and to exit (default: driver.DefaultStopGrace).
	ReadyTimeout, Grace time.Duration
	// LogDir receives the driver's stderr of each start (DRIVER-N.log); empty discards it.
	LogDir string
}

// Check is one requirement of the protocol, and what the driver did about it.
type Check struct {
	// Name is the requirement ("hello", "ready", "stdout", …).
	Name string
	// OK says the driver met it; Skipped that it could not be checked (an earlier failure,
	// or a feature the driver does not offer).
	OK, Skipped bool
	// Detail says what was seen: the line the driver wrote, why it failed.
	Detail string
}

func (c Check) String() string {
	mark := "ok  "
	switch {
	case c.Skipped:
		mark = "skip"
	case !c.OK:
		mark = "FAIL"
	}
	if c.Detail == "" {
		return mark + " " + c.Name
	}
	return mark + " " + c.Name + ": " + c.Detail
}

// Report is every check, in the order they were made.
type Report struct {
	Checks []Check
}

// Failed lists the checks the driver failed.
func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.OK && !c.Skipped {
			out = append(out, c)
		}
	}
	return out
}

func (r *Report) add(name string, ok bool, format string, a ...any) {
	r.Checks = append(r.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, a...)})
}

func (r *Report) skip(name, why string) {
	r.Checks = append(r.Checks, Check{Name: name, Skipped: true, Detail: why})
}

// Run starts the driver (twice: the second time to see it exit once its stdin closes) and
// checks it. A driver's failings are the report's failed checks; an error means the check
// itself could not be made (ctx ended, a log could not be written).
func Run(ctx context.Context, c Config) (*Report, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("driver check: no command")
	}
	if c.Role != "host" && c.Role != "client" {
		return nil, fmt.Errorf("driver check: role %q: want host or client", c.Role)
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = driver.DefaultReadyTimeout
	}
	if c.Grace <= 0 {
		c.Grace = driver.DefaultStopGrace
	}
	env := append([]string{"SKEWTEST_DRIVER_PROTOCOL=1", "SKEWTEST_ROLE=" + c.Role, "SKEWTEST_KIND=" + c.Kind,
		"SKEWTEST_BUILD_LABEL=driver-check", "SKEWTEST_BUILD_REVISION=worktree"}, c.Env...)
	// A host that serves wss or tls needs the certificate a run would hand it.
	caDir, err := os.MkdirTemp("", "skewtest-tls-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(caDir)
	ca, err := tap.NewCA(caDir)
	if err != nil {
		return nil, err
	}
	env = append(ca.Env(), env...)
	if c.Role == "client" {
		// A client is told where its host is; it must not connect before an action asks it
		// to. A listener that accepts and holds stands in for the host.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		go holdConns(ln)
		env = append(env, "SKEWTEST_HOST_URL=ws://"+ln.Addr().String())
	}
	r := &Report{}
	first, err := c.session(ctx, r, env, 1)
	if err != nil {
		return nil, err
	}
	if !first {
		r.skip("stdin closed", "it never got ready")
		return r, nil
	}
	if err := c.stdinClosed(ctx, r, env); err != nil {
		return nil, err
	}
	return r, nil
}

// holdConns accepts connections and keeps them open until the listener closes.
func holdConns(ln net.Listener) {
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		conns = append(conns, c)
	}
}

// watch collects what a driver wrote to stdout that is no protocol message.
type watch struct {
	mu      sync.Mutex
	invalid []driver.Message
}

func (w *watch) onMessage(m driver.Message) {
	if m.Type == driver.TypeInvalid {
		w.mu.Lock()
		w.invalid = append(w.invalid, m)
		w.mu.Unlock()
	}
}

func (c Config) spec(env []string, n int) driver.Spec {
	s := driver.Spec{Argv: c.Argv, Dir: c.Dir, Env: env, Name: c.Role + " driver", StopGrace: c.Grace,
		ReadyTimeout: c.ReadyTimeout, ActionTimeout: c.Grace}
	if c.Kind != "" {
		s.Name = c.Kind + " " + s.Name
	}
	if c.LogDir != "" {
		s.LogPath = filepath.Join(c.LogDir, fmt.Sprintf("driver-%d.log", n))
	}
	return s
}

// session starts the driver and checks everything but the closing of stdin; it says
// whether the driver got ready.
func (c Config) session(ctx context.Context, r *Report, env []string, n int) (bool, error) {
	w := &watch{}
	d, err := driver.Start(ctx, c.spec(env, n), w.onMessage)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		r.add("start", false, "%v", err)
		return false, nil
	}
	defer d.Stop(context.WithoutCancel(ctx))
	r.add("start", true, "")
	ready, err := d.WaitReady(ctx)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	hello := d.Hello()
	c.checkHello(r, hello, err)
	if hello.Type != driver.TypeHello {
		r.skip("ready", "no hello")
		c.checkStdout(r, w)
		return false, nil
	}
	if err != nil {
		r.add("ready", false, "%v", err)
		c.checkStdout(r, w)
		return false, nil
	}
	c.checkReady(r, ready)

	// An action it cannot know: unsupported-action, not silence, not a crash.
	m, err := d.Do(ctx, "skewtest-driver-check-unknown", nil)
	var ae *driver.ActionError
	switch {
	case errors.As(err, &ae) && ae.Code == driver.CodeUnsupportedAction:
		r.add("unknown action", true, "")
	case errors.As(err, &ae):
		r.add("unknown action", false, "answered %q, want %q", ae.Code, driver.CodeUnsupportedAction)
	case err != nil:
		r.add("unknown action", false, "%v", err)
	default:
		r.add("unknown action", false, "answered ok (%s), want an error %q", m.Data, driver.CodeUnsupportedAction)
	}

	if slices.Contains(hello.Actions, "decode") {
		c.checkDecode(ctx, r, d)
	} else {
		r.skip("decode", "hello lists no decode action (replay and the fixture tier cannot ask it)")
	}

	// stop: a result, then exit 0, promptly.
	if _, err := d.Do(ctx, "stop", nil); err != nil {
		r.add("stop", false, "%v", err)
	} else {
		select {
		case <-d.ProcessExited(): // its guardian's teardown is not the driver's to answer for
			select {
			case <-d.Exited():
			case <-ctx.Done():
				return false, ctx.Err()
			}
			if err := d.ExitErr(); err != nil {
				r.add("stop", false, "it answered stop, then %v", err)
			} else {
				r.add("stop", true, "")
			}
		case <-time.After(c.Grace):
			r.add("stop", false, "it answered stop but had not exited %s later", c.Grace)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	c.checkStdout(r, w)
	return true, nil
}

func (c Config) checkHello(r *Report, h driver.Message, waitErr error) {
	var bad []string
	switch {
	case h.Type != driver.TypeHello:
		what := "it wrote nothing"
		if errors.Is(waitErr, driver.ErrNotHello) {
			what = "its first line is not a hello: " + firstLine(waitErr)
		} else if waitErr != nil {
			what = waitErr.Error()
		}
		r.add("hello", false, "%s", what)
		return
	case h.Protocol != 1:
		bad = append(bad, fmt.Sprintf("protocol %d, want 1", h.Protocol))
	}
	if h.Role != c.Role {
		bad = append(bad, fmt.Sprintf("role %q, want %q (SKEWTEST_ROLE)", h.Role, c.Role))
	}
	if c.Role == "client" && h.Kind != c.Kind {
		bad = append(bad, fmt.Sprintf("kind %q, want %q (SKEWTEST_KIND)", h.Kind, c.Kind))
	}
	if len(h.Actions) == 0 {
		bad = append(bad, "no actions")
	}
	if err := driver.CheckParams(h); err != nil {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		r.add("hello", false, "%s: %s", strings.Join(bad, "; "), h.Line)
		return
	}
	r.add("hello", true, "%d actions: %s", len(h.Actions), strings.Join(h.Actions, ", "))
}

// firstLine is the line quoted at the end of an ErrNotHello.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.Index(s, driver.ErrNotHello.Error()+": "); i >= 0 {
		return s[i+len(driver.ErrNotHello.Error())+2:]
	}
	return s
}

func (c Config) checkReady(r *Report, m driver.Message) {
	if c.Role == "client" {
		r.add("ready", true, "")
		return
	}
	u, err := url.Parse(m.URL)
	switch {
	case m.URL == "":
		r.add("ready", false, `a host's ready names no url: want {"type":"ready","url":"ws://127.0.0.1:PORT"}`)
	case err != nil || !slices.Contains(builds.Transports, u.Scheme) || u.Port() == "":
		r.add("ready", false, "url %q: want ws://127.0.0.1:PORT (or wss://, tcp://, tls:// for a channel of that transport)", m.URL)
	default:
		conn, err := net.DialTimeout("tcp", u.Host, c.Grace)
		if err != nil {
			r.add("ready", false, "url %s: nothing listens there: %v", m.URL, err)
			return
		}
		conn.Close()
		r.add("ready", true, "listening at %s", m.URL)
	}
}

// checkDecode asks about one frame no product sends: the answer must name it or refuse it.
func (c Config) checkDecode(ctx context.Context, r *Report, d *driver.Driver) {
	dir := contract.ClientToHost
	if c.Role == "client" {
		dir = contract.HostToClient
	}
	frame := map[string]any{"id": 1, "dir": dir, "path": "/skewtest-driver-check", "binary": true,
		"data": base64.StdEncoding.EncodeToString([]byte{0xff, 0x00, 0xfe})}
	m, err := d.Do(ctx, "decode", map[string]any{"frames": []any{frame}})
	if err != nil {
		r.add("decode", false, "%v", err)
		return
	}
	var res struct {
		Frames []struct {
			ID      int    `json:"id"`
			Type    string `json:"type"`
			Refused bool   `json:"refused"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(m.Data, &res); err != nil || len(res.Frames) != 1 || res.Frames[0].ID != 1 {
		r.add("decode", false, "the result's data must hold frames, one per frame asked, each with its id: %s", m.Data)
		return
	}
	r.add("decode", true, "a garbage frame: refused=%v", res.Frames[0].Refused)
}

// checkStdout fails on every stdout line that was no protocol message.
func (c Config) checkStdout(r *Report, w *watch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.invalid) == 0 {
		r.add("stdout", true, "nothing but protocol messages")
		return
	}
	var lines []string
	for _, m := range w.invalid {
		lines = append(lines, fmt.Sprintf("%q (%s)", clip(m.Line), m.What))
	}
	r.add("stdout", false, "%d line(s) that are no protocol message (logs go to stderr): %s", len(lines), strings.Join(lines, "; "))
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// stdinClosed starts the driver again and closes its stdin once it is ready: it must exit.
func (c Config) stdinClosed(ctx context.Context, r *Report, env []string) error {
	d, err := driver.Start(ctx, c.spec(env, 2), nil)
	if err != nil {
		r.add("stdin closed", false, "the second start failed: %v", err)
		return nil
	}
	defer d.Stop(context.WithoutCancel(ctx))
	if _, err := d.WaitReady(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.add("stdin closed", false, "the second start never got ready: %v", err)
		return nil
	}
	d.CloseStdin()
	select {
	case <-d.ProcessExited():
		r.add("stdin closed", true, "")
	case <-time.After(c.Grace):
		r.add("stdin closed", false, "still running %s after its stdin closed (it must exit promptly)", c.Grace)
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
