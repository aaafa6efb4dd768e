package harness_test

import (
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// laneBuild is a fake build whose drivers serve lanes (FAKE_LANES).
func laneBuild(label, mode string) *harness.Build {
	b := build(label, mode, false)
	b.Env = []string{"FAKE_LANES=1"}
	return b
}

var _ = Describe("Pool", func() {
	var j *journeys.Journey
	var pids string
	BeforeEach(func() {
		var err error
		j, err = journeys.Parse("fake.txtar", []byte(fakeJourney))
		Expect(err).NotTo(HaveOccurred())
		pids = pidDir()
	})
	AfterEach(func() {
		Eventually(func() []int { return alive(pids) }).WithTimeout(3*time.Second).Should(BeEmpty(), "no process may outlive the pool")
	})

	// execute runs plan with a pool, closes it and returns the run and how many processes
	// the pool started.
	execute := func(ctx SpecContext, plan []harness.Pairing, parallel int) (*results.Run, int, string) {
		dir := GinkgoT().TempDir()
		pool := harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(dir, "drivers")})
		run := &results.Run{}
		harness.Execute(ctx, harness.Number(harness.WithReferences(plan)), run,
			harness.ExecuteOptions{ReportDir: dir, Parallel: parallel, Pairing: harness.Options{Pool: pool}})
		pool.Close(ctx)
		return run, pool.Processes(), dir
	}
	pairings := func(n int, host, client *harness.Build) []harness.Pairing {
		var out []harness.Pairing
		for range n {
			out = append(out, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: j})
		}
		return out
	}

	It("runs many pairings at once in lanes of one process per build and role", func(ctx SpecContext) {
		a, b := laneBuild("a", "ok"), laneBuild("b", "ok")
		plan := append(pairings(4, a, b), pairings(4, b, a)...)
		run, procs, dir := execute(ctx, plan, 8)
		Expect(run.Pairings).To(HaveLen(10), "eight skew pairings and two references")
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), "%s: %v %s", p.Host+"×"+p.Client, p.Findings, p.Error)
			Expect(p.CompletedSteps).To(HaveLen(4))
			Expect(p.Frames).To(ContainElements("H>C ready", "C>H Subscribe", "H>C subscribed", "H>C SnapshotStart", "H>C SnapshotChunk",
				"H>C SnapshotEnd", "C>H Input", "H>C Output", "C>H Unsubscribe"), "a lane's pairing is tapped like any other")
			Expect(p.Logs).To(HaveLen(2))
			for _, l := range p.Logs {
				Expect(l).To(HavePrefix("drivers/"), "a lane's logs are its shared processes'")
				Expect(filepath.Join(dir, l)).To(BeAnExistingFile())
			}
		}
		Expect(procs).To(Equal(4), "a host and a client process for each build")
	}, NodeTimeout(90*time.Second))

	It("does not start a shared driver that did not get ready again for as long as the pool lives (a campaign of many plans)", func(ctx SpecContext) {
		starts := GinkgoT().TempDir()
		GinkgoT().Setenv("FAKE_PIDDIR", starts)
		silent, ok := laneBuild("a", "no-ready"), laneBuild("b", "ok")
		dir := GinkgoT().TempDir()
		pool := harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(dir, "drivers"), ReadyTimeout: time.Second})
		defer pool.Close(ctx)
		opts := harness.ExecuteOptions{ReportDir: dir, Parallel: 1, Pairing: harness.Options{Pool: pool, ReadyTimeout: time.Second}}
		run := &results.Run{}
		harness.Execute(ctx, harness.Number(harness.WithReferences(pairings(2, silent, ok))), run, opts)
		Expect(run.Pairings).To(HaveLen(4), "two references and two skew pairings")
		var withA []*results.Pairing // in plan order: a's reference first
		for _, p := range run.Pairings {
			if p.Host == "a" {
				withA = append(withA, p)
			} else {
				Expect(p.Status).To(Equal(results.StatusPass), "control: %s", p.Label())
			}
		}
		Expect(withA).To(HaveLen(3))
		Expect(withA[0].Error).To(ContainSubstring("host a driver never got ready"))
		for _, p := range withA[1:] {
			Expect(p.Status).To(Equal(results.StatusError), p.Label())
			Expect(p.Error).To(ContainSubstring("host a driver not started again"), p.Label())
		}
		Expect(started(starts)).To(HaveLen(3), "a's host once, b's host and client (shared, for b's reference)")

		// The campaign's next plan, on the same pool.
		again := &results.Run{}
		harness.Execute(ctx, harness.Number(pairings(1, silent, ok)), again, opts)
		Expect(again.Pairings).To(HaveLen(1))
		Expect(again.Pairings[0].Error).To(ContainSubstring("host a driver not started again"))
		Expect(started(starts)).To(HaveLen(3), "no new process")
	}, NodeTimeout(60*time.Second))

	It("finds in a lane what it finds with processes of the pairing's own", func(ctx SpecContext) {
		j.Steps[2].Commands = j.Steps[2].Commands[:1] // the barrier would stall: keep only the action
		a, lossy := laneBuild("a", "ok"), laneBuild("b", "lose-output")
		run, _, _ := execute(ctx, pairings(3, a, lossy), 4)
		var skew []*results.Pairing
		for _, p := range run.Pairings {
			if p.Host != p.Client {
				skew = append(skew, p)
			}
		}
		Expect(skew).To(HaveLen(3))
		for _, p := range skew {
			Expect(p.Status).To(Equal(results.StatusFail))
			Expect(kinds(p)).To(ContainElement(results.DataLoss))
		}
	}, NodeTimeout(90*time.Second))

	It("gives a driver that does not serve lanes processes of each pairing's own", func(ctx SpecContext) {
		a, b := build("a", "ok", false), build("b", "ok", false)
		run, _, dir := execute(ctx, pairings(2, a, b), 4)
		Expect(run.Pairings).To(HaveLen(4))
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), "%v %s", p.Findings, p.Error)
			Expect(p.Logs).To(ConsistOf(HaveSuffix("/host.log"), HaveSuffix("/client-desktop.log")))
		}
		logs, _ := filepath.Glob(filepath.Join(dir, "drivers", "*.log"))
		Expect(logs).To(BeEmpty(), "a probe that found no lanes leaves no log")
	}, NodeTimeout(90*time.Second))

	It("runs the pairings of a shared process that exited again with processes of their own, so the crash is the crashing pairing's", func(ctx SpecContext) {
		crashing, err := journeys.Parse("crash.txtar", []byte(strings.Replace(fakeJourney, `client input text="hi\r"`, `client input text="crash\r"`, 1)))
		Expect(err).NotTo(HaveOccurred())
		a, b := laneBuild("a", "ok"), laneBuild("b", "ok")
		plan := pairings(3, a, b)
		plan = append(plan, harness.Pairing{Host: a, Client: b, Kind: "desktop", Journey: crashing})
		plan = append(plan, pairings(3, a, b)...)
		run, procs, _ := execute(ctx, plan, 8)
		var failed, passed int
		for _, p := range run.Pairings {
			switch {
			case p.Journey == "crash":
				failed++
				Expect(p.Status).To(Equal(results.StatusFail))
				Expect(kinds(p)).To(ContainElement(results.DriverError))
				Expect(p.Logs).To(ContainElement(HaveSuffix("/client-desktop.log")), "the rerun's own log")
			default:
				passed++
				Expect(p.Status).To(Equal(results.StatusPass), "%s %v %s", p.Journey, p.Findings, p.Error)
			}
		}
		Expect(failed).To(Equal(3), "the crashing journey's pairing and its two references")
		Expect(passed).To(Equal(8), "six pairings and two references of the others")
		Expect(procs).To(BeNumerically(">", 4), "the crashed client process was replaced")
	}, NodeTimeout(120*time.Second))

	It("hands an observation without a lane to every lane open in the process", func(ctx SpecContext) {
		a, b := laneBuild("a", "ok"), laneBuild("b", "ok")
		// b's client process holds its second lane (the first is the reference's) until a third is
		// open: two lanes surely overlap, whatever the machine's speed.
		a.Env, b.Env = []string{"FAKE_LANES=untagged"}, []string{"FAKE_LANES=untagged", "FAKE_GATE=client"}
		run, _, _ := execute(ctx, pairings(4, a, b), 8)
		failing := 0
		for _, p := range run.Pairings {
			if p.Host == p.Client {
				Expect(p.Status).To(Equal(results.StatusPass), "a reference runs alone in its processes: %v %s", p.Findings, p.Error)
			} else if p.Status == results.StatusFail {
				failing++
				Expect(kinds(p)).NotTo(ContainElement(results.Stall), "the held lane goes on once a third is open: %v", p.Findings)
			}
		}
		Expect(failing).To(BeNumerically(">", 0), "other lanes' observations are not silently dropped")
	}, NodeTimeout(90*time.Second))

	It("stops its processes on Close", func(ctx SpecContext) {
		a := laneBuild("a", "ok")
		_, procs, _ := execute(ctx, pairings(1, a, a), 2)
		Expect(procs).To(Equal(2)) // and AfterEach finds none of them left
	}, NodeTimeout(60*time.Second))
})
