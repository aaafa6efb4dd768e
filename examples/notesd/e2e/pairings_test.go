package e2e_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/api"
	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/observe"
	"github.com/skewtest/skewtest/examples/notesd/store"
)

// run plays a small scenario through a host of one build and a client of another, and
// returns every message the relay saw and what the client reported. Where the session
// negotiated keepalive (both builds have the switch), it ends once two keepalives came.
func run(ctx context.Context, hb, cb build, kind string) ([]message, *observe.Recorder) {
	GinkgoHelper()
	h := host.New(hb.features, store.New(), observe.Discard)
	srv := httptest.NewServer(h)
	r := startRelay("ws" + strings.TrimPrefix(srv.URL, "http"))
	defer func() { r.close(); srv.Close(); h.Close() }()

	obs := &observe.Recorder{}
	c, err := client.New(kind, cb.features, r.url(), obs)
	Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	_, err = c.Connect(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(c.Put(ctx, "n1", "first", []string{"t"})).To(HaveField("Rev", BeEquivalentTo(1)))
	_, err = c.Get(ctx, "n1")
	Expect(err).NotTo(HaveOccurred())
	_, err = c.Get(ctx, "nope")
	Expect(err).To(HaveOccurred())
	_, err = c.Import(ctx, []api.PutParams{{ID: "b1", Text: "one"}, {ID: "b2", Text: "two"}})
	Expect(err).NotTo(HaveOccurred())
	_, err = c.List(ctx)
	Expect(err).NotTo(HaveOccurred())
	if hb.features.Search && cb.features.Search {
		_, err = c.Search(ctx, "one")
		Expect(err).NotTo(HaveOccurred())
	}
	if kind == client.KindSync {
		h.Edit("h1", "from the host", nil)
		if !slicesContains(c.Accepted(), api.CapPush) {
			Expect(c.Pull(ctx)).To(Succeed())
		}
		Eventually(obs.Named).WithArguments(client.ObsApplied).Should(ContainElement(HaveKeyWithValue("id", "h1")))
	}
	if slicesContains(c.Accepted(), api.CapKeepalive) {
		Eventually(func() int { return keepalives(r.messages()) }).Should(BeNumerically(">=", 2))
	}
	return r.messages(), obs
}

// keepalives counts the notes.keepalive messages among msgs.
func keepalives(msgs []message) int {
	n := 0
	for _, m := range msgs {
		if m.dir == "H>C" && strings.Contains(m.text, `"method":"notes.keepalive"`) {
			n++
		}
	}
	return n
}

func slicesContains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

var _ = Describe("every pairing of notesd's releases", func() {
	builds := loadBuilds()

	It("derives the releases history.yaml lists, each with its contract", func() {
		var names []string
		for _, b := range builds {
			names = append(names, b.name)
		}
		Expect(names).To(Equal([]string{"v0.1.0", "v0.2.0", "v0.3.0", "worktree"}))
		Expect(lookup(builds[0].contract, "notes.changed", "H>C", "sync")).To(BeNil())
		Expect(lookup(builds[1].contract, "notes.changed", "H>C", "sync")).NotTo(BeNil())
		Expect(lookup(builds[1].contract, "notes.changed", "H>C", "cli")).To(BeNil())
		Expect(lookup(builds[2].contract, "notes.search", "C>H", "")).To(BeNil())
		Expect(lookup(builds[3].contract, "notes.search", "C>H", "")).NotTo(BeNil())
		Expect(lookup(builds[2].contract, "notes.keepalive", "H>C", "cli")).To(BeNil())
		Expect(lookup(builds[3].contract, "notes.keepalive", "H>C", "cli")).To(And(
			HaveKeyWithValue("periodic", true), HaveKeyWithValue("gates", map[string]any{"*": "keepalive"})))
	})

	for _, hb := range builds {
		for _, cb := range builds {
			for _, kind := range []string{client.KindCLI, client.KindSync} {
				It(fmt.Sprintf("host %s × %s client %s speaks only what the receiver's contract says", hb.name, kind, cb.name), func(ctx SpecContext) {
					msgs, _ := run(ctx, hb, cb, kind)
					Expect(msgs).NotTo(BeEmpty())
					Expect(check(msgs, hb, cb, kind)).To(BeEmpty())
				}, SpecTimeout(10e9))
			}
		}
	}

	It("loses the text of a pushed note for a v0.2.0 sync client of a v0.3.0 host (the bug) and not of the working tree", func(ctx SpecContext) {
		_, obs := run(ctx, builds[2], builds[1], client.KindSync)
		Expect(obs.Named(client.ObsApplied)).To(ContainElement(SatisfyAll(HaveKeyWithValue("id", "h1"), HaveKeyWithValue("text", ""))))
		_, obs = run(ctx, builds[3], builds[1], client.KindSync)
		Expect(obs.Named(client.ObsApplied)).To(ContainElement(SatisfyAll(HaveKeyWithValue("id", "h1"), HaveKeyWithValue("text", "from the host"))))
	}, SpecTimeout(10e9))

	It("carries notes.keepalive where both builds have the keepalive switch, as the working tree's contract says, and not as v0.3.0's", func(ctx SpecContext) {
		on := func(b build) build {
			b.features.Keepalive = true
			return b
		}
		for _, kind := range []string{client.KindCLI, client.KindSync} {
			msgs, obs := run(ctx, on(builds[3]), on(builds[3]), kind)
			Expect(keepalives(msgs)).To(BeNumerically(">=", 2), kind)
			Expect(check(msgs, on(builds[3]), on(builds[3]), kind)).To(BeEmpty(), kind)
			Expect(obs.Named(client.ObsRefused)).To(BeEmpty(), kind)
		}
		// The negative control: a v0.3.0 client with the switch declares keepalive, which it
		// does not know.
		msgs, obs := run(ctx, on(builds[3]), on(builds[2]), client.KindCLI)
		Expect(check(msgs, on(builds[3]), on(builds[2]), client.KindCLI)).To(ContainElement(
			ContainSubstring(`notes.keepalive: not in v0.3.0's contract for "cli"`)))
		Eventually(obs.Named).WithArguments(client.ObsRefused).Should(ContainElement(HaveKeyWithValue("type", "notes.keepalive")))
	}, SpecTimeout(10e9))

	It("catches a gated frame sent without negotiation (the pushUngated negative control)", func(ctx SpecContext) {
		ungated := builds[3]
		ungated.features.PushUngated = true
		h := host.New(ungated.features, store.New(), observe.Discard)
		srv := httptest.NewServer(h)
		r := startRelay("ws" + strings.TrimPrefix(srv.URL, "http"))
		defer func() { r.close(); srv.Close(); h.Close() }()
		obs := &observe.Recorder{}
		c, err := client.New(client.KindSync, builds[0].features, r.url(), obs)
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		_, err = c.Connect(ctx)
		Expect(err).NotTo(HaveOccurred())
		h.Edit("h1", "unasked", nil)
		Eventually(obs.Named).WithArguments(client.ObsRefused).ShouldNot(BeEmpty())
		Expect(check(r.messages(), ungated, builds[0], client.KindSync)).To(ContainElements(
			ContainSubstring("notes.changed: not in v0.1.0's contract"),
			ContainSubstring("notes.changed: gated on push, which was not negotiated")))
	}, SpecTimeout(10e9))
})
