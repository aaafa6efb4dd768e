package session_test

import (
	"encoding/json"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("the flakyWithClient switch", func() {
	// refusals opens a session of a client of release client on p, calls ping twice, and
	// returns the refusals the client reported by the second answer: a response sent twice
	// reaches the client before the next one, which refuses it (it answers no open request).
	refusals := func(ctx SpecContext, p *pairing, client string) []map[string]any {
		GinkgoHelper()
		before := len(p.clientObs.Find(session.EventRefused))
		c := p.dial(ctx, releaseOf(client), session.ClientOptions{})
		_, err := c.Hello(ctx)
		Expect(err).NotTo(HaveOccurred())
		for range 2 {
			_, err := c.Call(ctx, "ping", 0, json.RawMessage(`{"message":"hi"}`))
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(c.Close()).To(Succeed())
		return p.clientObs.Find(session.EventRefused)[before:]
	}

	It("answers one request twice in the first session of the client release it names, once for every daemon that shares its file", func(ctx SpecContext) {
		rel := releaseOf("v1.4.120")
		rel.FlakyWithClient = &release.Flaky{Version: "v1.4.157", File: filepath.Join(GinkgoT().TempDir(), "claimed")}
		p := startDaemon(rel)

		Expect(refusals(ctx, p, "v1.4.150")).To(BeEmpty(), "a client of another release is answered right")
		Expect(rel.FlakyWithClient.File).NotTo(BeAnExistingFile())

		Expect(refusals(ctx, p, "v1.4.157")).To(ConsistOf(HaveKeyWithValue("reason", `response to unknown request "r1"`)),
			"the first session of v1.4.157: its first response came twice")
		Expect(rel.FlakyWithClient.File).To(BeAnExistingFile())

		Expect(refusals(ctx, p, "v1.4.157")).To(BeEmpty(), "the next session is answered right")
		again := startDaemon(rel) // another process of the build: the file says it happened
		Expect(refusals(ctx, again, "v1.4.157")).To(BeEmpty())
	}, SpecTimeout(10e9))

	It("never trips for a client of the daemon's own release, as a reference pairs them", func(ctx SpecContext) {
		rel := releaseOf("v1.4.157")
		rel.FlakyWithClient = &release.Flaky{Version: "v1.4.157", File: filepath.Join(GinkgoT().TempDir(), "claimed")}
		Expect(refusals(ctx, startDaemon(rel), "v1.4.157")).To(BeEmpty())
		Expect(rel.FlakyWithClient.File).NotTo(BeAnExistingFile())
	}, SpecTimeout(10e9))
})
