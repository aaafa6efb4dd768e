package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

// skewtest demo on the reference subject: the default plan green, then the history's known
// release-skew bugs red. The specs share one build cache: the history builds once.
var _ = Describe("skewtest demo", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var cache string
	BeforeAll(func() { cache = sharedCache })

	// demo runs skewtest demo with the shared cache and a new report directory, and removes
	// the temporary directory it says it leaves.
	demo := func(ctx context.Context, args ...string) (int, string, string) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		args = append([]string{"demo", "--cache-dir", cache, "--report-dir", dir}, args...)
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		if m := regexp.MustCompile(`remove it with rm -rf (\S+)\n`).FindStringSubmatch(stdout.String()); m != nil {
			DeferCleanup(os.RemoveAll, m[1])
		}
		return code, stdout.String(), dir
	}

	It("runs the default plan green, then finds every known bug of the history as documented: exit 0", func(ctx SpecContext) {
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		w, err := example.Write(src, filepath.Join(GinkgoT().TempDir(), "rt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(w.KnownBugs).To(HaveLen(6))

		code, out, dir := demo(ctx)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("12 pairings: 12 passed, 0 failed"))
		Expect(out).To(ContainSubstring("the default plan passed"))
		Expect(strings.Count(out, "contract check:")).To(Equal(1), "the known bugs' run has no static tier")
		Expect(out).To(ContainSubstring("now the 6 known release-skew bugs the remoteterm history ships on purpose"))
		Expect(out).To(ContainSubstring("plan: 17 pairings"))
		for _, b := range w.KnownBugs {
			Expect(out).To(MatchRegexp(`found as documented: %s\n  %s: .*\n  skewtest repro --repo \S+ --host %s --client %s --kind %s --journey %s --seed \d+\n`,
				regexp.QuoteMeta(b.Why), regexp.QuoteMeta(b.Label()), b.Host, b.Client, b.Kind, b.Journey))
		}
		Expect(out).NotTo(ContainSubstring("NOT FOUND"))
		Expect(out).To(ContainSubstring("also red (a reference: the build fails with its own peer): host v1.4.147 × mobile client v1.4.147 · terminal-mobile"))
		Expect(out).To(ContainSubstring("6 known release-skew bugs found as documented; open " + filepath.Join(dir, "known-bugs", "report.html") + " to see them red"))
		Expect(filepath.Join(dir, "known-bugs", "results.json")).To(BeAnExistingFile())
		Expect(filepath.Join(dir, "results.json")).To(BeAnExistingFile())
	}, NodeTimeout(15*time.Minute))

	It("exits 1 and says NOT FOUND when a known bug is declared with a kind it does not find", func(ctx SpecContext) {
		// A copy of the subject whose history declares one known bug with a kind of finding
		// that pairing never reports (it finds published-field-removed, never a stall).
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		dir := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		Expect(os.CopyFS(dir, os.DirFS(src.From))).To(Succeed())
		history, err := os.ReadFile(filepath.Join(dir, "history.yaml"))
		Expect(err).NotTo(HaveOccurred())
		cut := bytes.Index(history, []byte("\nknownBugs:\n"))
		Expect(cut).To(BeNumerically(">", 0))
		history = append(history[:cut+1], `knownBugs:
  - {host: v1.4.171, client: v1.4.166, kind: desktop, journey: terminal, finds: [published-field-removed, stall], why: "cwd is no longer published"}
`...)
		Expect(os.WriteFile(filepath.Join(dir, "history.yaml"), history, 0o644)).To(Succeed())

		code, out, _ := demo(ctx, "--source", dir)
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("the default plan passed"))
		Expect(out).To(MatchRegexp(`NOT FOUND: cwd is no longer published\n  host v1.4.171 × desktop client v1.4.166 · terminal: no stall finding \(it found published-field-removed\) \(documented: published-field-removed, stall\)\n  skewtest repro --repo \S+ --host v1.4.171 --client v1.4.166 --kind desktop --journey terminal --seed \d+\n`))
		Expect(out).To(ContainSubstring("1 of 1 known release-skew bug NOT FOUND as documented: a regression of skewtest's checks"))
	}, NodeTimeout(15*time.Minute))

	It("skips the known bugs with --known-bugs=false, and says so", func(ctx SpecContext) {
		code, out, dir := demo(ctx, "--known-bugs=false")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("12 pairings: 12 passed"))
		Expect(out).To(ContainSubstring("--known-bugs=false: the history's known release-skew bugs were not run"))
		Expect(filepath.Join(dir, "known-bugs")).NotTo(BeAnExistingFile())
	}, NodeTimeout(15*time.Minute))
})
