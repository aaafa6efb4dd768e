package campaign

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// warmPlan lists pairings of a case of every generator: the driver processes they need are
// the campaign's shared ones.
func (cp *campaign) warmPlan() []harness.Pairing {
	var plan []harness.Pairing
	for _, g := range cp.gens {
		c, err := fuzz.Draw([]*fuzz.Generator{g}, cp.o.Seed, -1, fuzz.Options{Exclude: cp.o.Exclude})
		if err != nil {
			continue // checkGenerator drew it already
		}
		if j, err := c.Journey(g.File); err == nil {
			plan = append(plan, cp.plan(j)...)
		}
	}
	return plan
}

// go_ replays the corpus, then runs cases in batches until the count or budget is spent:
// under a budget, each of the campaign's streams (streamsOf) runs its own batches, beside
// the others.
func (cp *campaign) go_(ctx context.Context) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.o.Corpus != "" {
		if err := cp.replayCorpus(ctx); err != nil {
			return err
		}
	}
	streams := cp.streamsOf()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	if !cp.deadline.IsZero() {
		cp.settler = startSettler(sctx, &cp.mu, stop)
	}
	err := cp.runStreams(sctx, stop, streams)
	if cp.settler != nil {
		if serr := cp.settler.wait(); serr != nil && (err == nil || errors.Is(err, context.Canceled)) {
			err = serr
		}
		cp.settler = nil
	}
	return err
}

// runStreams runs the streams' batches, side by side; stop stops them all when one fails.
// The caller holds cp.mu.
func (cp *campaign) runStreams(ctx context.Context, stop func(), streams []*stream) error {
	if len(streams) == 1 {
		return cp.batches(ctx, streams[0])
	}
	fmt.Fprintf(cp.stdout, "streams: the light generators (%s) and the heavy ones (%s) run side by side, %d units each\n",
		genNames(streams[0].gens), genNames(streams[1].gens), cp.pooled.Parallel)
	// Each stream runs under cp.mu but for its Executes (execute): what one stream's
	// pairings run, the others record. The first stream to fail stops the others.
	errs := make([]error, len(streams))
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Go(func() {
			cp.mu.Lock()
			defer cp.mu.Unlock()
			if errs[i] = cp.batches(ctx, s); errs[i] != nil && ctx.Err() == nil {
				stop()
			}
		})
	}
	cp.mu.Unlock()
	wg.Wait()
	cp.mu.Lock()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}

