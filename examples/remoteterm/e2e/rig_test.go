package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/desktop"
	"github.com/skewtest/skewtest/examples/remoteterm/host"
	"github.com/skewtest/skewtest/examples/remoteterm/mobile"
	"github.com/skewtest/skewtest/examples/remoteterm/observe"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
)

// rig is a host on loopback with what it observed and logged.
type rig struct {
	h    *host.Host
	t    *host.Terminal
	url  string
	rec  *observe.Recorder
	mu   *sync.Mutex
	logs *[]string
}

func startHost(f release.Features) rig {
	GinkgoHelper()
	r := rig{rec: &observe.Recorder{}, mu: &sync.Mutex{}, logs: new([]string)}
	r.h = host.New(host.Options{Features: f, Sink: r.rec, Logf: func(format string, args ...any) {
		r.mu.Lock()
		defer r.mu.Unlock()
		*r.logs = append(*r.logs, fmt.Sprintf(format, args...))
	}})
	mux := http.NewServeMux()
	r.h.Register(mux)
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	DeferCleanup(r.h.Close)
	r.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	var ok bool
	r.t, ok = r.h.Terminal("t1")
	Expect(ok).To(BeTrue())
	return r
}

func (r rig) logged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), *r.logs...)
}

// produced is everything the terminal displayed: the initial scrollback and every emission.
func (r rig) produced() string {
	var b strings.Builder
	for _, o := range observe.Of[observe.PTYOutput](r.rec) {
		b.Write(o.Bytes)
	}
	return b.String()
}

// client is a desktop or mobile client with its observations.
type client struct {
	desktop *desktop.Client
	mobile  *mobile.Client
	rec     *observe.Recorder
}

func newDesktop(r rig, f release.Features) client {
	c := client{rec: &observe.Recorder{}}
	c.desktop = desktop.New(desktop.Options{Features: f, BaseURL: r.url, Sink: c.rec})
	DeferCleanup(c.desktop.Close)
	return c
}

func newMobile(r rig) client {
	c := client{rec: &observe.Recorder{}}
	c.mobile = mobile.New(mobile.Options{BaseURL: r.url, Sink: c.rec})
	DeferCleanup(c.mobile.Close)
	return c
}

// screen is the client's whole rendered buffer after its last render.
func (c client) screen() string {
	return string(observe.Screen(c.rec.All()))
}

func (c client) snapshots() int { return len(observe.Of[observe.RenderedSnapshot](c.rec)) }
