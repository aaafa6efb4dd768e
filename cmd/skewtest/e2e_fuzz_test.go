package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Fuzz campaigns on the reference subject's history: real builds, real driver processes,
// cases drawn from examples/remoteterm/fuzz, failing cases shrunk into the corpus.
// Its specs are independent, so parallel processes (ginkgo --procs) share them out: each
// reads its process's copy of the history and the suite's build cache.
var _ = Describe("skewtest fuzz on the reference subject", Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string

	BeforeEach(func() {
		repo = sharedHistory()
		cache = sharedCache
	})

	// fuzzIn runs skewtest fuzz on the subject in dir and returns its exit code, output and
	// results.json; fuzzOn runs it on the reference history.
	fuzzIn := func(ctx SpecContext, subject string, args ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		args = append([]string{"fuzz", "--repo", subject, "--cache-dir", cache, "--report-dir", dir}, args...)
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
	fuzzOn := func(ctx SpecContext, args ...string) (int, string, *results.Run) { return fuzzIn(ctx, repo, args...) }

	// unique returns the campaign's unique finding of kind on host × kind client.
	unique := func(run *results.Run, kind results.Kind, host, client, clientKind string) *results.CampaignFinding {
		for i, f := range run.Campaign.Findings {
			if f.Kind == kind && f.Host == host && f.Client == client && f.ClientKind == clientKind {
				return &run.Campaign.Findings[i]
			}
		}
		return nil
	}

	It("finds v1.4.190's OutputSpan refusal by a v1.4.120 desktop client, and shrinks it to a one-run case", func(ctx SpecContext) {
		code, out, run := fuzzOn(ctx, "--host", "v1.4.190", "--client", "v1.4.120", "--kind", "desktop", "--cases", "6", "--seed", "3")
		Expect(code).To(Equal(1), out)
		f := unique(run, results.DecoderRefusal, "v1.4.190", "v1.4.120", "desktop")
		Expect(f).NotTo(BeNil(), out)
		Expect(f.Message).To(ContainSubstring("OutputSpan"))
		Expect(f.ShrunkEvents).To(HaveLen(1), "one event")
		Expect(f.ShrunkEvents[0]).To(BeElementOf("transformed", "transformed-equal", "cap-transformed", "burst"))
		Expect(f.Shrunk).To(BeAnExistingFile())
		Expect(f.Repro).To(ContainSubstring("--journey " + f.Shrunk))
		// The shrunk case is a journey file that run replays with the same finding.
		j, err := journeys.Load(f.Shrunk)
		Expect(err).NotTo(HaveOccurred())
		Expect(j.StepNames()).To(HaveLen(3))
	})

	DescribeTable("gives the same case list and the same verdicts for the same seed",
		func(ctx SpecContext, cases int) {
			args := []string{"--host", "worktree", "--client", "v1.4.190", "--kind", "desktop", "--cases", strconv.Itoa(cases), "--seed", "77", "--exclude", "long-stream"}
			_, out1, run1 := fuzzOn(ctx, args...)
			_, out2, run2 := fuzzOn(ctx, args...)
			Expect(run1).NotTo(BeNil(), out1)
			Expect(run2).NotTo(BeNil(), out2)
			Expect(run1.Campaign.CaseList).To(HaveLen(cases))
			Expect(run2.Campaign.CaseList).To(Equal(run1.Campaign.CaseList))
			Expect(run2.Campaign.Events).To(Equal(run1.Campaign.Events))
		},
		Entry("four cases", 4),
		Entry("five hundred cases (make soak)", Label(testlabels.Soak), 500),
	)

	It("finds v1.4.180's detach of a transformed run over 48 KiB (zero-byte runs excluded), shrunk to one run just over the cap that run replays", func(ctx SpecContext) {
		code, out, run := fuzzOn(ctx, "--host", "v1.4.180", "--client", "v1.4.173", "--kind", "desktop", "--cases", "4", "--seed", "5",
			"--exclude", "zero-run,long-stream")
		Expect(code).To(Equal(1), out)
		// Any transformed run drifts here (this client resyncs on each); only one over the
		// cap detaches the stream and loses what follows.
		Expect(unique(run, results.SequenceDrift, "v1.4.180", "v1.4.173", "desktop")).NotTo(BeNil(), out)
		over := unique(run, results.DataLoss, "v1.4.180", "v1.4.173", "desktop")
		Expect(over).NotTo(BeNil(), out)
		Expect(over.ShrunkEvents).To(Equal([]string{"cap-transformed"}))
		j, err := journeys.Load(over.Shrunk)
		Expect(err).NotTo(HaveOccurred())
		text, _ := j.Steps[1].Commands[0].Get("text")
		Expect(len(text)).To(BeNumerically(">", 49152))
		Expect(len(text)).To(BeNumerically("<=", 49152+4))
		// The repro replays the shrunk file with the same finding.
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		args := []string{"run", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--host", "v1.4.180", "--client", "v1.4.173",
			"--kind", "desktop", "--journey", over.Shrunk, "--seed", "5"}
		rcode := exitCode(cmdRepro(ctx, args[1:], &stdout, &stderr), &stderr)
		Expect(rcode).To(Equal(1), stdout.String()+stderr.String())
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		var replay results.Run
		Expect(json.Unmarshal(data, &replay)).To(Succeed())
		var kinds []results.Kind
		for _, p := range replay.Pairings {
			if p.Host == "v1.4.180" && p.Client == "v1.4.173" {
				for _, f := range p.Findings {
					kinds = append(kinds, f.Kind)
				}
			}
		}
		Expect(kinds).To(ContainElement(over.Kind))
	})

	It("finds v1.4.147's OutputSpan silently dropped by a v1.4.146 mobile client as data loss", func(ctx SpecContext) {
		code, out, run := fuzzOn(ctx, "--host", "v1.4.147", "--client", "v1.4.146", "--kind", "mobile", "--cases", "4", "--seed", "3",
			"--exclude", "long-stream", "--shrink-tries", "20")
		Expect(code).To(Equal(1), out)
		Expect(unique(run, results.DataLoss, "v1.4.147", "v1.4.146", "mobile")).NotTo(BeNil(), out)
	})

	DescribeTable("finds nothing where the builds are compatible",
		func(ctx SpecContext, host, client string) {
			code, out, run := fuzzOn(ctx, "--host", host, "--client", client, "--cases", "8", "--seed", "11", "--exclude", "long-stream")
			Expect(code).To(Equal(0), out)
			Expect(run.Campaign.Findings).To(BeEmpty())
			Expect(run.Campaign.Cases).To(Equal(8))
			for _, c := range run.Campaign.CaseList {
				Expect(c.Status).To(Equal(results.StatusPass), c.Name)
			}
		},
		Entry("the working tree with v1.4.190, both ways", "worktree", "v1.4.190"),
		Entry("v1.4.190 host with v1.4.173 clients, both ways", "v1.4.190", "v1.4.173"),
	)

	// The edge-input switches (examples/remoteterm/README.md, e2e_edge_test.go: every journey
	// misses each) are found by the fuzzer, one per generator family. --exclude narrows each
	// campaign to its family's events so the spec stays short; a full campaign draws them too.
	allTerminalEvents := []string{"plain", "utf8", "transformed", "transformed-equal", "zero-run", "cap-output", "cap-transformed",
		"burst", "long-stream", "pause", "reveal", "resize", "drop"}
	except := func(keep ...string) string {
		var out []string
		for _, e := range allTerminalEvents {
			if !slices.Contains(keep, e) {
				out = append(out, e)
			}
		}
		return strings.Join(out, ",")
	}
	DescribeTable("finds an edge-input bug no journey reaches, one per generator family",
		func(ctx SpecContext, host, client, kind, features, generator, exclude string, want ...results.Kind) {
			args := []string{"--host", host, "--client", client, "--kind", kind, "--generator", generator, "--cases", "4", "--seed", "2",
				"--shrink-tries", "12", "--env", "worktree:REMOTETERM_FEATURES=" + features}
			if exclude != "" {
				args = append(args, "--exclude", exclude)
			}
			code, out, run := fuzzOn(ctx, args...)
			Expect(code).To(Equal(1), out)
			var found []results.Kind
			for _, k := range want {
				if unique(run, k, host, client, kind) != nil {
					found = append(found, k)
				}
			}
			Expect(found).NotTo(BeEmpty(), out)
		},
		Entry("code points across the chunk cap (chunkCutsCodePoints)", "worktree", "v1.4.190", "mobile",
			`{"chunkCutsCodePoints":true}`, "terminal", except("cap-output", "cap-transformed"), results.DataLoss),
		Entry("long streams (ackLedgerWraps)", "worktree", "v1.4.190", "desktop",
			// The parked stream stalls the next barrier, or the host reports the client's acks
			// past its wrapped position as excessive first (a driver error): timing decides.
			`{"ackLedgerWraps":true}`, "terminal", except("long-stream"), results.Stall, results.DriverError),
		Entry("snapshot sizes (snapshotRowsCapped)", "worktree", "v1.4.190", "desktop",
			`{"snapshotRowsCapped":true}`, "terminal", except("reveal"), results.DataLoss),
		Entry("session event order (roundProgressArrivalOrder)", "v1.4.190", "worktree", "session",
			`{"roundProgressArrivalOrder":true}`, "session-order", "", results.Stall),
	)

	// Two cases of 700,000 bytes each pass alone on a host whose ack ledger wraps after 1 MiB
	// (ackLedgerWraps), and fail packed on one stream: the pack is the failing case.
	It("finds what only cases packed one after another show, and keeps the pack as the case", func(ctx SpecContext) {
		subject := referenceHistory()
		Expect(os.WriteFile(filepath.Join(subject, "fuzz", "ledger.txtar"), []byte(ledgerGenerator), 0o644)).To(Succeed())
		code, out, run := fuzzIn(ctx, subject, "--host", "worktree", "--client", "v1.4.190", "--kind", "desktop", "--generator", "ledger",
			"--cases", "2", "--shrink-tries", "4", "--env", `worktree:REMOTETERM_FEATURES={"ackLedgerWraps":true}`)
		Expect(code).To(Equal(1), out)
		Expect(run.Campaign.CaseList).To(HaveLen(2))
		for _, c := range run.Campaign.CaseList {
			Expect(c.Status).To(Equal(results.StatusPass), "each case passes alone: %s", c.Name)
		}
		var packed []results.CampaignFinding
		for _, f := range run.Campaign.Findings {
			if f.Host == "worktree" && f.Client == "v1.4.190" && strings.HasSuffix(f.First, "-pack2") {
				packed = append(packed, f)
			}
		}
		Expect(packed).NotTo(BeEmpty(), out)
		for _, f := range packed {
			// The parked stream loses the rest of the output, stalls the next barrier, and the
			// host may report the client's acks past its wrapped position first; the working
			// tree's reference stalls the same way, so the steps after it are not compared.
			Expect(f.Kind).To(BeElementOf(results.DataLoss, results.Stall, results.DriverError, results.IncompleteJourney, results.IncompleteReference), out)
			Expect(f.Shrunk).To(BeAnExistingFile(), "the repro line names a file that exists")
			Expect(f.Repro).To(ContainSubstring("--journey " + f.Shrunk))
			if !f.Flaky {
				Expect(f.ShrunkEvents).To(HaveLen(2), "neither case fails alone: the smallest failing case is both")
			}
		}
	}, SpecTimeout(10*time.Minute))

	It("says a failure that the confirming run does not show is flaky, keeps the case as it is and names it, and does not shrink it", func(ctx SpecContext) {
		// The first Output frame any worktree desktop client receives is lost, and never
		// again: the first pairing with one (the worktree reference, which runs first) fails
		// once, and its confirming run passes.
		lost := filepath.Join(GinkgoT().TempDir(), "lost")
		code, out, run := fuzzOn(ctx, "--host", "worktree", "--client", "v1.4.190", "--kind", "desktop", "--cases", "1", "--seed", "5",
			"--env", `worktree:REMOTETERM_FEATURES={"loseOutputOnce":"`+lost+`"}`)
		Expect(code).To(Equal(1), "a flaky finding is a finding: %s", out)
		Expect(run).NotTo(BeNil(), out)
		Expect(lost).To(BeAnExistingFile(), "a client lost output once")
		Expect(out).To(ContainSubstring("did not reproduce: flaky; kept as "))
		Expect(run.Campaign.Findings).NotTo(BeEmpty(), out)
		kinds := map[results.Kind]bool{}
		for _, f := range run.Campaign.Findings {
			kinds[f.Kind] = true
			Expect([]string{f.Host, f.Client}).To(Equal([]string{"worktree", "worktree"}), "only the pairing that lost output: %s", out)
			// Its consequences (the barrier's stall, the incomplete journey) go with it.
			Expect(f.Flaky).To(BeTrue(), "%s: %s", f.Kind, out)
			Expect(f.Shrunk).To(And(BeAnExistingFile(), HaveSuffix("-flaky.txtar")), "%s: the case as it ran", f.Kind)
			Expect(f.ShrunkEvents).To(BeEmpty(), "not shrunk")
			Expect(f.ShrinkRuns).To(BeZero(), "not shrunk")
			Expect(f.Repro).To(ContainSubstring("--journey "+f.Shrunk), "the repro line names the file it keeps")
		}
		Expect(kinds).To(HaveKey(results.DataLoss), out)
	})

	// The session generator's explicit command versions and progress events with added
	// fields reach a bug no journey does: each switch below passes every journey of the
	// subject, is found by a campaign narrowed to the one event that reaches it (shrunk to
	// that event), and the same campaign without the switch finds nothing.
	allSessionEvents := []string{"ping", "probe", "review", "review-version", "server-request", "presence",
		"progress", "progress-duplicated", "progress-added-field"}
	DescribeTable("finds a session bug that only the session generator's edge events reach, and every journey misses",
		func(ctx SpecContext, host, client, features, event string, want results.Kind) {
			var exclude []string
			for _, e := range allSessionEvents {
				if e != event {
					exclude = append(exclude, e)
				}
			}
			withSwitch := "worktree:REMOTETERM_FEATURES=" + features

			By("every journey of the subject passes with the switch on")
			dir := GinkgoT().TempDir()
			var stdout, stderr bytes.Buffer
			args := []string{"repro", "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--host", host, "--client", client,
				"--seed", "42", "--env", withSwitch}
			code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
			Expect(code).To(Equal(0), stdout.String()+stderr.String())
			data, err := os.ReadFile(filepath.Join(dir, "results.json"))
			Expect(err).NotTo(HaveOccurred())
			var journeyRun results.Run
			Expect(json.Unmarshal(data, &journeyRun)).To(Succeed())
			ran := map[string]bool{}
			for _, p := range journeyRun.Pairings {
				Expect(p.Status).To(Equal(results.StatusPass), p.Label())
				ran[p.Journey] = true
			}
			Expect(ran).To(HaveLen(3), "terminal, terminal-mobile and session")

			campaign := []string{"--host", host, "--client", client, "--kind", "session", "--generator", "session", "--cases", "4",
				"--seed", "2", "--shrink-tries", "12", "--exclude", strings.Join(exclude, ",")}

			By("the fuzzer finds it, shrunk to the one event")
			code, out, run := fuzzOn(ctx, append(append([]string{}, campaign...), "--env", withSwitch)...)
			Expect(code).To(Equal(1), out)
			f := unique(run, want, host, client, "session")
			Expect(f).NotTo(BeNil(), out)
			Expect(f.ShrunkEvents).To(Equal([]string{event}))

			By("the same campaign without the switch finds nothing")
			code, out, run = fuzzOn(ctx, campaign...)
			Expect(code).To(Equal(0), out)
			Expect(run.Campaign.Findings).To(BeEmpty())
			Expect(run.Campaign.Events).To(HaveKeyWithValue("session/"+event, BeNumerically(">", 0)))
		},
		Entry("an explicit older command version (olderCommandVersionRefused: the daemon answers review.start v1 unsupported_version)",
			"worktree", "v1.4.190", `{"olderCommandVersionRefused":true}`, "review-version", results.Stall),
		Entry("a progress event with an added field (progressUnknownFieldDropped: the session client drops it from the merge)",
			"v1.4.190", "worktree", `{"progressUnknownFieldDropped":true}`, "progress-added-field", results.Stall),
	)
})

// ledgerGenerator draws cases of one long stream each, 700,000 bytes: one case stays under
// the 1 MiB an ackLedgerWraps host's ledger holds, two packed on one stream pass it.
const ledgerGenerator = `# ledger: one long stream per case, two cases to a journey
kind desktop
timeout 30s
events 1..1
pack 2

-- setup --
client subscribe path=/terminal.multiplex terminal=t1 cols=120 rows=40
await client rendered-snapshot

-- event long --
host emit-output terminal=t1 text={ascii 700000..700000}
host emit-output terminal=t1 text="\r\n"+{fresh long- as=mk}+"\r\n"
await client screen text={tail mk 64}

-- finish --
client input terminal=t1 text="echo done\r"
await host input text="echo done\r"

-- frames --
ignore C>H Ack
`
