package harness_test

import (
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("Plan", func() {
	desktop := &journeys.Journey{Name: "terminal", Kinds: []string{"desktop"}}
	mobile := &journeys.Journey{Name: "terminal-mobile", Kinds: []string{"mobile"}}
	b := func(label string, kinds ...string) *harness.Build {
		c := map[string][]string{}
		for _, k := range kinds {
			c[k] = []string{"./d"}
		}
		return &harness.Build{Label: label, Clients: c}
	}
	names := func(plan []harness.Pairing) []string {
		var out []string
		for _, p := range plan {
			out = append(out, p.Host.Label+"×"+p.Client.Label+"·"+p.Journey.Name)
		}
		return out
	}

	It("pairs each pin with the working tree both ways, after the references", func() {
		wt, v1 := b("worktree", "desktop", "mobile"), b("v1", "desktop")
		plan, skips, err := harness.Plan(wt, []*harness.Build{v1}, harness.PlanOptions{Journeys: []*journeys.Journey{desktop, mobile}})
		Expect(err).NotTo(HaveOccurred())
		Expect(names(plan)).To(Equal([]string{
			"worktree×worktree·terminal", "worktree×worktree·terminal-mobile",
			"v1×v1·terminal",
			"v1×worktree·terminal", "v1×worktree·terminal-mobile",
			"worktree×v1·terminal",
		}), "a client without a mobile driver gets no mobile journey")
		var skipped []string
		for _, s := range skips {
			skipped = append(skipped, s.Host.Label+"×"+s.Client.Label+"·"+s.Kind+": "+s.Reason)
		}
		Expect(skipped).To(Equal([]string{"v1×v1·mobile: build v1 has no mobile client driver",
			"worktree×v1·mobile: build v1 has no mobile client driver"}), "and says so")
	})

	It("pairs every build with every build in the full matrix", func() {
		plan, _, err := harness.Plan(b("worktree", "desktop"), []*harness.Build{b("v1", "desktop"), b("v2", "desktop")},
			harness.PlanOptions{Matrix: harness.MatrixFull, Journeys: []*journeys.Journey{desktop}})
		Expect(err).NotTo(HaveOccurred())
		Expect(plan).To(HaveLen(9))
	})

	It("filters by kind, keeps a failed build's pairings, and refuses an unknown matrix", func() {
		broken := &harness.Build{Label: "v0", Err: errors.New("exit status 1")}
		plan, _, err := harness.Plan(b("worktree", "desktop", "mobile"), []*harness.Build{broken},
			harness.PlanOptions{Kinds: []string{"mobile"}, Journeys: []*journeys.Journey{desktop, mobile}})
		Expect(err).NotTo(HaveOccurred())
		Expect(names(plan)).To(Equal([]string{"worktree×worktree·terminal-mobile", "v0×v0·terminal-mobile",
			"v0×worktree·terminal-mobile", "worktree×v0·terminal-mobile"}))
		_, _, err = harness.Plan(b("worktree"), nil, harness.PlanOptions{Matrix: "diagonal", Journeys: []*journeys.Journey{desktop}})
		Expect(err).To(MatchError(ContainSubstring(`unknown matrix "diagonal"`)))
	})

	It("pairs a journey of several kinds, or of every kind, once per kind", func() {
		both := &journeys.Journey{Name: "shared", Kinds: []string{"desktop", "mobile"}}
		any := &journeys.Journey{Name: "any", Kinds: []string{journeys.AnyKind}}
		plan, _, err := harness.Plan(b("worktree", "desktop", "mobile", "cli"), nil,
			harness.PlanOptions{Journeys: []*journeys.Journey{both, any}})
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for _, p := range plan {
			got = append(got, p.Journey.Name+"/"+p.Kind)
		}
		Expect(got).To(Equal([]string{"shared/desktop", "shared/mobile", "any/cli", "any/desktop", "any/mobile"}))
	})

	It("adds the references a plan lacks (the client build's and the host build's), and runs references first", func() {
		h, c := b("v2", "desktop"), b("v1", "desktop")
		plan := harness.WithReferences([]harness.Pairing{{Host: h, Client: c, Kind: "desktop", Journey: desktop}})
		Expect(names(plan)).To(Equal([]string{"v1×v1·terminal", "v2×v2·terminal", "v2×v1·terminal"}))
	})

	It("adds no reference of a build without a driver of the kind (the plan skips it), and keeps a failed build's", func() {
		h, c := b("v2"), b("v1", "desktop")
		plan := harness.WithReferences([]harness.Pairing{{Host: h, Client: c, Kind: "desktop", Journey: desktop}})
		Expect(names(plan)).To(Equal([]string{"v1×v1·terminal", "v2×v1·terminal"}))

		broken := &harness.Build{Label: "v0", Err: errors.New("exit status 1")}
		plan = harness.WithReferences([]harness.Pairing{{Host: broken, Client: c, Kind: "desktop", Journey: desktop}})
		Expect(names(plan)).To(Equal([]string{"v1×v1·terminal", "v0×v0·terminal", "v0×v1·terminal"}), "control: its reference is an error to report")
	})

	It("splits a numbered plan into shards that own every pairing once, each with the references it needs", func() {
		wt, v1, v2 := b("worktree", "desktop", "mobile"), b("v1", "desktop", "mobile"), b("v2", "desktop")
		plan, _, err := harness.Plan(wt, []*harness.Build{v1, v2}, harness.PlanOptions{Matrix: harness.MatrixFull,
			Journeys: []*journeys.Journey{desktop, mobile}})
		Expect(err).NotTo(HaveOccurred())
		plan = harness.Number(harness.WithReferences(plan))
		owners := map[int]int{}
		for k := 1; k <= 3; k++ {
			shard := harness.Shard(plan, k, 3)
			Expect(harness.Shard(plan, k, 3)).To(Equal(shard), "deterministic")
			owned := map[string]bool{}
			for _, p := range shard {
				if !p.Helper {
					owners[p.Index]++
					owned[p.Client.Label+"/"+p.Kind+"/"+p.Journey.Name] = true
				}
			}
			for _, p := range shard {
				if p.Host != p.Client {
					key := p.Client.Label + "/" + p.Kind + "/" + p.Journey.Name
					Expect(slices.ContainsFunc(shard, func(r harness.Pairing) bool {
						return r.Host == r.Client && r.Client.Label+"/"+r.Kind+"/"+r.Journey.Name == key
					})).To(BeTrue(), "the reference of %s travels with it", p.Label())
				}
			}
		}
		Expect(owners).To(HaveLen(len(plan)))
		for i, n := range owners {
			Expect(n).To(Equal(1), "pairing %d is owned once", i)
		}
	})
})

var _ = Describe("A reference's transcript", func() {
	It("goes to every pairing checked against it, and is let go after the last takes it", func() {
		t := &transcript.Transcript{}
		r := harness.NewReference(2)
		r.Publish(t)
		Expect(r.Take()).To(BeIdenticalTo(t))
		Expect(r.Take()).To(BeIdenticalTo(t))
		Expect(r.Take()).To(BeNil(), "kept after its last user took it")
	})

	It("is not kept when no pairing is checked against it", func() {
		r := harness.NewReference(0)
		r.Publish(&transcript.Transcript{})
		Expect(r.Take()).To(BeNil())
	})
})
