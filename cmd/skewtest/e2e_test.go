package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/example"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/internal/testlabels"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/results"
)

// The e2e specs write the reference subject's history once, share one build cache, and
// drive the real CLI in process: real builds, real driver processes, real sockets.
var _ = Describe("skewtest on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string

	BeforeAll(func() {
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		repo = filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
		cache = GinkgoT().TempDir()
	})

	// skewtest runs the CLI and returns its exit code, its stdout and, when it wrote one, its
	// results.json.
	skewtest := func(ctx context.Context, args ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		if args[0] == "run" || args[0] == "repro" {
			args = append(args, "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--seed", "42")
		}
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return code, stdout.String() + stderr.String(), nil
		}
		var run results.Run
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		return code, stdout.String() + stderr.String(), &run
	}

	// pairing returns the one non-reference pairing of a repro.
	pairing := func(run *results.Run) *results.Pairing {
		for _, p := range run.Pairings {
			if p.Host != p.Client {
				return p
			}
		}
		return run.Pairings[0]
	}

	kinds := func(p *results.Pairing) []results.Kind {
		var out []results.Kind
		for _, f := range p.Findings {
			out = append(out, f.Kind)
		}
		return out
	}

	finding := func(p *results.Pairing, k results.Kind) results.Finding {
		for _, f := range p.Findings {
			if f.Kind == k {
				return f
			}
		}
		Fail("no " + string(k) + " finding")
		return results.Finding{}
	}

	It("writes exactly the history's tags, and the working tree's uncommitted change", func() {
		r, err := git.PlainOpen(repo)
		Expect(err).NotTo(HaveOccurred())
		iter, err := r.Tags()
		Expect(err).NotTo(HaveOccurred())
		var tags []string
		Expect(iter.ForEach(func(ref *plumbing.Reference) error { tags = append(tags, ref.Name().Short()); return nil })).To(Succeed())
		Expect(tags).To(ConsistOf("v1.4.120", "v1.4.146", "v1.4.147", "v1.4.150", "v1.4.156", "v1.4.157", "v1.4.165",
			"v1.4.166", "v1.4.171", "v1.4.172", "v1.4.173", "v1.4.180", "v1.4.185", "v1.4.190", "v1.4.191-rc.1",
			"mobile-v9.0.0", "v799"))
		wt, err := r.Worktree()
		Expect(err).NotTo(HaveOccurred())
		st, err := wt.Status()
		Expect(err).NotTo(HaveOccurred())
		Expect(st.IsClean()).To(BeFalse())
	})

	It("pins the newest stable tag and says why the others are skipped", func(ctx SpecContext) {
		code, out, _ := skewtest(ctx, "pins", "--repo", repo)
		Expect(code).To(Equal(0))
		Expect(out).To(MatchRegexp(`v1.4.190\s+[0-9a-f]{40}\s+newest stable tag`))
		Expect(out).To(ContainSubstring("mobile-v9.0.0"))
		Expect(out).To(ContainSubstring("v1.4.191-rc.1"))
		Expect(out).To(ContainSubstring("v799"))
	})

	It("builds every release tag from a clean checkout", func(ctx SpecContext) {
		code, out, _ := skewtest(ctx, "build", "--repo", repo, "--cache-dir", cache, "--last", "14")
		Expect(code).To(Equal(0), out)
	})

	It("prints the plan with a repro line per pairing, and runs nothing", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		code, out, _ := skewtest(ctx, "plan", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--seed", "7")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("plan: 12 pairings"))
		Expect(out).To(MatchRegexp(`11\. host worktree .*× mobile client v1\.4\.190 .*· terminal-mobile`))
		Expect(out).To(ContainSubstring("--host worktree --client v1.4.190 --kind mobile --journey terminal-mobile --seed 7"))
		Expect(filepath.Join(dir, "results.json")).NotTo(BeAnExistingFile())
	})

	It("passes the default run: working tree × newest stable tag both ways, plus references", func(ctx SpecContext) {
		code, out, run := skewtest(ctx, "run")
		Expect(code).To(Equal(0), out)
		Expect(run.Pairings).To(HaveLen(12))
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), p.Label())
			Expect(p.CompletedSteps).To(HaveLen(p.StepsTotal))
		}
	})

	DescribeTable("reproduces the history's release-skew bugs",
		func(ctx SpecContext, host, client, kind, journey string, code int, want []results.Kind, check func(p *results.Pairing)) {
			got, out, run := skewtest(ctx, "repro", "--host", host, "--client", client, "--kind", kind, "--journey", journey)
			Expect(got).To(Equal(code), out)
			p := pairing(run)
			Expect(kinds(p)).To(ContainElements(want))
			Expect(p.Repro).To(ContainSubstring("--host " + host + " --client " + client))
			if check != nil {
				check(p)
			}
		},
		Entry("newest host, oldest desktop client: OutputSpan the old decoder does not know",
			"v1.4.190", "v1.4.120", "desktop", "terminal", 1, []results.Kind{results.DecoderRefusal}, func(p *results.Pairing) {
				f := finding(p, results.DecoderRefusal)
				Expect(f.Direction).To(Equal("H>C"))
				Expect(f.Frame.Opcode).To(Equal(15))
				Expect(f.Frame.Name).To(Equal("OutputSpan"))
			}),
		Entry("the working tree negotiates with that client instead",
			"worktree", "v1.4.120", "desktop", "terminal", 0, nil, func(p *results.Pairing) {
				Expect(p.Status).To(Equal(results.StatusPass))
			}),
		Entry("v1.4.147 sends OutputSpan to a mobile client that drops it",
			"v1.4.147", "v1.4.146", "mobile", "terminal-mobile", 1, []results.Kind{results.DecoderRefusal, results.DataLoss}, func(p *results.Pairing) {
				f := finding(p, results.DecoderRefusal)
				Expect(f.Direction).To(Equal("H>C"))
				Expect(f.Frame.Opcode).To(Equal(15))
				Expect(f.Message).To(ContainSubstring("silently dropped"))
			}),
		Entry("v1.4.180 downgrades for a desktop client that tracks seq",
			"v1.4.180", "v1.4.173", "desktop", "terminal", 1, []results.Kind{results.Stall, results.DataLoss, results.SequenceDrift}, func(p *results.Pairing) {
				Expect(finding(p, results.SequenceDrift).Detail).To(ContainSubstring("+ C>H SnapshotRequest  [transformed-output]"))
			}),
		Entry("v1.4.171 stops publishing cwd",
			"v1.4.171", "v1.4.166", "desktop", "terminal", 1, []results.Kind{results.PublishedFieldRemoved}, func(p *results.Pairing) {
				f := finding(p, results.PublishedFieldRemoved)
				Expect(f.Frame.Name).To(Equal("SnapshotStart"))
				Expect(f.Message).To(ContainSubstring("no longer carries /cwd"))
			}),
		Entry("v1.4.165's client sends presence to a daemon without attention",
			"v1.4.120", "v1.4.165", "session", "session", 1, []results.Kind{results.CapabilityMismatch, results.DecoderRefusal}, func(p *results.Pairing) {
				Expect(finding(p, results.DecoderRefusal).Frame.Name).To(Equal("presence"))
			}),
		Entry("protocol 2 and protocol 1 refuse each other cleanly",
			"v1.4.185", "v1.4.166", "session", "session", 0, nil, func(p *results.Pairing) {
				Expect(p.Status).To(Equal(results.StatusExpectedRefusal))
			}),
		Entry("v1.4.190 host with the real v1.4.173 desktop client", "v1.4.190", "v1.4.173", "desktop", "terminal", 0, nil, nil),
		Entry("v1.4.173 host with the v1.4.146 mobile client", "v1.4.173", "v1.4.146", "mobile", "terminal-mobile", 0, nil, nil),
	)

	// Negative controls on real builds: each mutates one build through a switch its driver
	// reads (its contract still says what the release should do) and must fire one check at
	// the right step.
	DescribeTable("negative controls on real builds",
		func(ctx SpecContext, hostRef, hostEnv, clientRef, clientEnv, kind, journey string, kind2 results.Kind, step string, check func(f results.Finding)) {
			b := &builds.Builder{CacheDir: cache}
			built, _, err := buildAll(ctx, b, repo, []builds.Source{source(ctx, repo, hostRef), source(ctx, repo, clientRef)}, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			host, client := *built[0], *built[1]
			host.Env, client.Env = env(hostEnv), env(clientEnv)
			j, err := loadJourneys(repo, []string{journey})
			Expect(err).NotTo(HaveOccurred())
			opts := harness.Options{Dir: GinkgoT().TempDir(), Timeout: 5 * time.Second, Older: pins.Older}
			_, ref := harness.Run(ctx, harness.Pairing{Host: built[1], Client: built[1], Kind: kind, Journey: j[0]}, opts)
			opts.Dir, opts.Reference = GinkgoT().TempDir(), ref
			p, _ := harness.Run(ctx, harness.Pairing{Host: &host, Client: &client, Kind: kind, Journey: j[0]}, opts)
			Expect(p.Status).To(Equal(results.StatusFail))
			f := finding(p, kind2)
			Expect(f.Step).To(Equal(step))
			if check != nil {
				check(f)
			}
		},
		Entry("a host decoder without Input (opcode 7)", "worktree", "REMOTETERM_DECODER_WITHOUT=7", "worktree", "",
			"desktop", "terminal", results.DecoderRefusal, "input-reaches-process", func(f results.Finding) {
				Expect(f.Direction).To(Equal("C>H"))
				Expect(f.Frame.Opcode).To(Equal(7))
			}),
		Entry("a host that stops publishing cwd", "worktree", `REMOTETERM_FEATURES={"publishCwd":false}`, "v1.4.190", "",
			"desktop", "terminal", results.PublishedFieldRemoved, "subscribe", func(f results.Finding) {
				Expect(f.Message).To(ContainSubstring("no longer carries /cwd"))
			}),
		Entry("a host that skips the outputPause echo", "worktree", `REMOTETERM_FEATURES={"outputPause":false}`, "worktree", "",
			"desktop", "terminal", results.CapabilityMismatch, "subscribe", func(f results.Finding) {
				Expect(f.Detail).To(ContainSubstring("expected but not echoed: [outputPause]"))
			}),
		Entry("a client that sends presence to a daemon without attention", "worktree", `REMOTETERM_FEATURES={"attention":false}`,
			"worktree", `REMOTETERM_FEATURES={"presenceUngated":true}`,
			"session", "session", results.CapabilityMismatch, "presence", func(f results.Finding) {
				Expect(f.Frame.Name).To(Equal("presence"))
			}),
		Entry("a daemon that accepts a peer outside its window", "worktree", `REMOTETERM_FEATURES={"sessionMinCompatible":1}`, "v1.4.166", "",
			"session", "session", results.WindowViolation, "hello", func(f results.Finding) {
				Expect(f.Message).To(HavePrefix("the host did not refuse a peer outside its protocol window"))
			}),
	)

	It("stops every driver when interrupted with Ctrl-C mid-pairing", func(ctx SpecContext) {
		bin := filepath.Join(GinkgoT().TempDir(), "skewtest")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		// v1.4.190 × v1.4.120 stalls for its barrier timeout (fast stalls off): interrupt it there.
		// One pairing at a time: both references first, then the skewed pairing.
		cmd := exec.CommandContext(ctx, bin, "repro", "--repo", repo, "--cache-dir", cache, "--report-dir", GinkgoT().TempDir(),
			"--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--journey", "terminal", "--timeout", "60s",
			"--quiet", "0", "-j", "1")
		stderr, err := cmd.StderrPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd.Start()).To(Succeed())
		lines := bufio.NewScanner(stderr)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "[2/3]") {
		}
		// The references are done and the skewed pairing is starting; wait until its
		// drivers run, then interrupt.
		Eventually(func() []int { return drivers(cache) }).ShouldNot(BeEmpty())
		Expect(cmd.Process.Signal(os.Interrupt)).To(Succeed())
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		err = cmd.Wait()
		Expect(err).To(HaveOccurred(), "an interrupted run does not pass")
		Expect(drivers(cache)).To(BeEmpty(), "no driver outlives an interrupted run")
	}, NodeTimeout(5*time.Minute))

	It("turns only a broken tag's pairings into errors, with its log, and exits 3", func(ctx SpecContext) {
		// A copy of the subject whose working tree says v1.4.185 builds with a recipe that
		// fails; v1.4.190 builds as always.
		broken := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		src, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		_, err = example.Write(src, broken)
		Expect(err).NotTo(HaveOccurred())
		cfg := filepath.Join(broken, "skewtest.yaml")
		data, err := os.ReadFile(cfg)
		Expect(err).NotTo(HaveOccurred())
		data = append(data, []byte("versions:\n  - range: \"v1.4.185\"\n    recipe: [\"echo the v1.4.185 toolchain is gone >&2; exit 1\"]\n")...)
		Expect(os.WriteFile(cfg, data, 0o644)).To(Succeed())

		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		code := exitCode(dispatch(ctx, []string{"run", "--repo", broken, "--cache-dir", cache, "--report-dir", dir,
			"--pins", "v1.4.185,v1.4.190", "--kind", "session"}, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("%s%s", stdout.String(), stderr.String())
		Expect(code).To(Equal(3))
		Expect(stderr.String()).To(ContainSubstring("the v1.4.185 toolchain is gone"))
		raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		var run results.Run
		Expect(json.Unmarshal(raw, &run)).To(Succeed())
		for _, b := range run.Builds {
			if b.Label == "v1.4.185" {
				Expect(b.Status).To(Equal("error"))
				Expect(b.Log).To(BeAnExistingFile())
			} else {
				Expect(b.Status).NotTo(Equal("error"), b.Label)
			}
		}
		errors := 0
		for _, p := range run.Pairings {
			involved := p.Host == "v1.4.185" || p.Client == "v1.4.185"
			if involved {
				errors++
				Expect(p.Status).To(Equal(results.StatusError), p.Label())
				Expect(p.Error).To(ContainSubstring("v1.4.185"))
			} else {
				Expect(p.Status).NotTo(Equal(results.StatusError), p.Label())
			}
		}
		Expect(errors).To(Equal(3)) // its reference and both directions with the working tree
	})

	It("refuses an unknown ref with exit code 2", func(ctx SpecContext) {
		code, out, _ := skewtest(ctx, "repro", "--host", "v9.9.9", "--client", "worktree")
		Expect(code).To(Equal(2))
		Expect(out).To(ContainSubstring(`unknown ref "v9.9.9"`))
	})
})

// source resolves a ref of the example repository for a build.
func source(ctx context.Context, repo, ref string) builds.Source {
	s, err := sourceOf(ctx, repo, ref)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func env(kv string) []string {
	if kv == "" {
		return nil
	}
	return []string{kv}
}

// drivers lists the pids of processes running a binary from the build cache (drivers).
func drivers(cache string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(cache)) {
			out = append(out, pid)
		}
	}
	return out
}
