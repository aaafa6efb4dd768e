package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// notesd's working tree moves its host from WebSocket to a plain TCP stream of JSON lines
// (then to the same over TLS), through its own transport switch, while its releases keep
// serving WebSocket: the pairings with the working tree's host run over the byte-stream tap.
var _ = Describe("a host that serves TCP and TLS instead of WebSocket", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo string

	// serve makes the working tree's host serve transport, its channel cut into lines.
	serve := func(transport string) {
		GinkgoHelper()
		path := filepath.Join(repo, "skewtest.yaml")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		yaml := string(data)
		if i := strings.Index(yaml, "\nchannels:"); i >= 0 {
			yaml = yaml[:i+1]
		}
		host := `host: ["./notesd-driver", "host"`
		i := strings.Index(yaml, host)
		Expect(i).To(BeNumerically(">=", 0), yaml)
		j := i + strings.Index(yaml[i:], "]")
		yaml = yaml[:i] + host + `, "--transport", "` + transport + `"]` + yaml[j+1:]
		yaml += "channels:\n  rpc: {transport: " + transport + ", framing: lines}\n"
		Expect(os.WriteFile(path, []byte(yaml), 0o644)).To(Succeed())
	}

	BeforeAll(func() {
		src, err := example.FindSource("notesd")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "notesd")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
	})

	load := func(dir string) *results.Run {
		GinkgoHelper()
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		return run
	}

	It("passes over TCP both ways of the skew, and says how the working tree's host serves", func(ctx SpecContext) {
		serve("tcp")
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--kind", "cli,sync", "--seed", "5")
		Expect(code).To(Equal(exitOK), out)
		run := load(dir)
		overTCP := 0
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), p.Label())
			Expect(p.CompletedSteps).To(HaveLen(p.StepsTotal), p.Label())
			if p.Host == pins.WorktreeLabel {
				overTCP++
			}
		}
		Expect(overTCP).To(BeNumerically(">=", 6), "the working tree's host with every release's clients")
		for _, b := range run.Builds {
			if b.Label == pins.WorktreeLabel {
				Expect(b.Transport).To(Equal("tcp (channel rpc, lines framing)"))
			} else {
				Expect(b.Transport).To(BeEmpty(), b.Label+" serves WebSocket")
			}
		}
		summary, err := os.ReadFile(filepath.Join(dir, reports.SummaryFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(summary)).To(ContainSubstring("- worktree: tcp (channel rpc, lines framing)"))
		html, err := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring("host serves tcp (channel rpc, lines framing)"))
	}, SpecTimeout(15*time.Minute))

	It("finds a skew bug over TCP: the working tree's host pushing slim notes.changed to a v0.2.0 sync client", func(ctx SpecContext) {
		// The negative control: the shipped bug of v0.3.0's host (slim push sent whether or
		// not the client negotiated it), switched on in the working tree's TCP host.
		serve("tcp")
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--kind", "sync",
			"--journey", "sync", "--pins", "v0.2.0", "--seed", "5", "--env", `worktree:NOTESD_FEATURES={"slimPushNegotiated":false}`)
		Expect(code).To(Equal(exitFindings), out)
		var bad *results.Pairing
		for _, p := range load(dir).Pairings {
			if p.Host == pins.WorktreeLabel && p.Client == "v0.2.0" {
				bad = p
			}
		}
		Expect(bad).NotTo(BeNil(), out)
		Expect(bad.Status).To(Equal(results.StatusFail))
		var kinds []string
		for _, f := range bad.Findings {
			kinds = append(kinds, string(f.Kind))
		}
		Expect(kinds).To(ContainElements(string(results.PublishedFieldRemoved), string(results.DataLoss)))
	}, SpecTimeout(15*time.Minute))

	It("passes over TLS, through the run's throwaway certificate authority, and removes it as the run ends", func(ctx SpecContext) {
		serve("tls")
		dir := GinkgoT().TempDir()
		tmp := GinkgoT().TempDir() // where the run makes its CA (os.MkdirTemp)
		GinkgoT().Setenv("TMPDIR", tmp)
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--kind", "cli,sync",
			"--pins", "v0.2.0", "--seed", "5")
		Expect(code).To(Equal(exitOK), out)
		Expect(filepath.Glob(filepath.Join(tmp, "skewtest-tls-*"))).To(BeEmpty(), "the run's CA is gone once it returns, with no help from main")
		run := load(dir)
		Expect(run.Pairings).NotTo(BeEmpty())
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), p.Label())
		}
		Expect(run.Builds).To(ContainElement(And(HaveField("Label", pins.WorktreeLabel), HaveField("Transport", "tls (channel rpc, lines framing)"))))
	}, SpecTimeout(15*time.Minute))
})
