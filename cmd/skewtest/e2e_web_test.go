package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/drivercheck"
	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// notesd's web client is JavaScript, driven through skewtest's Node.js driver kit: a
// driver in the product's own language, paired like the Go ones. It first ships in v0.3.0.
var _ = Describe("notesd's web client, a driver in JavaScript", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo string

	BeforeAll(func() {
		if _, err := exec.LookPath("node"); err != nil {
			Skip("node is not on PATH: notesd's web client runs in node (its driver's argv starts with node)")
		}
		src, err := example.FindSource("notesd")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "notesd")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
	})

	It("passes the driver check as the working tree's recipe builds it", func(ctx SpecContext) {
		mc := matrix.Config{Repo: repo, CacheDir: sharedCache, ReportDir: GinkgoT().TempDir(),
			Host: pins.WorktreeLabel, Client: pins.WorktreeLabel, Stdout: io.Discard, Stderr: GinkgoWriter}
		built, _, err := matrix.Prepare(ctx, &mc, &results.Run{}, nil) // drivercheck makes its own CA
		Expect(err).NotTo(HaveOccurred())
		b := built[0]
		Expect(b.Err).NotTo(HaveOccurred())
		Expect(b.Clients).To(HaveKey("web"))
		r, err := drivercheck.Run(ctx, drivercheck.Config{Argv: b.Clients["web"], Dir: b.Dir, Role: "client", Kind: "web",
			Env: b.Env, LogDir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Failed()).To(BeEmpty(), "%v", r.Checks)
		var names []string
		for _, ch := range r.Checks {
			Expect(ch.Skipped).To(BeFalse(), ch.String())
			names = append(names, ch.Name)
		}
		Expect(names).To(Equal([]string{"start", "hello", "ready", "unknown action", "decode", "stop", "stdout", "stdin closed"}))
	}, SpecTimeout(10*time.Minute))

	It("passes against the working tree's host and every older one; releases before v0.3.0 have no web client and are skipped", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--kind", "web", "--seed", "5")
		Expect(code).To(Equal(exitOK), out)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		var ran []string
		for _, p := range run.Pairings {
			Expect(p.ClientKind).To(Equal("web"))
			Expect(p.Journey).To(Equal("notes"))
			Expect(p.Status).To(Equal(results.StatusPass), p.Label())
			Expect(p.CompletedSteps).To(HaveLen(p.StepsTotal), p.Label())
			ran = append(ran, p.Host+"×"+p.Client)
		}
		Expect(ran).To(ConsistOf("worktree×worktree", "v0.1.0×worktree", "v0.2.0×worktree", "v0.3.0×worktree",
			"worktree×v0.3.0", "v0.3.0×v0.3.0"))
		var skipped []string
		for _, s := range run.Skipped {
			Expect(s.Reason).To(Equal("build " + s.Client + " has no web client driver"))
			skipped = append(skipped, s.Host+"×"+s.Client)
		}
		Expect(skipped).To(ConsistOf("worktree×v0.1.0", "worktree×v0.2.0", "v0.1.0×v0.1.0", "v0.2.0×v0.2.0"))
	}, SpecTimeout(10*time.Minute))

	It("sees the web client's own frames: one that sends a note's text as content is found at step put", func(ctx SpecContext) {
		// The negative control: NOTESD_FEATURES reaches the JavaScript client through its
		// driver, while the contract keeps saying notes.put carries /params/text.
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", dir, "--kind", "web",
			"--pins", "v0.2.0", "--seed", "5", "--env", `worktree:NOTESD_FEATURES={"putSendsContent":true}`)
		Expect(code).To(Equal(exitFindings), out)
		run, err := results.Load(filepath.Join(dir, reports.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		var old *results.Pairing
		for _, p := range run.Pairings {
			if p.Host == "v0.2.0" && p.Client == pins.WorktreeLabel {
				old = p
			}
		}
		Expect(old).NotTo(BeNil(), out)
		Expect(old.Status).To(Equal(results.StatusFail))
		Expect(old.Findings).To(ContainElement(And(HaveField("Kind", results.FieldMismatch), HaveField("Step", "put"),
			HaveField("Direction", "C>H"), HaveField("Message", ContainSubstring("C>H notes.put: /params/text is missing for host v0.2.0")))))
		Expect(old.Findings).To(ContainElement(And(HaveField("Kind", results.DataLoss),
			HaveField("Detail", ContainSubstring(`"n1": sent "first note", delivered ""`)))))
		Expect(old.Repro).To(ContainSubstring(`--env 'worktree:NOTESD_FEATURES={"putSendsContent":true}'`))
	}, SpecTimeout(10*time.Minute))
})

// notesdKinds returns the args of a run of notesd's default plan, with --kind cli,sync added
// where node is not on PATH: the web client (JavaScript, from v0.3.0) cannot run there, and
// its specs above skip saying so.
func notesdKinds(args []string) []string {
	if _, err := exec.LookPath("node"); err != nil {
		GinkgoWriter.Println("node is not on PATH: notesd's web client is left out (--kind cli,sync)")
		return append(args, "--kind", "cli,sync")
	}
	return args
}
