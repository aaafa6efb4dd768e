package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testcache"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// The Action's shell steps, run as a job would run them on the reference subject: the setup
// and build steps once (make build into the runner's temp directory), then the run, upload
// and verdict of one use of the Action per spec. The steps that use other actions are
// GitHub's (setup-go: the Go on PATH; the caches: nothing restored; the upload: its path is
// checked).
var _ = Describe("the Action's shell steps, run as GitHub runs them, on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var (
		r     *actionRunner
		cache string // the build cache the specs share
	)

	BeforeAll(func(ctx SpecContext) {
		if _, err := exec.LookPath("jq"); err != nil {
			Skip("jq is not on the PATH: the Action reads the pairing counts with it (GitHub's runners have it)")
		}
		cache = testcache.Dir(func() string { return GinkgoT().TempDir() })
		r = newActionRunner()

		setup := r.step(ctx, "setup", map[string]string{"repo": "remoteterm", "cache-dir": cache})
		Expect(setup.Code).To(Equal(0), setup.Log)
		Expect(setup.Outputs).To(HaveKeyWithValue("cache-dir", cache))

		build := r.step(ctx, "build", nil)
		Expect(build.Code).To(Equal(0), build.Log)
		bin := filepath.Join(r.temp, "skewtest-action", "bin", "skewtest")
		Expect(build.Outputs).To(HaveKeyWithValue("skewtest", bin))
		Expect(bin).To(BeAnExistingFile())
		Expect(build.Path).To(Equal(filepath.Dir(bin)), "skewtest on the PATH of the job's later steps")

		out, err := exec.CommandContext(ctx, bin, "example", filepath.Join(r.workspace, "remoteterm")).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	}, NodeTimeout(15*time.Minute))

	// use is one use of the Action: its run step, then its verdict.
	type use struct {
		run, verdict stepRun
		reportDir    string
		results      *results.Run // what the run step's command wrote, or nil
	}
	useAction := func(ctx SpecContext, inputs map[string]string) use {
		GinkgoHelper()
		u := use{run: r.step(ctx, "run", inputs)}
		Expect(u.run.Code).To(Equal(0), "the run step passes whatever skewtest's exit code: the upload comes first\n%s", u.run.Log)
		i := slices.IndexFunc(r.action.Runs.Steps, func(s actionStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
		u.reportDir = filepath.Join(r.workspace, r.eval(r.action.Runs.Steps[i].With["path"], inputs))
		if code := u.run.Outputs["exit-code"]; code == "0" || code == "1" || code == "3" {
			var err error
			u.results, err = results.Load(filepath.Join(u.reportDir, "results.json"))
			Expect(err).NotTo(HaveOccurred(), u.run.Log)
		}
		u.verdict = r.step(ctx, "verdict", inputs)
		return u
	}
	// countsOf are the outputs results.json's pairings should give.
	countsOf := func(run *results.Run) map[string]string {
		c := run.Counts()
		return map[string]string{
			"pairings":          strconv.Itoa(len(run.Pairings)),
			"passed":            strconv.Itoa(c[results.StatusPass]),
			"failed":            strconv.Itoa(c[results.StatusFail]),
			"flaky":             strconv.Itoa(c[results.StatusFlaky]),
			"errored":           strconv.Itoa(c[results.StatusError]),
			"expected-refusals": strconv.Itoa(c[results.StatusExpectedRefusal]),
		}
	}
	// expectOutputs checks that the run step set every output the Action declares, with the
	// exit code and counts given.
	expectOutputs := func(u use, want map[string]string) {
		GinkgoHelper()
		for name := range r.action.Outputs {
			Expect(u.run.Outputs).To(HaveKey(name), "output %s", name)
		}
		for k, v := range want {
			Expect(u.run.Outputs).To(HaveKeyWithValue(k, v), u.run.Log)
		}
	}
	// expectSummary checks that the job summary holds the report's summary.md, once.
	expectSummary := func(u use) {
		GinkgoHelper()
		md, err := os.ReadFile(filepath.Join(u.reportDir, "summary.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(md).NotTo(BeEmpty())
		Expect(u.run.Summary).To(Equal(string(md)+"\n"), "summary.md, once")
	}
	small := func(more map[string]string) map[string]string {
		in := map[string]string{"repo": "remoteterm", "cache-dir": cache, "pins": "v1.4.190", "seed": "7",
			"args": "--kind mobile --journey terminal-mobile"}
		for k, v := range more {
			in[k] = v
		}
		return in
	}

	It("runs a compatible plan: exit code 0, the counts of its results.json, its summary.md in the job summary, the report to upload, a passing verdict", func(ctx SpecContext) {
		u := useAction(ctx, small(nil))
		Expect(u.run.Log).To(ContainSubstring("skewtest run --repo remoteterm --report-dir skewtest-report --cache-dir " + cache + " --pins v1.4.190 --seed 7 --kind mobile --journey terminal-mobile\n"))
		Expect(u.results.Pairings).To(HaveLen(4), "the working tree and v1.4.190, both ways, and the references")
		expectOutputs(u, countsOf(u.results))
		expectOutputs(u, map[string]string{"exit-code": "0", "passed": "4", "error": ""})
		expectSummary(u)
		for _, f := range []string{"results.json", "junit.xml", "summary.md", "report.html"} {
			Expect(filepath.Join(u.reportDir, f)).To(BeAnExistingFile())
		}
		Expect(u.verdict.Code).To(Equal(0), u.verdict.Log)
		Expect(u.verdict.Log).To(Equal("skewtest run: exit 0, compatible (0 failed, 0 flaky, 0 errors of 4 pairings)\n"))
	}, SpecTimeout(15*time.Minute))

	It("counts the pairings that fail and fails the job on findings, unless fail-on-findings is false", func(ctx SpecContext) {
		// A working tree whose desktop client forgot OutputSpan: v1.4.190's host, and its own,
		// send it. The switch is a quoted word of args.
		in := small(map[string]string{"report-dir": "findings",
			"args": `--kind desktop --journey terminal --env 'worktree:REMOTETERM_FEATURES={"outputSpan":false}'`})
		u := useAction(ctx, in)
		Expect(u.run.Log).To(ContainSubstring(`--env worktree:REMOTETERM_FEATURES=\{\"outputSpan\":false\}`))
		want := countsOf(u.results)
		Expect(want["failed"]).NotTo(Equal("0"))
		expectOutputs(u, want)
		expectOutputs(u, map[string]string{"exit-code": "1"})
		expectSummary(u)
		Expect(u.verdict.Code).To(Equal(1))
		Expect(u.verdict.Log).To(ContainSubstring("::error title=skewtest found incompatibilities::skewtest run exited 1, compatibility findings (" +
			want["failed"] + " failed, 0 flaky, 0 errors of 4 pairings)"))

		in["fail-on-findings"] = "false"
		Expect(r.step(ctx, "verdict", in)).To(SatisfyAll(
			HaveField("Code", 0),
			HaveField("Log", HavePrefix("::warning title=skewtest found incompatibilities::")),
		))
	}, SpecTimeout(15*time.Minute))

	It("runs the shards of one plan, then merges their reports over a glob, as the nightly workflow does", func(ctx SpecContext) {
		total := 0
		for _, k := range []string{"1", "2"} {
			u := useAction(ctx, small(map[string]string{"shard": k + "/2", "report-dir": "shards/skewtest-shard-" + k}))
			Expect(u.run.Log).To(ContainSubstring("--shard " + k + "/2"))
			expectOutputs(u, map[string]string{"exit-code": "0"})
			Expect(u.results.Shard).To(Equal(k + "/2"))
			total += len(u.results.Pairings)
		}
		u := useAction(ctx, map[string]string{"command": "merge-reports", "reports": "shards/*\n", "report-dir": "merged"})
		Expect(u.run.Log).To(ContainSubstring("skewtest merge-reports --report-dir merged shards/skewtest-shard-1 shards/skewtest-shard-2\n"))
		Expect(u.results.Pairings).To(HaveLen(4))
		Expect(total).To(BeNumerically(">=", 4), "each shard runs the references its pairings need")
		expectOutputs(u, countsOf(u.results))
		expectOutputs(u, map[string]string{"exit-code": "0"})
		expectSummary(u)
		Expect(u.verdict.Code).To(Equal(0), u.verdict.Log)
	}, SpecTimeout(15*time.Minute))

	It("gives exit code 2 and no counts for a repository that is not there, says so in the job summary and fails the verdict with the message (not an earlier run's report)", func(ctx SpecContext) {
		// The report directory holds the first spec's results.json: it is not this run's.
		Expect(filepath.Join(r.workspace, "skewtest-report", "results.json")).To(BeAnExistingFile())
		u := useAction(ctx, map[string]string{"repo": "does-not-exist", "cache-dir": cache})
		expectOutputs(u, map[string]string{"exit-code": "2", "pairings": "", "passed": "", "failed": "", "errored": "",
			"error": "open does-not-exist: does not exist: give the directory of the subject's git repository"})
		Expect(u.run.Summary).To(Equal("### skewtest run: exit 2, a usage or configuration error\n\n" +
			"```\nopen does-not-exist: does not exist: give the directory of the subject's git repository\n```\n\n" +
			"No report was written: the step's log says more.\n\n"))
		Expect(u.verdict.Code).To(Equal(2))
		Expect(u.verdict.Log).To(Equal("::error title=skewtest could not start::skewtest run exited 2, a usage or configuration error " +
			"(an input of the action, skewtest.yaml, a moved tag, a shallow clone without tags, shards that do not belong together): " +
			"open does-not-exist: does not exist: give the directory of the subject's git repository\n"))
	}, SpecTimeout(5*time.Minute))

	DescribeTable("refuses with exit code 2, before skewtest runs, what the action cannot pass on",
		func(ctx SpecContext, inputs map[string]string, message string) {
			u := useAction(ctx, inputs)
			expectOutputs(u, map[string]string{"exit-code": "2", "pairings": "", "error": message})
			Expect(u.run.Log).NotTo(ContainSubstring("skewtest run"), "skewtest did not run")
			Expect(u.run.Summary).To(ContainSubstring(message))
			Expect(u.verdict.Code).To(Equal(2))
			Expect(u.verdict.Log).To(ContainSubstring("::error title=skewtest could not start::"))
		},
		Entry("a command the action does not run", map[string]string{"command": "repro"},
			`command: "repro" is not one the action runs (run, fuzz, explore or merge-reports); run any other in a step of your own: the action puts skewtest on the PATH`),
		Entry("args with a quote left open", map[string]string{"args": `--kind 'mobile`},
			`args: --kind 'mobile: not shell words (is a quote left open?)`),
	)
})
