package harness_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// weightedPlan is n skew pairs of two lane builds with their references, and a weight
// that makes host a's pairings take heavy units.
func weightedPlan(n, heavy int) ([]harness.Pairing, func(harness.Pairing) int) {
	j, err := journeys.Parse("fake.txtar", []byte(fakeJourney))
	Expect(err).NotTo(HaveOccurred())
	a, b := laneBuild("a", "ok"), laneBuild("b", "ok")
	var plan []harness.Pairing
	for range n {
		plan = append(plan, harness.Pairing{Host: a, Client: b, Kind: "desktop", Journey: j}, harness.Pairing{Host: b, Client: a, Kind: "desktop", Journey: j})
	}
	weight := func(p harness.Pairing) int {
		if p.Host.Label == "a" {
			return heavy
		}
		return 1
	}
	return harness.Number(harness.WithReferences(plan)), weight
}

// weightInFlight counts, from Execute's events, the weight of the pairings running at once
// (of every Execute it is given to), and the most it reached.
type weightInFlight struct {
	mu             sync.Mutex
	weight         func(harness.Pairing) int
	inFlight, most int
}

func (w *weightInFlight) event(e harness.PairingEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch e.Kind {
	case harness.PairingStarted:
		w.inFlight += w.weight(e.Pairing)
		w.most = max(w.most, w.inFlight)
	case harness.PairingEnded:
		w.inFlight -= w.weight(e.Pairing)
	}
}

