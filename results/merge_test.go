package results_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/resultstest"
	"github.com/skewtest/skewtest/results"
)

// timingsAside is r with its start and finish cleared: what a merge keeps equal.
func timingsAside(r *results.Run) *results.Run {
	c := *r
	c.Started, c.Finished = time.Time{}, time.Time{}
	return &c
}

var _ = Describe("Merge", func() {
	var whole *results.Run
	BeforeEach(func() {
		whole = resultstest.Run(resultstest.Options{Builds: 4, Seed: 11})
	})

	It("joins the shards of a plan into the run one machine makes, timings aside", func() {
		shards := resultstest.Split(whole, 3)
		// The order shards are given in does not matter.
		merged, err := results.Merge(shards[2], shards[0], shards[1])
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Shard).To(BeEmpty())
		Expect(timingsAside(merged)).To(Equal(timingsAside(whole)))
		Expect(merged.Started).To(Equal(shards[0].Started), "the earliest start")
		Expect(merged.Finished).To(Equal(shards[2].Finished), "the latest finish")
		Expect(merged.ExitCode()).To(Equal(whole.ExitCode()))
	})

	It("merges builds by label, keeping the order each shard lists them in", func() {
		b := func(labels ...string) []results.Build {
			var out []results.Build
			for _, l := range labels {
				out = append(out, results.Build{Label: l, Revision: "rev-" + l, Status: "cached"})
			}
			return out
		}
		one := &results.Run{Shard: "1/2", Builds: b("worktree", "v3"), Pairings: []*results.Pairing{{Index: 2}}}
		two := &results.Run{Shard: "2/2", Builds: b("worktree", "v1", "v2", "v3"), Pairings: []*results.Pairing{{Index: 1}}}
		merged, err := results.Merge(one, two)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Builds).To(Equal(b("worktree", "v1", "v2", "v3")))
		Expect(merged.Pairings).To(Equal([]*results.Pairing{{Index: 1}, {Index: 2}}))
	})

	It("lists a skipped pairing once, however many shards list it", func() {
		whole.Skipped = []results.Skip{{Host: "v1.4.100", Client: "v1.4.101", ClientKind: "mobile", Journey: "terminal-mobile", Reason: "no driver"}}
		merged, err := results.Merge(resultstest.Split(whole, 3)...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Skipped).To(Equal(whole.Skipped))
	})

	It("keeps the worst status a build had in any shard", func() {
		shards := resultstest.Split(whole, 2)
		shards[1].Builds[0].Status = "error"
		shards[1].Builds[0].Error = "exit status 1"
		merged, err := results.Merge(shards...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Builds[0].Status).To(Equal("error"))
		Expect(merged.Builds[0].Error).To(Equal("exit status 1"))
	})

	It("carries an interrupted shard into the merged run, which then exits 3", func() {
		shards := resultstest.Split(whole, 2)
		shards[0].Interrupted, shards[0].NotRun = true, 4
		merged, err := results.Merge(shards...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Interrupted).To(BeTrue())
		Expect(merged.NotRun).To(Equal(4))
		Expect(merged.ExitCode()).To(Equal(3))
	})

	type refusal struct {
		spoil func(shards []*results.Run) []*results.Run
		err   error
		msg   string
	}
	DescribeTable("refuses shards that do not make up one plan",
		func(r refusal) {
			shards := resultstest.Split(resultstest.Run(resultstest.Options{Builds: 3, Seed: 5}), 3)
			_, err := results.Merge(r.spoil(shards)...)
			Expect(err).To(MatchError(r.err))
			Expect(err).To(MatchError(ContainSubstring(r.msg)))
		},
		Entry("seeds differ", refusal{func(s []*results.Run) []*results.Run { s[1].Seed = 6; return s },
			results.ErrSeedConflict, "shard 2/3 has 6"}),
		Entry("a build label with two revisions", refusal{func(s []*results.Run) []*results.Run {
			s[2].Builds[1].Revision = "0123"
			return s
		}, results.ErrBuildConflict, "build v1.4.100 is"}),
		Entry("a shard missing", refusal{func(s []*results.Run) []*results.Run { return s[:2] },
			results.ErrShardConflict, "shard 3/3 missing"}),
		Entry("a shard given twice", refusal{func(s []*results.Run) []*results.Run { return append(s, s[0]) },
			results.ErrShardConflict, "shard 1/3 given twice"}),
		Entry("shards of different splits", refusal{func(s []*results.Run) []*results.Run { s[2].Shard = "3/4"; return s },
			results.ErrShardConflict, "split in 4"}),
		Entry("overlapping pairings", refusal{func(s []*results.Run) []*results.Run {
			s[1].Pairings = append(s[1].Pairings, s[0].Pairings[0])
			return s
		}, results.ErrShardConflict, "pairing 1 (host worktree × desktop client worktree · feed) is in 1/3 and in 2/3"}),
		Entry("a pairing without its plan index", refusal{func(s []*results.Run) []*results.Run {
			s[0].Pairings[0].Index = 0
			return s
		}, results.ErrNoIndex, "written before"}),
		Entry("a malformed shard", refusal{func(s []*results.Run) []*results.Run { s[0].Shard = "4/3"; return s },
			results.ErrShardConflict, `shard "4/3"`}),
	)
})

