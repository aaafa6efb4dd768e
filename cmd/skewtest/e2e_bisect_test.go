package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// commitNamed is the short hash of the commit of repo whose subject line starts with prefix.
func commitNamed(repo, prefix string) string {
	GinkgoHelper()
	r, err := git.PlainOpen(repo)
	Expect(err).NotTo(HaveOccurred())
	iter, err := r.Log(&git.LogOptions{})
	Expect(err).NotTo(HaveOccurred())
	var found string
	Expect(iter.ForEach(func(c *object.Commit) error {
		if strings.HasPrefix(c.Message, prefix) {
			found = c.Hash.String()[:12]
		}
		return nil
	})).To(Succeed())
	Expect(found).NotTo(BeEmpty(), "no commit %q", prefix)
	return found
}

var _ = Describe("bisect on the reference history", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo string
	BeforeAll(func() { repo = referenceHistory() })

	bisect := func(ctx SpecContext, args ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, append([]string{"bisect", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir}, args...)...)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		if err != nil {
			return code, out, nil
		}
		Expect(filepath.Join(dir, "report.html")).To(BeAnExistingFile())
		return code, out, run
	}

	It("finds the release and the commit of a host's bug, not the last commit before its tag", func(ctx SpecContext) {
		code, out, run := bisect(ctx, "--host", "v1.4.147", "--client", "v1.4.146", "--kind", "mobile", "--journey", "terminal-mobile")
		Expect(code).To(Equal(exitFindings), out)
		b := run.Bisect
		Expect(b.Side).To(Equal("host"))
		Expect(b.FirstBadTag).To(Equal("v1.4.147"))
		Expect(b.LastGoodTag).To(Equal("v1.4.146"))
		Expect(b.Exact).To(BeTrue())
		Expect(b.FirstBad.Subject).To(Equal("host: frame transformed runs as OutputSpan"))
		Expect(b.FirstBad.Ref).To(Equal(commitNamed(repo, "host: frame transformed runs as OutputSpan")))
		Expect(b.LastGood.Subject).To(Equal("wire: define OutputSpan (15)"))
		Expect(b.Brought).To(ContainElement(HaveField("Kind", results.DecoderRefusal)))
		Expect(b.Repro).To(ContainSubstring("--host " + b.FirstBad.Ref + " --client v1.4.146"))
		Expect(out).To(ContainSubstring(`first bad commit: ` + b.FirstBad.Ref + ` "host: frame transformed runs as OutputSpan" (2026-07-15`))
	})

	It("finds a client's bug from the client side", func(ctx SpecContext) {
		code, out, run := bisect(ctx, "-v", "--host", "v1.4.120", "--client", "v1.4.165", "--kind", "session", "--journey", "session")
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("build v1.4.165: "), "-v shows each candidate's builds")
		Expect(out).To(MatchRegexp(`\[3/3\] (fail|pass) +host v1\.4\.120 × session client v1\.4\.165 · session`), "and its pairings")
		Expect(run.Bisect.Side).To(Equal("client"))
		Expect(run.Bisect.FirstBadTag).To(Equal("v1.4.165"))
		Expect(run.Bisect.FirstBad.Subject).To(Equal("session client: report presence"))
	})

	It("finds a client's change that breaks an older host the support policy still requires", func(ctx SpecContext) {
		code, out, run := bisect(ctx, "--host", "v1.4.185", "--client", "v1.4.190", "--kind", "desktop", "--journey", "terminal")
		Expect(code).To(Equal(exitFindings), out)
		Expect(run.Bisect.Side).To(Equal("client"))
		Expect(run.Bisect.FirstBadTag).To(Equal("v1.4.190"))
		Expect(run.Bisect.Exact).To(BeTrue())
		Expect(run.Bisect.FirstBad.Subject).To(Equal("host: multiplex always frames transformed runs as OutputSpan"))
	})

	It("skips a commit that does not build, and names it", func(ctx SpecContext) {
		good := commitNamed(repo, "chunker: name the transformed-run paths")
		broken := commitNamed(repo, "wip: transformedRuns option")
		code, out, run := bisect(ctx, "--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--journey", "terminal", "--good", good)
		Expect(code).To(Equal(exitFindings), out)
		Expect(run.Bisect.FirstBad.Subject).To(Equal("host: multiplex always frames transformed runs as OutputSpan"))
		Expect(run.Bisect.Candidates).To(ContainElement(And(HaveField("Ref", broken), HaveField("Verdict", results.VerdictSkipped),
			HaveField("Why", HavePrefix("does not build:")))))
		Expect(out).To(ContainSubstring("skipped: " + broken + ": does not build"))
	})

	It("calls a candidate whose attempts disagree flaky, and never takes it as good or bad", func(ctx SpecContext) {
		// The fixed host's daemon answers one request twice in the first session of one
		// candidate's client (the reference subject's flakyWithClient switch:
		// examples/remoteterm/README.md, Switches), set on the fixed side's build, the one
		// label every candidate's run has. That candidate is the commit after the good end,
		// v1.4.165-dev.1 (history.yaml names the n-th commit towards a tag <tag>-dev.<n>): the
		// walk tries it first, it fails once and passes on its retry. The ends, the other
		// commit and every reference never trip it.
		flaky := commitNamed(repo, "session: log the daemon's advertised features on connect")
		bad := commitNamed(repo, "session client: report presence")
		claimed := filepath.Join(GinkgoT().TempDir(), "claimed")
		features := fmt.Sprintf(`{"flakyWithClient":{"version":"v1.4.165-dev.1","file":%q}}`, claimed)
		code, out, run := bisect(ctx, "--host", "v1.4.120", "--client", "v1.4.165", "--kind", "session", "--journey", "session",
			"--good", "v1.4.157", "--retries", "1", "--env", "v1.4.120:REMOTETERM_FEATURES="+features)
		Expect(code).To(Equal(exitFindings), out)
		Expect(claimed).To(BeAnExistingFile(), "the daemon misbehaved once")
		b := run.Bisect
		Expect(b.Candidates).To(ContainElement(And(HaveField("Ref", flaky), HaveField("Verdict", results.VerdictFlaky),
			HaveField("Why", "its attempts disagree: fail, pass"),
			HaveField("Findings", ContainElement(And(HaveField("Kind", results.InvariantViolation), HaveField("Step", "request-response"),
				HaveField("Message", ContainSubstring("again"))))))), "its first attempt's findings: the request answered twice")
		Expect(b.Candidates).To(HaveEach(Or(HaveField("Ref", flaky), HaveField("Verdict", BeElementOf(results.VerdictGood, results.VerdictBad)))),
			"only that candidate is flaky")
		// Set aside, it is neither the last good nor the first bad: the commits around it
		// bracket the change, and it may be the change itself.
		Expect(b.LastGood.Ref).To(Equal("v1.4.157"))
		Expect(b.FirstBad.Ref).To(Equal(bad))
		Expect(b.Exact).To(BeFalse())
		Expect(b.Suspects).To(Equal([]string{flaky, bad}))
		Expect(out).To(ContainSubstring("first bad commit: one of " + flaky + ", " + bad + " (the others could not be judged)"))
		Expect(out).To(ContainSubstring("flaky: " + flaky + ": its attempts disagree: fail, pass"))
	})

	It("refuses a good end where the pairing already fails", func(ctx SpecContext) {
		code, out, _ := bisect(ctx, "--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--journey", "terminal", "--good", "v1.4.150")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("is not good at good v1.4.150"))
	})

	It("finds the commit whose contract first breaks the rules, from the contract files alone", func(ctx SpecContext) {
		code, out, run := bisect(ctx, "--contract", "--good", "v1.4.146", "--bad", "v1.4.180", "--against", "v1.4.173")
		Expect(code).To(Equal(exitFindings), out)
		Expect(run.Bisect.Side).To(Equal("contract"))
		Expect(run.Bisect.FirstBadTag).To(Equal("v1.4.180"))
		Expect(run.Bisect.FirstBad.Subject).To(HavePrefix("host: gate OutputSpan on terminal.multiplex too"))
		Expect(run.Bisect.Brought).To(ContainElement(HaveField("Message", ContainSubstring("gate-added"))))
		Expect(run.Builds).To(BeEmpty(), "nothing was built")
	})

	It("finds notesd's documented bug at its release, on a product built on a third-party protocol library", func(ctx SpecContext) {
		src, err := example.FindSource("notesd")
		Expect(err).NotTo(HaveOccurred())
		notesd := filepath.Join(GinkgoT().TempDir(), "notesd")
		_, err = example.Write(src, notesd)
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "bisect", "--repo", notesd, "--cache-dir", sharedCache, "--report-dir", dir,
			"--host", "v0.3.0", "--client", "v0.2.0", "--kind", "sync", "--journey", "sync")
		Expect(code).To(Equal(exitFindings), out)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(run.ToolVersion).To(Equal(version.String()))
		Expect(run.Bisect.FirstBadTag).To(Equal("v0.3.0"))
		Expect(run.Bisect.LastGoodTag).To(Equal("v0.2.0"))
		Expect(run.Bisect.Brought).To(ContainElement(HaveField("Kind", results.PublishedFieldRemoved)))
	})
})