// batches runs stream s's cases in batches until the count or the budget is spent.
func (cp *campaign) batches(ctx context.Context, s *stream) error {
	deadline := time.Time{}
	if cp.o.Budget > 0 {
		deadline = cp.started.Add(cp.o.Budget)
	}
	// A case's skew pairings wait for its references: a batch of several cases keeps -j
	// pairings busy while some wait.
	most := 1
	for _, g := range s.gens {
		most = max(most, packOf(cp.o, g, 0))
	}
	// Under a budget, the batches ramp up to the full one (batches), so what the first
	// cases find is reported in the campaign's first minutes.
	// Both count pairings of the heaviest weight (share): when the pairings are weighed, the
	// first batch and the full one hold as many cases as heavy pairings can run at once (a
	// stream of light generators too: its batches are then as a campaign of them alone has).
	start := rampStart(cp.pooled.Parallel / cp.share())
	plan := newBatches(cp.o.Batch, fullBatch(cp.pooled.Parallel, most, cp.share()), start, !deadline.IsZero())
	// finished counts the cases of the stream's batches that ended, since began: its pace,
	// by which the budget's last batches are cut to what ends before it (lastBatch).
	began, finished := time.Now(), 0
	next := 1
	// held are cases drawn whose pack (same generator, same settle line: fuzz.PackSchedule) is not full yet: they
	// wait for the next batch's draws, so that a pack is full however many schedules a
	// batch's cases spread over (a pairing per pack, not per case). The last batch of a
	// count runs them all; a budget's end leaves them undrawn.
	var held []*fuzz.Case
	// Under a budget, in lanes, two batches of the stream are in flight at once, sharing the
	// stream's units (s.units): the next batch's pairings take the units the last, long
	// pairings of the one before leave, earliest batch first. prev is the batch before.
	var prev chan error
	prevN := 0 // the cases of the batch before, while in flight
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	waitPrev := func() error {
		if prev == nil {
			return nil
		}
		cp.mu.Unlock()
		err := <-prev
		cp.mu.Lock()
		prev, prevN = nil, 0
		return err
	}
	for ctx.Err() == nil {
		if deadline.IsZero() && next > cp.o.Cases && len(held) == 0 {
			break
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		n, flush := plan.take()
		if deadline.IsZero() {
			n = max(0, min(n, cp.o.Cases-next+1))
		} else if m := lastBatch(n, start, prevN, finished, time.Since(began), time.Until(deadline)); m < n && cp.o.Batch == 0 {
			n, flush = m, true // no batch may come after it: its packs run part-filled
		}
		packCap := cutPacks(n, cp.pooled.Parallel, cp.lanes && cp.o.Pack == 0)
		drawn, err := cp.drawCases(s, next, n)
		if err != nil {
			cancel()
			_ = waitPrev()
			return err
		}
		cases := append(held, drawn...)
		next += n
		b := caseBatch{packCap: packCap, opts: s.lanes(cp.pooled)}
		b.cases, held = fullPacks(cp.o, cases, packCap, flush || (deadline.IsZero() && next > cp.o.Cases))
		if len(b.cases) == 0 {
			continue
		}
		if s.units == nil {
			if err := cp.runCases(ctx, b); err != nil {
				return err
			}
			finished += len(b.cases)
			cp.point()
			cp.report()
			continue
		}
		done := make(chan error, 1)
		go func() {
			cp.mu.Lock()
			defer cp.mu.Unlock()
			err := cp.runCases(ctx, b)
			if err == nil {
				finished += len(b.cases)
				cp.point()
				cp.report()
			}
			done <- err
		}()
		if err := waitPrev(); err != nil {
			cancel() // the batch just started ends at once
			prev = done
			_ = waitPrev()
			return err
		}
		prev, prevN = done, len(b.cases)
	}
	return waitPrev()
}

// caseBatch is a batch of cases to run: the cases whose packs are full (or the ramp's or the
// count's last, part-filled), how many cases a pack holds at most (packCap, when not 0), and
// the options they run with (a turn of their stream's units, when it shares them).
type caseBatch struct {
	cases   []*fuzz.Case
	packCap int
	opts    harness.ExecuteOptions
}

// fullPacks splits drawn cases, in their order, into those that fill packs (of one
// generator and one settle line) and those held for the next batch; last (or a pack of 1)
// runs them all.
func fullPacks(o *Config, cases []*fuzz.Case, packCap int, last bool) (run, held []*fuzz.Case) {
	if last || o.Pack == 1 {
		return cases, nil
	}
	type packKey struct {
		g *fuzz.Generator
		s fuzz.Schedule
	}
	count := map[packKey]int{}
	for _, c := range cases {
		count[packKey{c.Gen, fuzz.PackSchedule(c)}]++
	}
	taken := map[packKey]int{}
	for _, c := range cases {
		k := packKey{c.Gen, fuzz.PackSchedule(c)}
		size := packOf(o, c.Gen, packCap)
		if taken[k] < count[k]/size*size {
			taken[k]++
			run = append(run, c)
		} else {
			held = append(held, c)
		}
	}
	return run, held
}

// drawCases draws n cases from slot from on, in slot order: what a campaign draws does
// not depend on how its slots are cut into batches.
func (cp *campaign) drawCases(s *stream, from, n int) ([]*fuzz.Case, error) {
	var cases []*fuzz.Case
	for k := range n {
		c, err := cp.draw(s, from+k)
		if err != nil {
			return nil, usage.Errorf("%w", err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// draw draws stream s's case slot (1-based): case slot of its generators, or its guide's
// pick.
func (cp *campaign) draw(s *stream, slot int) (*fuzz.Case, error) {
	opts := fuzz.Options{Exclude: cp.o.Exclude, Schedules: cp.o.Schedules}
	var c *fuzz.Case
	var err error
	if s.guide != nil {
		c, err = s.guide.pick(s.gens, cp.o.Seed, slot, opts)
	} else {
		c, err = fuzz.Draw(s.gens, cp.o.Seed, slot, opts)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range eventPairs(c) {
		cp.drawn[p] = true
	}
	return c, nil
}

// point adds the campaign's coverage now to its timeline.
func (cp *campaign) point() {
	cov := cp.tally.Coverage()
	pt := results.CoveragePoint{After: time.Since(cp.started), Cases: cp.c.Cases + cp.c.CorpusCases, Total: len(cov.Items)}
	for _, it := range cov.Items {
		if it.Seen > 0 {
			pt.Covered++
		}
	}
	cp.c.Timeline = append(cp.c.Timeline, pt)
}

// neverShown is how many never-reached parts a campaign prints; the reports list them all.
const neverShown = 8

// remember sets the run's coverage, the memory's history with this campaign in it, and
// what none of them reached; given a corpus, it adds the campaign's file to its memory.
func (cp *campaign) remember() error {
	cov := cp.tally.Coverage()
	cp.run.Coverage = cov
	self := memoryFile{Name: cp.o.Name, Seed: cp.o.Seed, Started: cp.started, Duration: time.Since(cp.started),
		Cases: cp.c.Cases + cp.c.CorpusCases, By: cp.tally.By()}
	for _, it := range cov.Items {
		if it.Seen > 0 {
			self.Items = append(self.Items, it)
		}
	}
	for p := range cp.drawn {
		self.Pairs = append(self.Pairs, p)
	}
	slices.Sort(self.Pairs)
	cp.c.History = cp.mem.history(self)
	cp.c.NeverReached = cp.mem.neverReached(cov)
	now := cp.c.History[len(cp.c.History)-1]
	fmt.Fprintf(cp.stdout, "\ncoverage: %d of %d parts reached, %d of them by no earlier campaign; %d never reached by any\n",
		now.Reached, len(cov.Items), now.New, len(cp.c.NeverReached))
	for i, it := range cp.c.NeverReached {
		if i == neverShown {
			fmt.Fprintf(cp.stdout, "  … %d more in %s\n", len(cp.c.NeverReached)-i, reports.SummaryFile)
			break
		}
		fmt.Fprintf(cp.stdout, "  never reached: %s %s\n", it.Category, it.Item)
	}
	if cp.o.Corpus == "" {
		return nil
	}
	path, err := self.write(filepath.Join(cp.o.Corpus, MemoryDir))
	if err != nil {
		return fmt.Errorf("write coverage memory: %w", err)
	}
	fmt.Fprintf(cp.stdout, "coverage memory: %s\n", path)
	return nil
}

// late says a budgeted campaign's budget has ended: it no longer shrinks, nor splits a
// failing pack into its cases.
func (cp *campaign) late() bool { return !cp.deadline.IsZero() && !time.Now().Before(cp.deadline) }

// stopped says r is a pairing the budget's end cancelled while it ran: an error of the
// harness's stopping, no verdict. (An interrupted campaign keeps reporting such pairings,
// as an interrupted run does.)
func (cp *campaign) stopped(r *results.Pairing) bool {
	return cp.cut() && r.Status == results.StatusError
}

// notRun counts a batch's pairings that never started. Those the budget's end left are no
// gap in the run: a budget is a deadline, and their cases are counted as not run.
func (cp *campaign) notRun(batch *results.Run) {
	if !cp.cut() {
		cp.run.NotRun += batch.NotRun
	}
}

// countProcesses adds the driver processes a batch run without the pool started: a host and
// a client per pairing.
func (cp *campaign) countProcesses(batch *results.Run, opts harness.ExecuteOptions) {
	if opts.Pairing.Pool == nil {
		cp.c.DriverProcesses += 2 * len(batch.Pairings)
	}
}

// report prints the campaign's progress line, with its rate.
func (cp *campaign) report() {
	d := time.Since(cp.started)
	rate := float64(cp.c.Cases+cp.c.CorpusCases) / max(d.Minutes(), 1e-9)
	future := ""
	if cp.c.Packs > 0 {
		future = fmt.Sprintf(", future-peer pass on %d of %s", cp.c.FuturePacks, results.Plural(cp.c.Packs, "pack"))
	}
	fmt.Fprintf(cp.progress, "fuzz: %d cases, %.0f cases/min, %s, %s%s\n", cp.c.Cases+cp.c.CorpusCases, rate,
		results.Plural(len(cp.c.Findings), "unique finding"), d.Round(time.Second), future)
	cp.reported.Store(time.Now().UnixNano())
}

// caseJourney is one case to run: its journey and, for a generated case, the case.
type caseJourney struct {
	j    *journeys.Journey
	c    *fuzz.Case // nil for a corpus journey
	name string
	// marked says a corpus journey was drawn with a differential event (its file says so:
	// fuzz.MarkedDifferential); a generated case says it itself.
	marked bool
}

// isDifferential says the case draws a differential event, generated or replayed.
func (cj caseJourney) isDifferential() bool {
	return cj.marked || (cj.c != nil && cj.c.Differential())
}

// plan lists a case's pairings: each skew pair (both directions) with the references.
func (cp *campaign) plan(j *journeys.Journey) []harness.Pairing {
	var plan []harness.Pairing
	for _, pr := range cp.pairs {
		ps, _ := harness.Journeys(pr[0], pr[1], harness.PlanOptions{Kinds: cp.o.Kinds, Journeys: []*journeys.Journey{j}})
		plan = append(plan, ps...)
	}
	return harness.WithReferences(plan)
}

// runCases runs a batch of generated cases as one plan and records what they found.
func (cp *campaign) runCases(ctx context.Context, b caseBatch) error {
	var cjs []caseJourney
	for _, c := range b.cases {
		cjs = append(cjs, caseJourney{c: c, name: c.Name})
		cp.c.Generators[c.Gen.Name]++
		for _, e := range c.EventNames() {
			cp.c.Events[c.Gen.Name+"/"+e]++
		}
	}
	if cp.o.Pack == 1 {
		if err := withJourneys(cjs); err != nil {
			return err
		}
		_, err := cp.runJourneys(ctx, cjs, false, b.opts)
		return err
	}
	return cp.runPacked(ctx, b, cjs)
}

// withJourneys writes and validates the journey of every generated case that has none yet
// (a packed case gets its own only when its pack fails).
func withJourneys(cjs []caseJourney) error {
	for i := range cjs {
		if cjs[i].j != nil || cjs[i].c == nil {
			continue
		}
		c := cjs[i].c
		j, err := c.Journey(c.Name + ".txtar")
		if err == nil {
			err = harness.Validate(j)
		}
		if err != nil {
			return usage.Errorf("generator %s, case %d: %v\n%s", c.Gen.File, c.Index, err, numbered(c.Text()))
		}
		cjs[i].j = j
	}
	return nil
}

// packOf is how many cases of generator g share a journey: --pack, else the generator's pack
// line, else DefaultPack; at most what the batch cuts its packs to (packCap, when not 0:
// cutPacks).
func packOf(o *Config, g *fuzz.Generator, packCap int) int {
	n := DefaultPack
	switch {
	case o.Pack > 0:
		n = o.Pack
	case g.Pack > 0:
		n = g.Pack
	}
	if packCap > 0 {
		n = min(n, packCap)
	}
	return n
}

// fullBatch is how many cases a full batch draws: a pack of the largest pack (most) for
// every pairing of share units the parallel units hold at once (share: HeavyWeight when
// the campaign weighs its pairings, so a full batch holds a pack for every heavy pairing
// that can run at once, and no more transcripts in memory; else 1). In lanes,
// cutPacks then spreads the batch's cases over a pack for every unit, so light pairings,
// which take one each, fill the units too.
func fullBatch(parallel, most, share int) int {
	return max(2, parallel/max(1, share)) * most
}

// cutPacks is how many cases a pack of a batch of n cases holds at most (0: as many as the
// generator's pack line says): in lanes (cut; not when --pack is given), the batch's cases
// spread over a pack for every pairing run at once, but never fewer than DefaultPack (a
// pack pays its generator's setup once: a generator of heavy cases, whose pack line is
// small, keeps it, and gains nothing from more pairings at once). A pack's skew pairings wait for its
// references, so a batch lasts at least two of its longest pack's pairings; with fewer packs
// than slots, the slots idle while the last, long packs run (1,024 session cases made 16 packs
// of 64 for 16 slots: a third of two cores busy, the wall time two such packs). The cut follows
// from the configuration alone (the batch's size and -j), never from timing.
func cutPacks(n, parallel int, cut bool) int {
	if !cut || parallel <= 0 {
		return 0
	}
	return max(DefaultPack, (n+parallel-1)/parallel)
}

// latestFirst orders packs (their indexes) by how late their schedules make their traffic
// (fuzz.Case.Lateness, summed over their cases), the latest first, else as drawn: a pack's
// pairings run its events one after another, each waiting out its delays, so the longest
// packs start first and the short ones fill the slots at the batch's end, rather than a
// long pack starting last and the batch waiting for it (and for its skew pairings, which
// wait for its references). The order follows from the cases alone.
func latestFirst(packs [][]caseJourney) []int {
	late := make([]time.Duration, len(packs))
	order := make([]int, len(packs))
	for i, pk := range packs {
		order[i] = i
		for _, cj := range pk {
			if cj.c != nil {
				late[i] += cj.c.Lateness()
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(late[b], late[a]) })
	return order
}

// runPacked runs the batch's cases packed (fuzz.Pack) several to a journey, so a pairing's
// driver processes and connection serve many cases. Every case of a packed journey that
// passes on every pairing passes; the cases of one that does not are run again alone, so
// a verdict, a finding and a shrink are always a single case's.
func (cp *campaign) runPacked(ctx context.Context, b caseBatch, cjs []caseJourney) error {
	var packs [][]caseJourney
	// A pack's cases share a generator and a settle line (the pack's journey has one; each
	// case keeps its own delays: fuzz.Pack).
	type packKey struct {
		g *fuzz.Generator
		s fuzz.Schedule
	}
	byGen := map[packKey]int{}
	for _, cj := range cjs {
		k := packKey{cj.c.Gen, fuzz.PackSchedule(cj.c)}
		i, ok := byGen[k]
		if !ok || len(packs[i]) >= packOf(cp.o, cj.c.Gen, b.packCap) {
			byGen[k] = len(packs)
			packs = append(packs, nil)
			i = len(packs) - 1
		}
		packs[i] = append(packs[i], cj)
	}
	var plan []harness.Pairing
	var owner []int
	want := make([]int, len(packs)) // each pack's pairings
	packed := make([]caseJourney, len(packs))
	weights := map[*journeys.Journey]int{} // each pack's journey's: its generator's (weighed)
	for _, i := range latestFirst(packs) {
		pk := packs[i]
		var cases []*fuzz.Case
		for _, cj := range pk {
			cases = append(cases, cj.c)
		}
		c := fuzz.Pack(fmt.Sprintf("%s-pack%d", pk[0].c.Name, len(pk)), cases)
		j, err := c.Journey(c.Name + ".txtar")
		if err == nil {
			err = harness.Validate(j)
		}
		if err != nil {
			// Name the case that makes the pack's journey wrong, if one does alone.
			if cerr := withJourneys(pk); cerr != nil {
				return cerr
			}
			return usage.Errorf("generator %s, pack of cases %s…: %w", c.Gen.File, pk[0].name, err)
		}
		packed[i] = caseJourney{j: j, c: c, name: c.Name}
		weights[j] = cp.weightOfCase(pk[0])
		cp.samplePack(j.Name)
		ps := cp.plan(j)
		plan = append(plan, ps...)
		want[i] = len(ps)
		for range ps {
			owner = append(owner, i)
		}
	}
	plan = harness.Number(plan)
	batch := &results.Run{}
	cp.execute(ctx, plan, batch, cp.weighed(b.opts, weights))
	cp.run.Interrupted = cp.run.Interrupted || batch.Interrupted
	cp.notRun(batch)
	cp.c.Pairings += len(batch.Pairings)
	ran := make([]int, len(packs))
	failed := make([][]*results.Pairing, len(packs)) // each pack's failing pairings (a future-peer pass apart)
	failedAt := make([][]int, len(packs))            // and their plan positions
	all := make([][]*results.Pairing, len(packs))    // each pack's pairings
	for _, r := range batch.Pairings {
		if cp.stopped(r) {
			continue // cancelled by the budget's end: not run
		}
		i := owner[r.Index-1]
		ran[i]++
		all[i] = append(all[i], r)
		if r.Status != results.StatusPass && r.Status != results.StatusExpectedRefusal {
			failed[i], failedAt[i] = append(failed[i], r), append(failedAt[i], r.Index-1)
		}
	}
	var split []int // the failing packs run again case by case
	for i, pk := range packs {
		if len(failed[i]) == 0 {
			// Nothing refers to a pack that passed, or was cut before it failed: its
			// pairings' directories go now, not by the thousand when the night ends.
			for _, r := range all[i] {
				cp.discard(r)
			}
		}
		if len(failed[i]) == 0 && ran[i] < want[i] {
			cp.c.CasesNotRun += len(pk) // cut before every pairing of the pack ended
			continue
		}
		if len(failed[i]) == 0 {
			for _, cj := range pk {
				cp.c.CaseList = append(cp.c.CaseList, results.CampaignCase{Name: cj.name, Events: cj.c.EventNames(), Status: results.StatusPass})
				cp.c.Cases++
				if cp.o.Corpus != "" {
					cp.keepIfNew(cj.c)
				}
			}
			continue
		}
		if cp.late() || ctx.Err() != nil {
			// The budget has ended (or the campaign is interrupted): the pack is the failing
			// case, not split, and what it found is recorded all the same.
			fmt.Fprintf(cp.progress, "fuzz: past the budget: pack %s is not run again case by case\n", packed[i].name)
			for n, r := range failed[i] {
				if err := cp.record(ctx, packed[i], plan[failedAt[i][n]], r, false, new(results.Status)); err != nil && ctx.Err() == nil {
					return err
				}
			}
			cp.c.CaseList = append(cp.c.CaseList, results.CampaignCase{Name: packed[i].name, Events: packed[i].c.EventNames(), Status: results.StatusFail})
			cp.c.Cases += len(pk)
			continue
		}
		split = append(split, i)
	}
	if len(split) == 0 {
		return nil
	}
	// Case by case, in lanes like the packs, every failing pack's cases in one plan (a bug
	// that fails most packs would otherwise run them again one pack at a time, a few
	// pairings at once): a shared process that exits is run again on processes of the
	// pairing's own (harness.Run), and a finding is confirmed on them before it is shrunk
	// (found).
	var alone []caseJourney
	for _, i := range split {
		if err := withJourneys(packs[i]); err != nil {
			return err
		}
		alone = append(alone, packs[i]...)
	}
	status, err := cp.runJourneys(ctx, alone, false, b.opts)
	if err != nil && ctx.Err() == nil {
		return err // else cut: the packs still record what they found
	}
	for _, i := range split {
		mine := status[:len(packs[i])]
		status = status[len(packs[i]):]
		if slices.Contains(mine, results.StatusFail) {
			// A case shows it alone: the pack's failing pairings are not worth keeping.
			for _, r := range failed[i] {
				cp.discard(r)
			}
			continue
		}
		// Every case passes alone, yet the pack failed: what fails is how its cases follow
		// one another on one connection, so the pack is the failing case.
		for n, r := range failed[i] {
			switch r.Status {
			case results.StatusFail:
				if err := cp.found(ctx, packed[i], plan[failedAt[i][n]], r, false); err != nil {
					return err
				}
			case results.StatusError:
				cp.run.Pairings = append(cp.run.Pairings, r) // the harness broke on the pack
			}
		}
	}
	return nil
}

// runJourneys runs cases, each as its own journey, with opts (in lanes or not), and returns
// each case's verdict, in their order ("" for a case cut before it reached one).
func (cp *campaign) runJourneys(ctx context.Context, cjs []caseJourney, fromCorpus bool, opts harness.ExecuteOptions) ([]results.Status, error) {
	var plan []harness.Pairing
	owner := []int{}
	weights := map[*journeys.Journey]int{}
	for i, cj := range cjs {
		weights[cj.j] = cp.weightOfCase(cj)
		ps := cp.plan(cj.j)
		plan = append(plan, ps...)
		for range ps {
			owner = append(owner, i)
		}
	}
	if len(plan) == 0 {
		return nil, usage.Errorf("nothing to fuzz: the generators drive %s; the builds have client drivers for %s", kindsOfGens(cp.gens), subject.OrNone(harness.KindsOf(cp.built...)))
	}
	plan = harness.Number(plan)
	batch := &results.Run{}
	cp.execute(ctx, plan, batch, cp.weighed(opts, weights))
	cp.run.Interrupted = cp.run.Interrupted || batch.Interrupted
	cp.notRun(batch)
	cp.c.Pairings += len(batch.Pairings)
	cp.countProcesses(batch, opts)
	// Execute records pairings in plan order, leaving out the ones not run, then the
	// future-peer passes (with the same index).
	byIndex := map[int][]*results.Pairing{}
	for _, r := range batch.Pairings {
		if !cp.stopped(r) { // one cancelled by the budget's end is not run
			byIndex[r.Index] = append(byIndex[r.Index], r)
		}
	}
	status := make([]results.Status, len(cjs))
	for i := range status {
		status[i] = results.StatusPass
	}
	ended := make([]bool, len(cjs)) // every pairing of the case ran to a verdict
	for i := range ended {
		ended[i] = true
	}
	var cutErr error
	for k, p := range plan {
		if len(byIndex[p.Index]) == 0 {
			ended[owner[k]] = false
		}
		for _, r := range byIndex[p.Index] {
			if err := cp.record(ctx, cjs[owner[k]], p, r, fromCorpus, &status[owner[k]]); err != nil {
				if ctx.Err() == nil {
					return nil, err
				}
				cutErr = err // recorded before the cut: go on recording the rest
			}
		}
	}
	for i, cj := range cjs {
		if !ended[i] && status[i] == results.StatusPass {
			cp.c.CasesNotRun++ // cut before it reached a verdict
			status[i] = ""
			continue
		}
		var events []string
		if cj.c != nil {
			events = cj.c.EventNames()
		}
		cp.c.CaseList = append(cp.c.CaseList, results.CampaignCase{Name: cj.name, Events: events, Status: status[i]})
		if fromCorpus {
			cp.c.CorpusCases++
			continue
		}
		cp.c.Cases++
		if status[i] == results.StatusPass && cp.o.Corpus != "" {
			cp.keepIfNew(cj.c)
		}
	}
	return status, cutErr
}

// worse is the worse of two verdicts: error, then fail, then anything else.
func worse(a, b results.Status) results.Status {
	rank := func(s results.Status) int {
		switch s {
		case results.StatusError:
			return 3
		case results.StatusFail, results.StatusFlaky:
			return 2
		case results.StatusPass, results.StatusExpectedRefusal:
			return 0
		}
		return 1
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// record takes one result of a case's pairing (its run or its future-peer pass) into the
// case's status and the campaign's findings.
func (cp *campaign) record(ctx context.Context, cj caseJourney, p harness.Pairing, r *results.Pairing, fromCorpus bool, status *results.Status) error {
	differential(cj, r)
	*status = worse(*status, r.Status)
	switch r.Status {
	case results.StatusPass, results.StatusExpectedRefusal:
		cp.discard(r) // a passing pairing's directory is not worth keeping by the thousand
	case results.StatusFail:
		return cp.found(ctx, cj, p, r, fromCorpus)
	default:
		cp.run.Pairings = append(cp.run.Pairings, r)
	}
	return nil
}

// discard removes the directory of a pairing's run nothing refers to (a pass).
func (cp *campaign) discard(r *results.Pairing) {
	if r.Transcript != "" {
		_ = os.RemoveAll(filepath.Join(cp.o.ReportDir, filepath.Dir(filepath.FromSlash(r.Transcript))))
	}
}

// differential judges a failing pairing of a case that draws a differential event (an idle
// past the contract's quiet, after which a peer may close the connection) against the
// references alone: a finding that either build shows with itself (its own) is what the
// contract allows, not a skew, and is left out, as is every finding of a future-peer pass,
// whose references do not run. A pairing with nothing left passes.
func differential(cj caseJourney, r *results.Pairing) {
	if !cj.isDifferential() || r.Status != results.StatusFail {
		return
	}
	var kept []results.Finding
	for _, f := range r.Findings {
		if f.Own == "" && !r.Future {
			kept = append(kept, f)
		}
	}
	r.Findings = kept
	if len(kept) == 0 {
		r.Status = results.StatusPass
	}
}