var _ = Describe("ExitCode", func() {
	run := func(statuses ...results.Status) *results.Run {
		r := &results.Run{}
		for _, s := range statuses {
			r.Pairings = append(r.Pairings, &results.Pairing{Status: s})
		}
		return r
	}
	DescribeTable("maps a run to 0, 1 or 3",
		func(r *results.Run, code int) { Expect(r.ExitCode()).To(Equal(code)) },
		Entry("all pass", run(results.StatusPass, results.StatusExpectedRefusal), 0),
		Entry("a failure", run(results.StatusPass, results.StatusFail), 1),
		Entry("a flaky pairing counts as a failure", run(results.StatusPass, results.StatusFlaky), 1),
		Entry("errors outrank findings", run(results.StatusFail, results.StatusFlaky, results.StatusError), 3),
		Entry("an interrupted run is incomplete", &results.Run{Interrupted: true, Pairings: run(results.StatusFail).Pairings}, 3),
		Entry("pairings not run make it incomplete", &results.Run{NotRun: 2}, 3),
	)
})

var _ = Describe("Merge of future-peer runs and coverage", func() {
	It("keeps a pairing's future-peer run beside it (same index), after the plan, and adds up coverage", func() {
		cov := func(seen int) *results.Coverage {
			return &results.Coverage{Items: []results.CoverageItem{
				{Category: results.CoverFrame, Item: "H>C a (k)", Seen: seen},
				{Category: results.CoverFrame, Item: "H>C b (k)"}}}
		}
		one := &results.Run{Shard: "1/2", Pairings: []*results.Pairing{{Index: 1}, {Index: 1, Future: true}}, Coverage: cov(1)}
		two := &results.Run{Shard: "2/2", Pairings: []*results.Pairing{{Index: 2}}, Coverage: cov(2)}
		merged, err := results.Merge(two, one)
		Expect(err).NotTo(HaveOccurred())
		var order []string
		for _, p := range merged.Pairings {
			order = append(order, fmt.Sprint(p.Index, p.Future))
		}
		Expect(order).To(Equal([]string{"1 false", "2 false", "1 true"}))
		Expect(merged.Coverage.Items).To(Equal([]results.CoverageItem{
			{Category: results.CoverFrame, Item: "H>C a (k)", Seen: 3},
			{Category: results.CoverFrame, Item: "H>C b (k)"}}))

		dup := &results.Run{Shard: "2/2", Pairings: []*results.Pairing{{Index: 1, Future: true}}}
		_, err = results.Merge(one, dup)
		Expect(err).To(MatchError(results.ErrShardConflict), "one future-peer run per pairing")
	})
})

var _ = Describe("Merge of the skewtest versions", func() {
	version := func(runs []*results.Run, vs ...string) []*results.Run {
		for i, r := range runs {
			r.ToolVersion = vs[i]
		}
		return runs
	}

	It("keeps the shards' version, once", func() {
		shards := version(resultstest.Split(resultstest.Run(resultstest.Options{Builds: 3, Seed: 5}), 3), "v1.2.0", "v1.2.0", "v1.2.0")
		merged, err := results.Merge(shards...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.ToolVersion).To(Equal("v1.2.0"))
	})

	It("names each distinct version when the shards' differ, and none when none says", func() {
		shards := version(resultstest.Split(resultstest.Run(resultstest.Options{Builds: 3, Seed: 5}), 3), "v1.2.0", "", "v1.3.0")
		merged, err := results.Merge(shards...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.ToolVersion).To(Equal("v1.2.0, v1.3.0"))

		shards = version(resultstest.Split(resultstest.Run(resultstest.Options{Builds: 3, Seed: 5}), 2), "", "")
		merged, err = results.Merge(shards...)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.ToolVersion).To(BeEmpty())
	})
})
