package harness_test

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness"
)

var _ = Describe("a host's transport", func() {
	c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
		"channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"discriminator":"method"}},"frames":[]}]}`))
	It("parses the contract", func() { Expect(err).NotTo(HaveOccurred()) })

	It("must report a URL of the transport its skewtest.yaml declares", func() {
		ws := &harness.Build{Label: "v1", Contract: c}
		Expect(ws.CheckHostURL("v1 host", "ws://127.0.0.1:1")).To(Succeed())
		Expect(ws.CheckHostURL("v1 host", "tcp://127.0.0.1:1")).To(MatchError(
			`v1 host driver reported ready with "tcp://127.0.0.1:1", but no channel of its skewtest.yaml has the tcp transport: declare it (channels: NAME: {transport: tcp}, docs/subject.md)`))
		Expect(ws.CheckHostURL("v1 host", "127.0.0.1:1")).To(MatchError(ContainSubstring("reported ready without a ws:// url")))

		tcp := &harness.Build{Label: "v2", Contract: c, Transport: builds.Transport{Scheme: "tcp", Channel: "rpc", Framing: "lines"}}
		Expect(tcp.CheckHostURL("v2 host", "tcp://127.0.0.1:1")).To(Succeed())
		Expect(tcp.CheckHostURL("v2 host", "ws://127.0.0.1:1")).To(MatchError(
			`v2 host driver reported ready with "ws://127.0.0.1:1", but its skewtest.yaml gives channel rpc the tcp transport: want tcp://127.0.0.1:PORT`))
	})

	It("gives the tap the channel it carries, and refuses a channel the contract lacks", func() {
		n, err := (&harness.Build{Label: "v1", Contract: c}).TapOptions()
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(BeZero(), "a WebSocket tap needs no options")
		ca := harness.NewCA()
		DeferCleanup(ca.Close)
		n, err = (&harness.Build{Label: "v2", Contract: c, Transport: builds.Transport{Scheme: "tls", Channel: "rpc", Framing: "lines"}, CA: ca}).TapOptions()
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(2), "how to cut the stream, and the run's CA")
		_, err = (&harness.Build{Label: "v3", Contract: c, Transport: builds.Transport{Scheme: "tcp", Channel: "events"}}).TapOptions()
		Expect(err).To(MatchError(`v3: its skewtest.yaml gives channel "events" the tcp transport, but its contract has no channel of that name`))
		_, err = (&harness.Build{Label: "v4", Contract: c, Transport: builds.Transport{Scheme: "tls", Channel: "rpc", Framing: "lines"}}).TapOptions()
		Expect(err).To(MatchError(ContainSubstring("the build carries no certificate authority (harness.Build.CA)")), "a build made without its run's CA")
	})

	It("hands the run's CA to every driver of a build that serves TLS, however it is started", func(ctx SpecContext) {
		// A host that gets ready only with the files in hand (as driverkit.ListenOn does).
		host := filepath.Join(GinkgoT().TempDir(), "host.sh")
		Expect(os.WriteFile(host, []byte(`#!/bin/sh
test -r "$SKEWTEST_TLS_CERT" && test -r "$SKEWTEST_TLS_KEY" && test -r "$SKEWTEST_TLS_CA" || { echo "no TLS files" >&2; exit 1; }
echo '{"type":"hello","protocol":1,"role":"host","actions":["stop"]}'
echo '{"type":"ready","url":"tls://127.0.0.1:1"}'
while read -r line; do exit 0; done
`), 0o755)).To(Succeed())
		ca := harness.NewCA()
		DeferCleanup(ca.Close)
		b := &harness.Build{Label: "v2", Contract: c, Host: []string{host}, Transport: builds.Transport{Scheme: "tls", Channel: "rpc", Framing: "lines"}, CA: ca}
		_, err := harness.Announce(ctx, b, "host", "", "")
		Expect(err).NotTo(HaveOccurred(), "a hello probe (explore) of a TLS host")

		b.Transport, b.CA = builds.Transport{Scheme: "ws"}, harness.NewCA() // another run, which needs none
		DeferCleanup(b.CA.Close)
		_, err = harness.Announce(ctx, b, "host", "", "")
		Expect(err).To(MatchError(ContainSubstring("exit status 1")), "the negative control: no TLS host, no files")
	}, SpecTimeout(time.Minute))

	It("cuts packets only where the contract's codec says they end", func() {
		_, err := (&harness.Build{Label: "v1", Contract: c, Transport: builds.Transport{Scheme: "tcp", Channel: "rpc", Framing: "packets"}}).TapOptions()
		Expect(err).To(MatchError(ContainSubstring("v1: its skewtest.yaml cuts channel rpc into packets (framing: packets), but its contract's codec for the channel cannot")))
		stream, err := contract.Parse("s.json", []byte(`{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
			"channels":[{"name":"opaque","paths":["/opaque"],"binary":{"driver":true,"batch":"u32be","stream":true},"frames":[]}]}`))
		Expect(err).NotTo(HaveOccurred())
		n, err := (&harness.Build{Label: "v2", Contract: stream, Transport: builds.Transport{Scheme: "tcp", Channel: "opaque", Framing: "packets"}}).TapOptions()
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(1))
	})
})
