package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// The e2e specs write the reference subject's history once, share one build cache, and
// drive the real CLI in process: real builds, real driver processes, real sockets.
var _ = Describe("skewtest on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string

	BeforeAll(func() {
		repo = referenceHistory()
		cache = sharedCache
	})

	// skewtestOn runs the CLI on a repository and returns its exit code, its output, its
	// results.json when it wrote one, and its report directory.
	skewtestOn := func(ctx context.Context, repo string, args ...string) (int, string, *results.Run, string) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		if args[0] == "run" || args[0] == "repro" {
			args = append(args, "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--seed", "42")
		}
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return code, stdout.String() + stderr.String(), nil, dir
		}
		var run results.Run
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		return code, stdout.String() + stderr.String(), &run, dir
	}

	// skewtest runs the CLI on the reference subject's history.
	skewtest := func(ctx context.Context, args ...string) (int, string, *results.Run) {
		code, out, run, _ := skewtestOn(ctx, repo, args...)
		return code, out, run
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
			"v1.4.180", "v1.4.173", "desktop", "terminal", 1, []results.Kind{results.Stall, results.DataLoss, results.SequenceDrift, results.UnexpectedEvent}, func(p *results.Pairing) {
				// The client asks for a resync in an output step: neither build does that
				// with its own peer (the differential oracle), and the journey says so.
				Expect(finding(p, results.SequenceDrift).Detail).To(ContainSubstring("step transformed-output, C>H frames:\n  this pairing:  SnapshotRequest\n"))
				Expect(finding(p, results.UnexpectedEvent).Step).To(Equal("transformed-output"))
				Expect(finding(p, results.UnexpectedEvent).Message).To(ContainSubstring("expected no client resync"))
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
			built, _, err := matrix.BuildAll(ctx, b, repo, []builds.Source{source(ctx, repo, hostRef), source(ctx, repo, clientRef)}, nil, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			host, client := *built[0], *built[1]
			host.Env, client.Env = env(hostEnv), env(clientEnv)
			j, err := openSubject(repo).Journeys([]string{journey})
			Expect(err).NotTo(HaveOccurred())
			// Older orders the builds as run does: the published-field check runs only where
			// the client is the older build.
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

	// One negative control per class of finding, each a switch of the working tree's own
	// code (release.Features, turned on in one build with --env worktree:REMOTETERM_FEATURES=…;
	// the build's contract still says what the working tree should do), run against the newest
	// release in the direction that exercises it. Each must be found at the right step, and the
	// same pairing without the switch must pass.
	cleanPairings := map[string]bool{} // pairings already shown to pass without a switch
	DescribeTable("negative controls on real builds, one per class",
		func(ctx SpecContext, c negativeControl) {
			args := []string{"repro", "--host", c.host, "--client", c.client, "--kind", c.kind, "--journey", c.journey}
			code, out, run := skewtest(ctx, append(args, "--env", "worktree:REMOTETERM_FEATURES="+c.features)...)
			Expect(code).To(Equal(1), out)
			p := pairing(run)
			Expect(p.Host + " " + p.Client).To(Equal(c.host + " " + c.client))
			Expect(p.Status).To(Equal(results.StatusFail))
			i := slices.IndexFunc(p.Findings, func(f results.Finding) bool {
				return f.Kind == c.want && f.Step == c.step && (c.dir == "" || f.Direction == c.dir)
			})
			Expect(i).To(BeNumerically(">=", 0), "no %s finding %s at step %s in %v", c.want, c.dir, c.step, p.Findings)
			f := p.Findings[i]
			if c.check != nil {
				c.check(f)
			}
			Expect(p.Repro).To(ContainSubstring("--env 'worktree:REMOTETERM_FEATURES=" + c.features + "'"))

			key := strings.Join(args, " ")
			if !cleanPairings[key] {
				code, out, run = skewtest(ctx, args...)
				Expect(code).To(Equal(0), out)
				for _, p := range run.Pairings {
					Expect(p.Findings).To(BeEmpty(), p.Label())
				}
				cleanPairings[key] = true
			}
		},
		Entry("field-mismatch: a client whose Resize sends cols as a string", negativeControl{
			host: "v1.4.190", client: "worktree", kind: "desktop", journey: "terminal", features: `{"resizeColsAsString":true}`,
			want: results.FieldMismatch, step: "resize", dir: "C>H", check: func(f results.Finding) {
				Expect(f.Frame.Name).To(Equal("Resize"))
				Expect(f.Message).To(ContainSubstring(`/cols is the string "100", want a number for host v1.4.190`))
			}}),
		Entry("decoder-refusal: a client that sends Resize with opcode 5, which the host knows only host-to-client", negativeControl{
			host: "v1.4.190", client: "worktree", kind: "desktop", journey: "terminal", features: `{"resizeSentAsResized":true}`,
			want: results.DecoderRefusal, step: "resize", dir: "C>H", check: func(f results.Finding) {
				Expect(f.Frame.Opcode).To(Equal(5))
				Expect(f.Message).To(ContainSubstring("host v1.4.190 silently dropped C>H"))
			}}),
		Entry("unexpected-event: a host whose pause does not pause", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", journey: "terminal", features: `{"pauseIgnored":true}`,
			want: results.UnexpectedEvent, step: "pause-resume", check: func(f results.Finding) {
				Expect(f.Message).To(ContainSubstring("expected no client rendered-output for 500ms, but it arrived"))
			}}),
		Entry("stall on the merged state: a client that keeps only the first roundProgress event", negativeControl{
			host: "v1.4.190", client: "worktree", kind: "session", journey: "session", features: `{"roundProgressKeepsFirst":true}`,
			want: results.Stall, step: "round-progress", check: func(f results.Finding) {
				Expect(f.Message).To(ContainSubstring(`phase="composed"`))
			}}),
		Entry("data-loss: a host whose reveal snapshot ignores the scrollback rows asked for (mobile)", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "mobile", journey: "terminal-mobile", features: `{"scrollbackRowsIgnored":true}`,
			want: results.DataLoss, step: "reveal-snapshot", check: func(f results.Finding) {
				Expect(f.Message).To(HavePrefix("stream snapshot-rows: "))
				Expect(f.Detail).To(ContainSubstring(`want …"5"`))
			}}),
		Entry("data-loss: a host whose reveal snapshot ignores the scrollback rows asked for (desktop)", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", journey: "terminal", features: `{"scrollbackRowsIgnored":true}`,
			want: results.DataLoss, step: "reveal-snapshot", check: func(f results.Finding) {
				Expect(f.Message).To(HavePrefix("stream snapshot-rows: "))
			}}),
		Entry("invariant-violation: an rpcError that answers the wrong requestId", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "session", journey: "session", features: `{"rpcErrorWrongRequestId":true}`,
			want: results.InvariantViolation, step: "unknown-command", dir: "H>C", check: func(f results.Finding) {
				Expect(f.Frame.Name).To(Equal("rpcError"))
				Expect(f.Message).To(ContainSubstring(`answers /requestId "no.such.command", which no earlier request carried`))
			}}),
		Entry("invariant-violation: an rpcError tied to no request (an empty requestId, which the contract reserves)", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "session", journey: "session", features: `{"rpcErrorWithoutRequestId":true}`,
			want: results.InvariantViolation, step: "unknown-command", dir: "C>H", check: func(f results.Finding) {
				Expect(f.Frame.Name).To(Equal("request"))
				Expect(f.Message).To(MatchRegexp(`^C>H request #\d+ was never answered: no reply \(response, rpcError\) carried its /requestId "[^"]+" \(a reply answers the request it names\)$`))
			}}),
		Entry("invariant-violation: a Resized that confirms the wrong geometry", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", journey: "terminal", features: `{"resizedWrongGeometry":true}`,
			want: results.InvariantViolation, step: "resize", dir: "H>C", check: func(f results.Finding) {
				Expect(f.Frame.Name).To(Equal("Resized"))
				Expect(f.Message).To(MatchRegexp(`reports /cols 120, but C>H Resize #\d+ asked for 100`))
			}}),
		Entry("field-mismatch from the product's own report: a host that rejects a Resize for its shape", negativeControl{
			host: "v1.4.190", client: "worktree", kind: "desktop", journey: "terminal", features: `{"resizeZeroRows":true}`,
			want: results.FieldMismatch, step: "resize", dir: "C>H", check: func(f results.Finding) {
				Expect(f.Message).To(Equal("the host rejected C>H Resize: Resize to 100×0: cols and rows must be positive (at /rows)"))
			}}),
		Entry("driver-error: a host whose terminal fails to resize reports an error", negativeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", journey: "terminal", features: `{"resizeFails":true}`,
			want: results.DriverError, step: "resize", check: func(f results.Finding) {
				Expect(f.Message).To(ContainSubstring("host driver reported an error: resize t1 to 100×30"))
			}}),
	)

	It("finds a working tree that refuses the newest releases its support policy keeps (window-violation)", func(ctx SpecContext) {
		// The working tree moves to session protocol 3 and drops 2: the newest stable clients
		// and daemons (protocol 2) are refused, which skewtest.yaml's support policy forbids.
		code, out, run := skewtest(ctx, "run", "--kind", "session",
			"--env", `worktree:REMOTETERM_FEATURES={"sessionProtocol":3,"sessionMinCompatible":3}`)
		Expect(code).To(Equal(1), out)
		var found []string
		for _, p := range run.Pairings {
			if p.Host == p.Client {
				Expect(p.Status).To(Equal(results.StatusPass), p.Label())
				continue
			}
			f, ok := findingAt(p, results.WindowViolation, "hello")
			Expect(ok).To(BeTrue(), p.Label())
			Expect(f.Message).To(ContainSubstring("but the support policy says it must still be served"))
			found = append(found, f.Message)
		}
		Expect(found).To(ConsistOf(
			ContainSubstring("the working tree and client v1.4.190 refused each other"),
			ContainSubstring("the working tree and host v1.4.190 refused each other")))
	})

	It("keeps the refusals of releases the support policy cuts expected (no window-violation)", func(ctx SpecContext) {
		code, out, run := skewtest(ctx, "run", "--kind", "session", "--pins", "v1.4.180")
		Expect(code).To(Equal(0), out)
		refused := 0
		for _, p := range run.Pairings {
			if p.Host != p.Client {
				Expect(p.Status).To(Equal(results.StatusExpectedRefusal), p.Label())
				refused++
			}
		}
		Expect(refused).To(Equal(2))
	})

	// Compatible changes: each switch on in the working tree as the history writes it (code
	// and contract, history.yaml's worktree set), and the default plan (the working tree ×
	// the newest release, both ways, every journey, plus the references) passes with no
	// finding at all.
	DescribeTable("compatible changes pass",
		func(ctx SpecContext, feature string, exercised func(dir string, run *results.Run)) {
			variant := variantRepo(feature)
			code, out, run, dir := skewtestOn(ctx, variant, "run")
			Expect(code).To(Equal(0), out)
			Expect(run.Pairings).To(HaveLen(12))
			for _, p := range run.Pairings {
				Expect(p.Status).To(Equal(results.StatusPass), p.Label())
				Expect(p.Findings).To(BeEmpty(), p.Label())
			}
			exercised(dir, run)
		},
		Entry("a new optional field (SnapshotStart.cursor)", "snapshotCursor", func(dir string, run *results.Run) {
			Expect(framesCarrying(dir, run, "worktree", "v1.4.190", "desktop", "H>C", `"cursor":`)).NotTo(BeEmpty())
		}),
		Entry("a new gated frame (Title, 18, on capability title)", "titleFrame", func(dir string, run *results.Run) {
			Expect(timelineNames(run, "worktree", "worktree", "desktop")).To(ContainElement("H>C Title@subscribe"))
			Expect(timelineNames(run, "worktree", "v1.4.190", "desktop")).NotTo(ContainElement(HavePrefix("H>C Title")))
		}),
		Entry("a new command (review.comment)", "reviewComment", func(dir string, run *results.Run) {
			Expect(framesCarrying(dir, run, "worktree", "v1.4.190", "session", "H>C", `"review.comment":[1]`)).NotTo(BeEmpty())
		}),
		Entry("a new feature (reviewLabels)", "reviewLabels", func(dir string, run *results.Run) {
			Expect(framesCarrying(dir, run, "worktree", "v1.4.190", "session", "H>C", `"reviewLabels":true`)).NotTo(BeEmpty())
		}),
		Entry("a new ungated frame every release decodes, at a new moment (Metadata on resize)", "metadataOnResize", func(dir string, run *results.Run) {
			for _, kind := range []string{"desktop", "mobile"} {
				Expect(timelineNames(run, "worktree", "v1.4.190", kind)).To(ContainElement("H>C Metadata@resize"), kind)
			}
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
		// The cache is shared with specs running at the same time: this run's drivers are
		// those with its marker in their environment.
		marker := proctest.Marker()
		cmd.Env = append(os.Environ(), marker)
		stderr, err := cmd.StderrPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd.Start()).To(Succeed())
		// The plan is both builds' references and the skewed pairing: once two pairings
		// are done (the references; the skewed one stalls for a minute), wait until the
		// skewed pairing's drivers run, then interrupt.
		lines := bufio.NewScanner(stderr)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "[2/3]") {
		}
		Eventually(func() []int { return drivers(marker, cache) }).ShouldNot(BeEmpty())
		Expect(cmd.Process.Signal(os.Interrupt)).To(Succeed())
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		err = cmd.Wait()
		Expect(err).To(HaveOccurred(), "an interrupted run does not pass")
		Expect(drivers(marker, cache)).To(BeEmpty(), "no driver outlives an interrupted run")
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
	s, err := openSubject(repo).Source(ctx, ref)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func env(kv string) []string {
	if kv == "" {
		return nil
	}
	return []string{kv}
}

// drivers lists the pids of the processes with marker in their environment that run a binary
// from the build cache (drivers).
func drivers(marker, cache string) []int {
	var out []int
	for _, p := range proctest.Find(marker) {
		if strings.Contains(p.Cmdline, cache) {
			out = append(out, p.PID)
		}
	}
	return out
}

// negativeControl is one entry of the one-per-class negative controls: a pairing, the
// working tree's switch, and the finding it must produce.
type negativeControl struct {
	host, client, kind, journey string
	features                    string // REMOTETERM_FEATURES for the working tree
	want                        results.Kind
	step, dir                   string
	check                       func(f results.Finding)
}

// findingAt returns p's first finding of kind k at step.
func findingAt(p *results.Pairing, k results.Kind, step string) (results.Finding, bool) {
	for _, f := range p.Findings {
		if f.Kind == k && f.Step == step {
			return f, true
		}
	}
	return results.Finding{}, false
}

// variantRepo writes the reference subject's history with one more switch on in its working
// tree (history.yaml's worktree set): code and contract together, as a change would ship.
// The tags are the same commits as the subject's own, so their builds are cached.
func variantRepo(feature string) string {
	GinkgoHelper()
	src, err := example.FindSource("")
	Expect(err).NotTo(HaveOccurred())
	dir := filepath.Join(GinkgoT().TempDir(), "source")
	Expect(os.CopyFS(dir, os.DirFS(src.From))).To(Succeed())
	history := filepath.Join(dir, "history.yaml")
	data, err := os.ReadFile(history)
	Expect(err).NotTo(HaveOccurred())
	text := string(data)
	at := strings.LastIndex(text, "\nworktree:")
	Expect(at).To(BeNumerically(">=", 0))
	set := strings.Index(text[at:], "set: {")
	Expect(set).To(BeNumerically(">=", 0), "history.yaml's worktree set is a flow map")
	cut := at + set + len("set: {")
	Expect(os.WriteFile(history, []byte(text[:cut]+feature+": true, "+text[cut:]), 0o644)).To(Succeed())
	variant, err := example.SourceDir(dir)
	Expect(err).NotTo(HaveOccurred())
	repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
	_, err = example.Write(variant, repo)
	Expect(err).NotTo(HaveOccurred())
	return repo
}

// timelineNames lists a pairing's frames as "DIR Name@step".
func timelineNames(run *results.Run, host, client, kind string) []string {
	GinkgoHelper()
	var out []string
	for _, p := range run.Pairings {
		if p.Host == host && p.Client == client && p.ClientKind == kind {
			for _, f := range p.Timeline {
				out = append(out, f.Dir+" "+f.Name+"@"+f.Step)
			}
			return out
		}
	}
	Fail("no pairing " + host + " × " + kind + " " + client)
	return nil
}

// framesCarrying returns the payloads of a pairing's frames in direction dir that contain
// text, from its transcript.
func framesCarrying(dir string, run *results.Run, host, client, kind, fdir, text string) []string {
	GinkgoHelper()
	for _, p := range run.Pairings {
		if p.Host != host || p.Client != client || p.ClientKind != kind {
			continue
		}
		f, err := os.Open(filepath.Join(dir, p.Transcript))
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		zr, err := gzip.NewReader(f)
		Expect(err).NotTo(HaveOccurred())
		var t transcript.Transcript
		Expect(json.NewDecoder(zr).Decode(&t)).To(Succeed())
		var out []string
		for _, fr := range t.Frames {
			if fr.Dir == fdir && bytes.Contains(fr.Data, []byte(text)) {
				out = append(out, string(fr.Data))
			}
		}
		return out
	}
	Fail("no pairing " + host + " × " + kind + " " + client)
	return nil
}