var _ = Describe("the parallel units of Execute", func() {
	// grantedOf lists the positions whose units were handed out (their channel closed).
	grantedOf := func(chs map[int]<-chan struct{}) []int {
		var out []int
		for i, ch := range chs {
			select {
			case <-ch:
				out = append(out, i)
			default:
			}
		}
		slices.Sort(out)
		return out
	}

	It("hand a pairing its weight in units, in plan order, never more in all than the capacity", func() {
		s := harness.NewSlots(8)
		weights := []int{1, 1, 4, 1, 4, 1, 1, 1, 4, 1}
		chs := map[int]<-chan struct{}{}
		for i, w := range weights {
			chs[i] = s.Enqueue(i, w)
		}
		Expect(grantedOf(chs)).To(BeEmpty(), "nothing before open")
		s.Open()
		Expect(grantedOf(chs)).To(Equal([]int{0, 1, 2, 3}), "1+1+4+1 = 7 of 8 units: position 4 (4 units) waits, and none after it goes first")
		s.Release(4) // position 2 ended: 5 free
		Expect(grantedOf(chs)).To(Equal([]int{0, 1, 2, 3, 4, 5}), "4 then 5 take the 5 units")
		s.Release(1) // position 0 ended
		s.Release(1) // position 1 ended
		Expect(grantedOf(chs)).To(Equal([]int{0, 1, 2, 3, 4, 5, 6, 7}))
		s.Release(1) // position 3 ended: 1 free, position 8 needs 4
		Expect(grantedOf(chs)).To(Equal([]int{0, 1, 2, 3, 4, 5, 6, 7}), "a heavy pairing is not passed by the light one after it")
		s.Release(4) // position 4 ended: 5 free
		Expect(grantedOf(chs)).To(HaveLen(10))
	})

	It("never hand out more units than the capacity, whatever order the pairings end in", func() {
		const capacity = 12
		s := harness.NewSlots(capacity)
		weight := func(i int) int { return []int{1, 4, 1, 1, 3, 12, 1, 4}[i%8] }
		const n = 200
		chs := map[int]<-chan struct{}{}
		for i := range n {
			chs[i] = s.Enqueue(i, weight(i))
		}
		s.Open()
		running := map[int]bool{}
		inUse, ended, most := 0, 0, 0
		for step := 0; ended < n; step++ {
			for _, i := range grantedOf(chs) {
				if !running[i] {
					running[i] = true
					inUse += weight(i)
				}
			}
			Expect(inUse).To(BeNumerically("<=", capacity), "step %d", step)
			most = max(most, inUse)
			// End one running pairing, picked by the step (not the earliest): pairings end in
			// any order.
			var live []int
			for i := range running {
				live = append(live, i)
			}
			Expect(live).NotTo(BeEmpty(), "step %d: nothing runs, yet %d pairings have not ended (a deadlock)", step, n-ended)
			slices.Sort(live)
			i := live[(step*7)%len(live)]
			delete(chs, i)
			delete(running, i)
			inUse -= weight(i)
			ended++
			s.Release(weight(i))
		}
		Expect(most).To(Equal(capacity), "the units are used")
	})

	It("give back the units of a pairing cancelled after it got them, and let those after a cancelled one go on", func() {
		s := harness.NewSlots(4)
		a := s.Enqueue(0, 4)
		b := s.Enqueue(1, 4)
		c := s.Enqueue(2, 1)
		s.Open()
		Expect(grantedOf(map[int]<-chan struct{}{0: a, 1: b, 2: c})).To(Equal([]int{0}))
		s.Cancel(1, b, 4) // never got its units: out of line
		Expect(grantedOf(map[int]<-chan struct{}{0: a, 1: b, 2: c})).To(Equal([]int{0}), "position 0 still holds every unit")
		s.Cancel(0, a, 4) // got them: they come back
		Expect(grantedOf(map[int]<-chan struct{}{0: a, 1: b, 2: c})).To(Equal([]int{0, 2}))
	})

	It("shared by Executes, hand the units to an earlier turn's pairings before a later one's, never more in all than the capacity", func() {
		s := harness.NewSlots(4)
		first, second := 1<<32, 2<<32 // the plan positions of two turns (Units.Next)
		s.Open()
		chs := map[int]<-chan struct{}{}
		chs[first+0] = s.Enqueue(first+0, 2)
		chs[first+1] = s.Enqueue(first+1, 2)
		Expect(grantedOf(chs)).To(Equal([]int{first, first + 1}), "the first turn's pairings take every unit")
		chs[second+0] = s.Enqueue(second+0, 2) // the second turn's first pairing
		chs[first+2] = s.Enqueue(first+2, 1)   // a pairing of the first whose references ended later
		Expect(grantedOf(chs)).To(Equal([]int{first, first + 1}), "nothing is free")
		s.Release(2) // first+0 ended
		Expect(grantedOf(chs)).To(Equal([]int{first, first + 1, first + 2}), "the first turn's late pairing goes first; the second's waits for its 2 units")
		s.Release(2) // first+1 ended: 3 free
		Expect(grantedOf(chs)).To(Equal([]int{first, first + 1, first + 2, second}))

		// The control: were the second Execute's plan in line from 0 as the first's, its
		// first pairing would pass the first's late one.
		s = harness.NewSlots(4)
		s.Open()
		chs = map[int]<-chan struct{}{}
		early, late := s.Enqueue(0, 2), s.Enqueue(1, 2) // the first Execute's
		Expect(grantedOf(map[int]<-chan struct{}{0: early, 1: late})).To(Equal([]int{0, 1}))
		chs[2] = s.Enqueue(2, 1) // the first Execute's late pairing
		chs[0] = s.Enqueue(0, 2) // the second Execute's first
		s.Release(2)
		Expect(grantedOf(chs)).To(Equal([]int{0}), "the second Execute's pairing went first")
	})

	It("shared by Executes running at once, never run more weight at once than their capacity, every pairing to its verdict", func(ctx SpecContext) {
		plan, heavy := weightedPlan(3, 2)
		w := &weightInFlight{weight: heavy}
		dir := GinkgoT().TempDir()
		pool := harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(dir, "drivers")})
		units := harness.NewUnits(3)
		runs := make([]*results.Run, 3)
		var wg sync.WaitGroup
		for k := range runs {
			runs[k] = &results.Run{}
			wg.Go(func() {
				defer GinkgoRecover()
				harness.Execute(ctx, plan, runs[k], harness.ExecuteOptions{ReportDir: filepath.Join(dir, strconv.Itoa(k)), Units: units.Next(), Weight: heavy,
					Pairing: harness.Options{Pool: pool}, Events: w.event})
			})
		}
		wg.Wait()
		pool.Close(ctx)
		Expect(w.most).To(BeNumerically("<=", 3), "the weight of the pairings of all three running at once")
		Expect(w.most).To(BeNumerically(">", 0))
		for _, run := range runs {
			Expect(run.Pairings).To(HaveLen(len(plan)))
			for _, p := range run.Pairings {
				Expect(p.Status).To(Equal(results.StatusPass), "%s: %v %s", p.Label(), p.Findings, p.Error)
			}
		}
	}, NodeTimeout(120*time.Second))

	It("run a plan with a weight per pairing without running more weight at once than Parallel, every pairing to its verdict", func(ctx SpecContext) {
		plan, heavy := weightedPlan(4, 3)
		w := &weightInFlight{weight: heavy}
		dir := GinkgoT().TempDir()
		pool := harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(dir, "drivers")})
		run := &results.Run{}
		harness.Execute(ctx, plan, run, harness.ExecuteOptions{ReportDir: dir, Parallel: 4, Weight: heavy, Pairing: harness.Options{Pool: pool}, Events: w.event})
		pool.Close(ctx)
		Expect(w.most).To(BeNumerically("<=", 4), "the weight of the pairings running at once")
		Expect(run.Pairings).To(HaveLen(len(plan)))
		for _, p := range run.Pairings {
			Expect(p.Status).To(Equal(results.StatusPass), "%s: %v %s", p.Label(), p.Findings, p.Error)
		}

		// A weight above Parallel takes every unit, rather than waiting for ever.
		run = &results.Run{}
		pool = harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(dir, "drivers2")})
		harness.Execute(ctx, plan[:3], run, harness.ExecuteOptions{ReportDir: dir, Parallel: 2, Pairing: harness.Options{Pool: pool},
			Weight: func(harness.Pairing) int { return 100 }, Events: func(harness.PairingEvent) {}})
		pool.Close(ctx)
		Expect(run.Pairings).To(HaveLen(3))
	}, NodeTimeout(90*time.Second))
})
