package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Hardening (issue 12): answers come before the work, a report directory belongs to one run,
// an interrupted run says so, coverage never shrinks silently, and messages name what the
// user wrote. The trial's case numbers (../shared/trials/bad-inputs-and-interrupts.md) are in
// the spec names.
var _ = Describe("hardening on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string

	// cli runs the CLI in process and returns its exit code and everything it printed.
	cli := func(ctx context.Context, args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		return code, stdout.String() + stderr.String()
	}
	// buildEntries lists the build cache's entries: empty when nothing was built.
	buildEntries := func(cache string) []string {
		dirs, _ := filepath.Glob(filepath.Join(cache, "builds", "*"))
		return dirs
	}
	load := func(dir string) *results.Run {
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		var run results.Run
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		return &run
	}
	// journey writes a copy of the subject's terminal journey, changed by edit, and returns
	// its path.
	journey := func(name string, edit func(string) string) string {
		data, err := os.ReadFile(filepath.Join(repo, "journeys", "terminal.txtar"))
		Expect(err).NotTo(HaveOccurred())
		changed := edit(string(data))
		p := filepath.Join(GinkgoT().TempDir(), name)
		Expect(os.WriteFile(p, []byte(changed), 0o644)).To(Succeed())
		return p
	}
	replace := func(old, new string) func(string) string {
		return func(s string) string {
			Expect(s).To(ContainSubstring(old))
			return strings.Replace(s, old, new, 1)
		}
	}
	// copyRepo writes the subject's history again and lets edit change its working tree.
	copyRepo := func(edit func(dir string)) string {
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		dir := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(src, dir)
		Expect(err).NotTo(HaveOccurred())
		edit(dir)
		return dir
	}
	editFile := func(p string, edit func(string) string) {
		data, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(p, []byte(edit(string(data))), 0o644)).To(Succeed())
	}
	pairingDirs := func(dir string) []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	// desktop is the small plan most specs use: the working tree × v1.4.190 both ways and
	// both references, on the terminal journey (4 pairings).
	desktop := []string{"--pins", "v1.4.190", "--kind", "desktop", "--journey", "terminal", "--seed", "12"}

	BeforeAll(func() {
		repo = referenceHistory()
		cache = sharedCache
	})

	It("plans without building (B35c), and lists the pairings run runs", func(ctx SpecContext) {
		fresh := GinkgoT().TempDir()
		code, out := cli(ctx, append([]string{"plan", "--repo", repo, "--cache-dir", fresh}, desktop...)...)
		Expect(code).To(Equal(0), out)
		Expect(buildEntries(fresh)).To(BeEmpty(), "plan builds nothing")
		var planned []string
		for _, m := range regexp.MustCompile(`(?m)^\s*\d+\. (host .*?)(  \(reference\))?$`).FindAllStringSubmatch(out, -1) {
			planned = append(planned, m[1])
		}
		Expect(planned).To(HaveLen(4))

		dir := GinkgoT().TempDir()
		code, out = cli(ctx, append([]string{"run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir}, desktop...)...)
		Expect(code).To(Equal(0), out)
		Expect(buildEntries(cache)).NotTo(BeEmpty(), "control: run builds, and the check above sees it")
		run := load(dir)
		var ran []string
		for _, p := range run.Pairings {
			ran = append(ran, p.Label())
		}
		Expect(ran).To(ConsistOf(planned))
		Expect(run.Skipped).To(BeEmpty(), "control for the skipped spec: every build has a desktop client")
		Expect(run.Interrupted).To(BeFalse(), "control for the interrupt spec")
		for _, f := range []string{"summary.md", "junit.xml", "report.html"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(strings.ToLower(string(data))).NotTo(ContainSubstring("interrupted"), "control for the interrupt spec: "+f)
		}
	}, NodeTimeout(15*time.Minute))

	type refusal struct {
		args func() []string // the arguments after run --repo REPO --cache-dir FRESH
		want []string        // key words of the message
		not  []string        // words it must not say
	}
	DescribeTable("refuses before building anything, exit 2 (D6, D4)",
		func(ctx SpecContext, r refusal) {
			fresh := GinkgoT().TempDir()
			args := r.args()
			code, out := cli(ctx, append([]string{"run", "--cache-dir", fresh}, args...)...)
			Expect(code).To(Equal(2), out)
			for _, w := range r.want {
				Expect(out).To(ContainSubstring(w))
			}
			for _, w := range r.not {
				Expect(out).NotTo(ContainSubstring(w))
			}
			Expect(buildEntries(fresh)).To(BeEmpty(), "refused before the first build")
		},
		Entry("B36: --matrix bogus", refusal{
			args: func() []string { return []string{"--repo", repo, "--matrix", "bogus"} },
			want: []string{`unknown matrix "bogus" (want default or full)`}}),
		Entry("B30: --kind tablet, which no build's skewtest.yaml has", refusal{
			args: func() []string { return []string{"--repo", repo, "--kind", "tablet"} },
			want: []string{"--kind tablet", "skewtest.yaml", "desktop, mobile, session"}}),
		Entry("B54: --kind desktop with a journey that drives session only", refusal{
			args: func() []string { return []string{"--repo", repo, "--kind", "desktop", "--journey", "session"} },
			want: []string{"nothing to run", "session drives session", "desktop"}}),
		Entry("B29: a journey of a kind no build has names its kind and the builds' kinds", refusal{
			args: func() []string {
				return []string{"--repo", repo, "--journey", journey("tablet.txtar", replace("kind desktop", "kind tablet"))}
			},
			want: []string{"nothing to run", "tablet drives tablet", "client drivers for desktop, mobile, session"},
			not:  []string{"kinds []"}}),
		Entry("B21: a frame name no contract knows in a condition", refusal{
			args: func() []string {
				return []string{"--repo", repo, "--journey", journey("cond.txtar",
					replace("[cap:outputPause] client pause terminal=t1 paused=true", "[frame:SetOutputPausd] client pause terminal=t1 paused=true"))}
			},
			want: []string{terminalLine("cond.txtar", "[cap:outputPause] client pause terminal=t1 paused=true"), `frame "SetOutputPausd" is in no contract`, "worktree, v1.4.190", `did you mean "SetOutputPaused"?`}}),
		Entry("a frame name no contract knows in await frame", refusal{
			args: func() []string {
				return []string{"--repo", repo, "--journey", journey("await.txtar", replace("await frame H>C Resized", "await frame H>C Resizd"))}
			},
			want: []string{terminalLine("await.txtar", "await frame H>C Resized"), `frame "Resizd"`}}),
		Entry("B27: a frame name no contract knows in the frames section", refusal{
			args: func() []string {
				return []string{"--repo", repo, "--journey", journey("golden.txtar", func(s string) string {
					return strings.TrimRight(s, "\n") + "\nC>H Subscribe\nH>C SnapshotEnnd\n"
				})}
			},
			want: []string{"golden.txtar:", `frame "SnapshotEnnd"`, `did you mean "SnapshotEnd"?`},
			not:  []string{`"Subscribe"`}}),
		Entry("--env for a build the run does not have", refusal{
			args: func() []string { return []string{"--repo", repo, "--pins", "v1.4.190", "--env", "v1.4.120:X=1"} },
			want: []string{`--env v1.4.120:X=1: no build "v1.4.120" in this run (builds: worktree, v1.4.190)`}}),
		Entry("B37: --report-dir is a file, whose content is kept", refusal{
			args: func() []string {
				f := filepath.Join(GinkgoT().TempDir(), "afile")
				Expect(os.WriteFile(f, []byte("mine"), 0o644)).To(Succeed())
				DeferCleanup(func() { Expect(os.ReadFile(f)).To(Equal([]byte("mine"))) })
				return []string{"--repo", repo, "--report-dir", f}
			},
			want: []string{"is a file, not a directory"}}),
		Entry("B38b: --report-dir under a file", refusal{
			args: func() []string {
				f := filepath.Join(GinkgoT().TempDir(), "afile")
				Expect(os.WriteFile(f, []byte("mine"), 0o644)).To(Succeed())
				return []string{"--repo", repo, "--report-dir", filepath.Join(f, "sub")}
			},
			want: []string{"cannot be created: not a directory"}}),
		Entry("B45: an invalid working-tree contract names the user's file, before any build", refusal{
			args: func() []string {
				dir := copyRepo(func(dir string) {
					editFile(filepath.Join(dir, "skewtest-contract.json"), func(s string) string {
						lines := strings.SplitN(s, "\n", 4)
						lines[2] = `  "oops": ,`
						return strings.Join(lines, "\n")
					})
				})
				return []string{"--repo", dir, "--pins", "v1.4.190"}
			},
			want: []string{"remoteterm/skewtest-contract.json", "line 3"},
			not:  []string{"builds/", "build worktree: ok"}}),
	)

	It("accepts the unchanged journey copy: the control of the table above", func(ctx SpecContext) {
		code, out := cli(ctx, "plan", "--repo", repo, "--cache-dir", GinkgoT().TempDir(), "--pins", "v1.4.190",
			"--journey", journey("same.txtar", func(s string) string { return s }))
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("plan: 4 pairings"))
	})

	It("B17: refuses an action the working tree's driver does not announce, at its hello, exit 2 with file:line", func(ctx SpecContext) {
		typo := journey("typo.txtar", replace("client input terminal=t1", "client inptu terminal=t1"))
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--pins", "v1.4.190", "--journey", typo)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring(terminalLine("typo.txtar", "client input terminal=t1") + ` client action "inptu"`))
		Expect(out).To(ContainSubstring("desktop client worktree driver does not announce it"))
		Expect(out).NotTo(ContainSubstring("driver-error"))
		Expect(filepath.Join(dir, "results.json")).NotTo(BeAnExistingFile(), "no verdict on any pairing")

		// Control: the same journey without the typo runs.
		same := journey("same.txtar", func(s string) string { return s })
		code, out = cli(ctx, "run", "--repo", repo, "--cache-dir", cache, "--report-dir", GinkgoT().TempDir(), "--pins", "v1.4.190", "--journey", same)
		Expect(code).To(Equal(0), out)
	}, NodeTimeout(10*time.Minute))

	It("B12: a requested kind a build lacks is a notice and skipped entries, not lost coverage", func(ctx SpecContext) {
		noDesktop := copyRepo(func(dir string) {
			editFile(filepath.Join(dir, "skewtest.yaml"), func(s string) string {
				return regexp.MustCompile(`(?m)^    desktop:.*\n`).ReplaceAllString(s, "")
			})
		})
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, append([]string{"run", "--repo", noDesktop, "--cache-dir", cache, "--report-dir", dir}, desktop...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("skipped: build worktree has no desktop client driver (host v1.4.190 × desktop client worktree · terminal)"))
		run := load(dir)
		Expect(run.Skipped).To(ConsistOf(
			results.Skip{Host: "worktree", Client: "worktree", ClientKind: "desktop", Journey: "terminal", Reason: "build worktree has no desktop client driver"},
			results.Skip{Host: "v1.4.190", Client: "worktree", ClientKind: "desktop", Journey: "terminal", Reason: "build worktree has no desktop client driver"}))
		Expect(run.Pairings).To(HaveLen(2))
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), p.Label())
		}
	}, NodeTimeout(15*time.Minute))

	It("B50: a reused report directory has only the new run's pairings; the previous run is in previous/", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		code, out := cli(ctx, append([]string{"run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir}, desktop...)...)
		Expect(code).To(Equal(0), out)
		Expect(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)).To(Succeed())
		first := pairingDirs(filepath.Join(dir, "pairings"))
		Expect(first).To(HaveLen(4))
		Expect(first).To(HaveEach(ContainSubstring("terminal")), "control: the first run's pairings are there before the second")

		code, out = cli(ctx, "run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--pins", "v1.4.190",
			"--kind", "session", "--journey", "session", "--seed", "13")
		Expect(code).To(Equal(0), out)
		Expect(pairingDirs(filepath.Join(dir, "pairings"))).To(HaveEach(ContainSubstring("session")))
		Expect(pairingDirs(filepath.Join(dir, "pairings"))).To(HaveLen(4))
		Expect(pairingDirs(filepath.Join(dir, "previous", "pairings"))).To(ConsistOf(first))
		Expect(load(filepath.Join(dir, "previous")).Seed).To(Equal(int64(12)))
		Expect(load(dir).Seed).To(Equal(int64(13)))
		Expect(os.ReadFile(filepath.Join(dir, "notes.txt"))).To(Equal([]byte("mine")), "a user's file stays")
	}, NodeTimeout(10*time.Minute))

	It("B52, D12: refuses a second run into a report directory in use, naming the first; the interrupted first says so in every report", func(ctx SpecContext) {
		// A journey whose one barrier never comes, with fast stalls off: the first pairing
		// runs until the run is cancelled.
		blocking := filepath.Join(GinkgoT().TempDir(), "blocking.txtar")
		Expect(os.WriteFile(blocking, []byte("kind desktop\n-- script --\nstep wait\nawait client nothing-ever-happens\n"), 0o644)).To(Succeed())
		dir := GinkgoT().TempDir()
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		type ended struct {
			code int
			out  string
		}
		first := make(chan ended, 1)
		go func() {
			defer GinkgoRecover()
			code, out := cli(runCtx, "run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--pins", "v1.4.190",
				"--journey", blocking, "-j", "1", "--timeout", "10m", "--quiet", "0", "--seed", "21")
			first <- ended{code, out}
		}()
		// The first run's first pairing is running once its directory exists.
		Eventually(func() []string { return pairingDirs(filepath.Join(dir, "pairings")) }).
			WithTimeout(5 * time.Minute).ShouldNot(BeEmpty())

		code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--pins", "v1.4.190",
			"--kind", "desktop", "--journey", "terminal")
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("is in use by another skewtest run"))
		Expect(out).To(ContainSubstring(fmt.Sprintf("pid %d, started ", os.Getpid())))
		Expect(out).To(ContainSubstring("skewtest run --repo " + repo))
		Expect(filepath.Join(dir, "previous")).NotTo(BeADirectory(), "the refused run moved nothing")

		cancel()
		var e ended
		Eventually(first).WithTimeout(2 * time.Minute).Should(Receive(&e))
		Expect(e.code).To(Equal(3), e.out)
		run := load(dir)
		Expect(run.Seed).To(Equal(int64(21)), "the first run's results.json")
		Expect(run.Interrupted).To(BeTrue())
		Expect(run.NotRun).To(Equal(3), "one pairing at a time: the first ran, three did not")
		Expect(run.Pairings).To(HaveLen(1))
		Expect(run.Pairings[0].Error).To(HavePrefix("interrupted: "))
		summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(summary)).To(ContainSubstring("interrupted: 3 pairings of the plan did not run"))
		junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(junit)).To(ContainSubstring(`type="interrupted"`))
		html, err := os.ReadFile(filepath.Join(dir, "report.html"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring("Interrupted: 3 pairing(s) of the plan did not run"))
	}, NodeTimeout(15*time.Minute))

	It("D12: an interrupt during the builds still writes every report, with the whole plan not run", func(ctx SpecContext) {
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		// Cancel as the first build starts (a cold cache: nothing is cached).
		progress := &cancelOn{word: ": building (", cancel: cancel}
		dir := GinkgoT().TempDir()
		var stdout bytes.Buffer
		code := exitCode(dispatch(runCtx, append([]string{"run", "--repo", repo, "--cache-dir", GinkgoT().TempDir(), "--report-dir", dir}, desktop...),
			&stdout, progress), progress)
		GinkgoWriter.Printf("%s%s", stdout.String(), progress.String())
		Expect(progress.seen).To(BeTrue(), "the run was interrupted while building")
		Expect(code).To(Equal(3))
		run := load(dir)
		Expect(run.Interrupted).To(BeTrue())
		Expect(run.NotRun).To(Equal(4))
		Expect(run.Pairings).To(BeEmpty())
		summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(summary)).To(ContainSubstring("interrupted: 4 pairings of the plan did not run"))
	}, NodeTimeout(5*time.Minute))

	Describe("messages that name what the user wrote (D13)", func() {
		It("B01: says a missing --repo does not exist; a plain directory is not a git repository", func(ctx SpecContext) {
			code, out := cli(ctx, "run", "--repo", filepath.Join(GinkgoT().TempDir(), "nope"))
			Expect(code).To(Equal(2))
			Expect(out).To(ContainSubstring("nope: does not exist"))
			Expect(out).NotTo(ContainSubstring("not a git repository"))

			code, out = cli(ctx, "run", "--repo", GinkgoT().TempDir())
			Expect(code).To(Equal(2))
			Expect(out).To(ContainSubstring("not a git repository"), "control")
		})

		It("B31: gives an unknown tag in a full clone no shallow-clone advice; a clone without tags gets it", func(ctx SpecContext) {
			code, out := cli(ctx, "plan", "--repo", repo, "--pins", "v9.9.9")
			Expect(code).To(Equal(2))
			Expect(out).To(ContainSubstring(`unknown ref "v9.9.9"`))
			Expect(out).NotTo(ContainSubstring("shallow"))

			tagless := copyRepo(func(dir string) {
				tags, err := filepath.Glob(filepath.Join(dir, ".git", "refs", "tags", "*"))
				Expect(err).NotTo(HaveOccurred())
				for _, t := range tags {
					Expect(os.RemoveAll(t)).To(Succeed())
				}
				Expect(os.RemoveAll(filepath.Join(dir, ".git", "packed-refs"))).To(Succeed())
			})
			code, out = cli(ctx, "plan", "--repo", tagless, "--pins", "v9.9.9")
			Expect(code).To(Equal(2))
			Expect(out).To(ContainSubstring("a shallow clone has no tags"), "control")
		})

		// A harness build of drivers declared in a skewtest.yaml, run in dir.
		declared := func(host []string) *harness.Build {
			cfg, err := builds.ParseConfig("/home/me/subject/skewtest.yaml", []byte(
				"product: p\ncontract: c.json\nbuild:\n  steps: [\"true\"]\ndrivers:\n  host: "+jsonArgv(host)+
					"\n  clients:\n    desktop: [\"./client\"]\n"))
			Expect(err).NotTo(HaveOccurred())
			at := func(kind string) string {
				return fmt.Sprintf("/home/me/subject/skewtest.yaml:%d", cfg.DriverLine(kind))
			}
			return &harness.Build{Label: "worktree", Revision: "worktree", Dir: GinkgoT().TempDir(), Host: cfg.Drivers.Host,
				Clients: cfg.Drivers.Clients, DriverAt: at}
		}
		pair := func(b *harness.Build, ready time.Duration) *results.Pairing {
			j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep s\nawait client x\n"))
			Expect(err).NotTo(HaveOccurred())
			res, _ := harness.Run(context.Background(), harness.Pairing{Host: b, Client: b, Kind: "desktop", Journey: j},
				harness.Options{Dir: GinkgoT().TempDir(), ReadyTimeout: ready})
			Expect(res.Status).To(Equal(results.StatusError))
			return res
		}

		It("B13: names a missing driver binary by its skewtest.yaml line, not its path in the build cache", func() {
			b := declared([]string{"./no-such-driver", "host"})
			res := pair(b, time.Second)
			Expect(res.Error).To(ContainSubstring(`"./no-such-driver" (/home/me/subject/skewtest.yaml:6) does not exist in the build's output`))
			Expect(res.Error).NotTo(ContainSubstring(b.Dir))
			Expect(b.DriverAt("desktop")).To(Equal("/home/me/subject/skewtest.yaml:8"), "control: each driver has its own line")
		})

		It("B13: checks a build's drivers are in its output once built, naming their skewtest.yaml lines", func() {
			b := declared([]string{"./no-such-driver", "host"})
			a := &builds.Artifact{Label: "worktree", Dir: b.Dir, Config: &builds.Config{Drivers: builds.Drivers{Host: b.Host, Clients: b.Clients}}}
			d := &harness.Build{Label: "worktree", Contract: &contract.Contract{}, DriverAt: b.DriverAt}
			_, err := matrix.FromArtifact(a, d)
			Expect(err).To(MatchError(`worktree: the host driver "./no-such-driver" (/home/me/subject/skewtest.yaml:6) is not in the build's output: the recipe must write it to $SKEWTEST_OUT, or fix its argv there`))

			Expect(os.WriteFile(filepath.Join(b.Dir, "no-such-driver"), nil, 0o755)).To(Succeed())
			_, err = matrix.FromArtifact(a, d)
			Expect(err).To(MatchError(ContainSubstring(`the desktop client driver "./client" (/home/me/subject/skewtest.yaml:8)`)), "each driver is checked")
			Expect(os.WriteFile(filepath.Join(b.Dir, "client"), nil, 0o755)).To(Succeed())
			_, err = matrix.FromArtifact(a, d)
			Expect(err).NotTo(HaveOccurred(), "control: drivers that are there pass")
		})

		It("B15: says what a silent driver's start waited for, and how long", func() {
			res := pair(declared([]string{"sleep", "60"}), 300*time.Millisecond)
			Expect(res.Error).To(ContainSubstring("host worktree driver never got ready: it never said hello within 300ms"))
			Expect(res.Error).NotTo(ContainSubstring("context deadline exceeded"))

			res = pair(declared([]string{"sh", "-c", `echo '{"type":"hello","protocol":1}'; sleep 60`}), 300*time.Millisecond)
			Expect(res.Error).To(ContainSubstring("host worktree driver never got ready: it said hello but never said ready within 300ms"), "control")
		})
	})
})

// jsonArgv writes argv as a YAML flow sequence.
func jsonArgv(argv []string) string {
	data, err := json.Marshal(argv)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// cancelOn is a progress writer that cancels a run once a line with word is written.
type cancelOn struct {
	mu sync.Mutex
	bytes.Buffer
	word   string
	cancel func()
	seen   bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen && bytes.Contains(p, []byte(c.word)) {
		c.seen = true
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// terminalLine is "NAME:N:" where N is the line of the reference subject's terminal journey
// holding text: where a journey copied from it under NAME is refused.
func terminalLine(name, text string) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "remoteterm", "journeys", "terminal.txtar"))
	if err != nil {
		panic(err)
	}
	i := strings.Index(string(data), text)
	if i < 0 {
		panic("terminal.txtar has no line " + text)
	}
	return fmt.Sprintf("%s:%d:", name, 1+strings.Count(string(data[:i]), "\n"))
}
