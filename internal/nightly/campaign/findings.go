package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// keepIfNew keeps a passing case in the corpus when it draws an event pair no kept case
// has drawn.
func (cp *campaign) keepIfNew(c *fuzz.Case) {
	if cp.kept >= keepPassing {
		return
	}
	fresh := false
	for _, k := range eventPairs(c) {
		if !cp.seen[k] {
			cp.seen[k], fresh = true, true
		}
	}
	if !fresh {
		return
	}
	if err := writeCase(filepath.Join(cp.corpus, "passing"), c); err == nil {
		cp.kept++
	}
}

// safeName is a corpus file's name for a case name built of labels (a ref may hold a slash).
func safeName(name string) string { return strings.NewReplacer("/", "_", " ", "_").Replace(name) }

func writeCase(dir string, c *fuzz.Case) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, c.Name+".txtar"), c.Text(), 0o644)
}

// found records a failing pairing of a case: a finding kind new on this pairing is a
// unique finding; one seen before is counted. The case is shrunk on the pairing for each
// new kind that is not one of the consequences, and written to the corpus; the new
// consequences name the first shrunk file.
func (cp *campaign) found(ctx context.Context, cj caseJourney, p harness.Pairing, r *results.Pairing, fromCorpus bool) error {
	if differential(cj, r); r.Status != results.StatusFail {
		return nil
	}
	var fresh []int // indexes in cp.c.Findings (the slice grows: no pointers into it)
	counted := map[string]bool{}
	for _, f := range r.Findings {
		key := strings.Join([]string{string(f.Kind), p.Host.Label, p.Client.Label, p.Kind}, "|")
		if counted[key] {
			continue // one count per case, however many findings of the kind it has
		}
		counted[key] = true
		if i, ok := cp.unique[key]; ok {
			cp.c.Findings[i].Cases++
			continue
		}
		cp.unique[key] = len(cp.c.Findings)
		fresh = append(fresh, len(cp.c.Findings))
		cp.c.Findings = append(cp.c.Findings, results.CampaignFinding{Kind: f.Kind, Host: p.Host.Label, Client: p.Client.Label,
			ClientKind: p.Kind, Cases: 1, First: cj.name, Message: f.Message, Repro: r.Repro, Own: f.Own != "", OwnOf: f.Own,
			After: time.Since(cp.started)})
		fmt.Fprintf(cp.progress, "fuzz: %s on %s (case %s): %s\n", f.Kind, results.PairingLabel(p.Host.Label, p.Kind, p.Client.Label, "fuzz"), cj.name, f.Message)
	}
	if len(fresh) == 0 {
		return nil
	}
	cp.run.Pairings = append(cp.run.Pairings, r)
	if cj.c == nil || fromCorpus {
		for _, i := range fresh {
			cp.c.Findings[i].Shrunk = cj.j.File
		}
		return nil
	}
	// Each new kind that is not a consequence is shrunk on its own (the smallest case with
	// one kind is not the smallest with another: any transformed run may drift where only
	// one over the cap loses data); the consequences name the first shrunk case.
	var primary, rest []int
	for _, i := range fresh {
		if slices.Contains(consequences, cp.c.Findings[i].Kind) {
			rest = append(rest, i)
		} else {
			primary = append(primary, i)
		}
	}
	if len(primary) == 0 {
		primary, rest = rest[:1], rest[1:]
	}
	if cp.settler != nil {
		// Under a budget the case's stream goes on drawing while its findings are
		// confirmed and shrunk (settler): that takes seconds to minutes of runs, which the
		// stream would otherwise wait for.
		cp.settler.add(func(ctx context.Context) error { return cp.settle(ctx, cj, p, fresh, primary, rest) })
		return nil
	}
	return cp.settle(ctx, cj, p, fresh, primary, rest)
}

// settle confirms the new findings of a failing case on pairing p (fresh, in cp.c.Findings:
// primary, each shrunk on its own, and rest, their consequences), judges whether they are
// races, and shrinks them.
func (cp *campaign) settle(ctx context.Context, cj caseJourney, p harness.Pairing, fresh, primary, rest []int) error {
	// With schedules, the case is run again as it ran (asRun: its schedule written out, the
	// campaign's timing included), and the settled run judges whether it is a race.
	if cp.o.Schedules {
		cj = cp.asRun(cj)
	}
	// Confirm first, once for every kind: the case run again on the pairing, with processes of
	// its own. A kind it does not show again is not worth shrinking.
	confirm := *cj.j
	confirm.Name += "-again" // a directory of its own, beside the failing pairing's
	again, err := cp.runOne(ctx, p, &confirm, false)
	if err != nil {
		if ctx.Err() != nil {
			// Cut (by the budget's end, or an interruption) before it could be confirmed:
			// the case is kept as found, so its repro line names a file that exists.
			cp.keepUnshrunk(cj, p, fresh)
		}
		return err
	}
	shows := map[results.Kind]bool{}
	for _, k := range kindsOf(again) {
		shows[k] = true
	}
	if cp.o.Schedules && !cj.c.Schedule.Zero() {
		// Is it a race: does the case with the gate's timing pass?
		var kinds []results.Kind
		for _, i := range primary {
			kinds = append(kinds, cp.c.Findings[i].Kind)
		}
		rates, settled, err := cp.raceRates(ctx, cj, p, again, kinds)
		if err != nil {
			if ctx.Err() != nil {
				cp.keepUnshrunk(cj, p, fresh)
			}
			return err
		}
		for k := range settled {
			shows[k] = true // shown with the gate's timing: confirmed, no race
		}
		for _, i := range primary {
			u := &cp.c.Findings[i]
			if n, race := rates[u.Kind]; race && n > 0 {
				u.Race, u.Schedule, u.Replays, u.Reproduced, shows[u.Kind] = true, cj.c.Schedule.String(), RaceReplays, n, true
				fmt.Fprintf(cp.progress, "fuzz: %s on %s (case %s) is a race: it shows under schedule %s (%d of %d replays), not with the gate's timing\n", u.Kind,
					results.PairingLabel(p.Host.Label, p.Kind, p.Client.Label, "fuzz"), cj.name, u.Schedule, n, RaceReplays)
			}
		}
	}
	for _, i := range primary {
		u := &cp.c.Findings[i]
		if !shows[u.Kind] {
			// The case run again on the pairing does not show the kind: a flaky verdict
			// (timing under load), said as such and not shrunk.
			// The case is kept as it is, so the repro line names a file that exists.
			u.Flaky = true
			c := cj.c.Clone()
			c.Name = safeName(fmt.Sprintf("%s-%s-%s-%s-%s-flaky", cj.c.Name, u.Kind, p.Host.Label, p.Kind, p.Client.Label))
			if err := writeCase(cp.corpus, c); err != nil {
				return fmt.Errorf("write corpus: %w", err)
			}
			u.Shrunk, _ = filepath.Abs(filepath.Join(cp.corpus, c.Name+".txtar"))
			u.Repro = cp.reproOf(p, u.Shrunk)
			fmt.Fprintf(cp.progress, "fuzz: %s on %s (case %s) did not reproduce: flaky; kept as %s\n", u.Kind,
				results.PairingLabel(p.Host.Label, p.Kind, p.Client.Label, "fuzz"), cj.name, u.Shrunk)
			continue
		}
		if reused, err := cp.reuseShrunk(ctx, i, cj, p); err != nil || reused {
			if err != nil {
				return err
			}
			continue
		}
		file, events, runs, repro, err := cp.shrink(ctx, cj.c, p, u.Kind)
		if err != nil {
			return err
		}
		u = &cp.c.Findings[i]
		u.Shrunk, u.ShrunkEvents, u.ShrinkRuns, u.Repro = file, events, runs, repro
	}
	// The consequences go with the first kind: its shrunk case, or its flaky one.
	first := cp.c.Findings[primary[0]]
	for _, k := range rest {
		c := &cp.c.Findings[k]
		c.Shrunk, c.ShrunkEvents, c.Repro, c.Flaky = first.Shrunk, first.ShrunkEvents, first.Repro, first.Flaky
	}
	return nil
}

// asRun is case cj as the campaign ran it: its schedule with the campaign's timing written
// out (a case with no settle line of its own ran without a quiet period, unless --settle
// said otherwise), so running its journey again, alone, times it the same way, and a case
// kept in the corpus replays that way.
func (cp *campaign) asRun(cj caseJourney) caseJourney {
	if cj.c.Schedule.Settle != "" || cp.pooled.Pairing.Settle >= 0 {
		return cj
	}
	c := cj.c.Clone()
	c.Schedule.Settle = fuzz.SettleZero
	j, err := c.Journey(cj.j.File)
	if err != nil {
		return cj // a settle line the journey parser refuses is a skewtest bug; run as it was
	}
	j.Name = cj.j.Name
	return caseJourney{j: j, c: c, name: cj.name}
}

// eventList writes a case's events, or says it has none (a journey run whole).
func eventList(events []string) string {
	if len(events) == 0 {
		return "no event: its setup and finish"
	}
	return strings.Join(events, " ")
}

// kindsOf lists the finding kinds of a pairing's result (nil: none).
func kindsOf(r *results.Pairing) []results.Kind {
	if r == nil {
		return nil
	}
	var out []results.Kind
	for _, f := range r.Findings {
		out = append(out, f.Kind)
	}
	return out
}

// raceRates judges the kinds a failing case showed on pairing p under its schedule. Run
// with the gate's timing (its schedule left out: steps settle), a kind it shows is no
// race: it is in settled, not in rates. Every other kind is a race when replaying the case
// with its schedule shows it: rates counts the replays that did, of RaceReplays (again,
// the confirmation run, is the first).
func (cp *campaign) raceRates(ctx context.Context, cj caseJourney, p harness.Pairing, again *results.Pairing, kinds []results.Kind) (rates map[results.Kind]int, settled map[results.Kind]bool, err error) {
	plain := cj.c.Clone()
	plain.Schedule = fuzz.Schedule{}
	plain.Name += "-settled"
	j, err := plain.Journey(plain.Name + ".txtar")
	if err != nil {
		return nil, nil, fmt.Errorf("case %s without its schedule: %w", cj.name, err)
	}
	r, err := cp.runOne(ctx, p, j, false)
	if err != nil {
		return nil, nil, err
	}
	rates, settled = map[results.Kind]int{}, map[results.Kind]bool{}
	for _, k := range kinds {
		rates[k] = 0
	}
	for _, k := range kindsOf(r) {
		if _, ok := rates[k]; ok {
			delete(rates, k) // shown settled: no race
			settled[k] = true
		}
	}
	if len(rates) == 0 {
		return rates, settled, nil
	}
	count := func(r *results.Pairing) {
		seen := map[results.Kind]bool{}
		for _, k := range kindsOf(r) {
			if _, ok := rates[k]; ok && !seen[k] {
				seen[k] = true
				rates[k]++
			}
		}
	}
	count(again)
	for n := 2; n <= RaceReplays; n++ {
		replay := *cj.j
		replay.Name += fmt.Sprintf("-replay%d", n)
		r, err := cp.runOne(ctx, p, &replay, false)
		if err != nil {
			return nil, nil, err
		}
		count(r)
	}
	return rates, settled, nil
}

// keepUnshrunk writes a failing case that could be neither confirmed nor shrunk to the
// corpus as it was drawn, and points the findings at it (Shrunk, Repro).
func (cp *campaign) keepUnshrunk(cj caseJourney, p harness.Pairing, findings []int) {
	if cj.c == nil || len(findings) == 0 {
		return
	}
	c := cj.c.Clone()
	c.Name = safeName(fmt.Sprintf("%s-%s-%s-%s-unshrunk", cj.c.Name, p.Host.Label, p.Kind, p.Client.Label))
	if err := writeCase(cp.corpus, c); err != nil {
		fmt.Fprintf(cp.progress, "fuzz: write corpus: %v\n", err)
		return
	}
	file, _ := filepath.Abs(filepath.Join(cp.corpus, c.Name+".txtar"))
	for _, i := range findings {
		u := &cp.c.Findings[i]
		u.Shrunk, u.ShrunkEvents, u.Unshrunk, u.Repro = file, c.EventNames(), true, cp.reproOf(p, file)
	}
}

// reproOf is the repro line of pairing p with the case in file.
func (cp *campaign) reproOf(p harness.Pairing, file string) string {
	j := *p.Journey
	j.File, j.Listed, p.Journey = file, false, &j
	return cp.o.ReproLine(p)
}

// shrink minimises a failing case on its pairing, writes it to the corpus, and runs it
// once more from its file so results.json has the pairing with a repro line naming it. The
// case showed kind when run again (found confirmed it); runs counts that run too.
func (cp *campaign) shrink(ctx context.Context, c *fuzz.Case, p harness.Pairing, kind results.Kind) (file string, events []string, runs int, repro string, err error) {
	try := 0
	fails := func(ctx context.Context, cand *fuzz.Case) (bool, error) {
		try++
		cand.Name = fmt.Sprintf("%s-shrink%d", c.Name, try)
		j, err := cand.Journey(cand.Name + ".txtar")
		if err != nil {
			return false, nil // a candidate the journey parser refuses is not the failure
		}
		r, err := cp.runOne(ctx, p, j, false)
		if err != nil || r == nil {
			return false, err
		}
		for _, f := range r.Findings {
			if f.Kind == kind {
				return true, nil
			}
		}
		return false, nil
	}
	// Shrinking stops at the budget's end (ctx's deadline), or at the end of its share of
	// the budget, with the smallest failing case so far.
	sctx, stop := cp.shrinkWindow(ctx)
	small, runs, err := fuzz.Shrink(sctx, c, fails, cp.o.ShrinkTries)
	shared := sctx.Err() != nil && ctx.Err() == nil
	stop()
	runs++
	late := cp.cut()
	if err != nil && ctx.Err() == nil && !shared {
		return "", nil, runs, "", err
	}
	switch {
	case late:
		fmt.Fprintf(cp.progress, "fuzz: past the budget: shrinking %s stopped at %s\n", c.Name, eventList(small.EventNames()))
	case shared:
		fmt.Fprintf(cp.progress, "fuzz: shrinking %s took its share of the budget (1/%d): stopped at %s\n", c.Name, ShrinkShare, eventList(small.EventNames()))
	}
	small.Name = safeName(fmt.Sprintf("%s-%s-%s-%s-%s-min", c.Name, kind, p.Host.Label, p.Kind, p.Client.Label))
	if err := writeCase(cp.corpus, small); err != nil {
		return "", nil, runs, "", fmt.Errorf("write corpus: %w", err)
	}
	file, _ = filepath.Abs(filepath.Join(cp.corpus, small.Name+".txtar"))
	fmt.Fprintf(cp.progress, "fuzz: shrunk %s to %s (%s) in %d runs\n", c.Name, file, eventList(small.EventNames()), runs)
	j, err := journeys.Load(file)
	if err != nil {
		return "", nil, runs, "", fmt.Errorf("read back %s: %w", file, err)
	}
	r, err := cp.runOne(ctx, p, j, true)
	if r == nil || ctx.Err() != nil { // the run did not happen (cancelled): the line is made here
		return file, small.EventNames(), runs, cp.reproOf(p, file), nil
	}
	if err != nil {
		return "", nil, runs, "", err
	}
	cp.run.Pairings = append(cp.run.Pairings, r)
	return file, small.EventNames(), runs, r.Repro, nil
}

// reuseShrunk tries, for finding i of case cj on pairing p, the journey the same case was
// already shrunk to for the same kind on another pairing: a case whose finding shows on
// several pairings (both client kinds, both skew directions) is the same bug more often
// than not, and one run of the shrunk journey costs far less than shrinking again. When
// that run shows the kind, finding i takes the shrunk journey (ShrinkRuns 1) and true is
// returned; else the case is shrunk on p as usual.
func (cp *campaign) reuseShrunk(ctx context.Context, i int, cj caseJourney, p harness.Pairing) (bool, error) {
	u := cp.c.Findings[i]
	k := slices.IndexFunc(cp.c.Findings, func(f results.CampaignFinding) bool {
		return f.First == cj.name && f.Kind == u.Kind && f.Shrunk != "" && f.ShrinkRuns > 0 && !f.Flaky && !f.Unshrunk && !f.Race
	})
	if k < 0 || k == i {
		return false, nil
	}
	prev := cp.c.Findings[k]
	j, err := journeys.Load(prev.Shrunk)
	if err != nil {
		return false, fmt.Errorf("read back %s: %w", prev.Shrunk, err)
	}
	r, err := cp.runOne(ctx, p, j, true)
	if ctx.Err() != nil {
		return false, nil // cut: shrink keeps the case as drawn
	}
	if r == nil || err != nil {
		return false, err
	}
	if !slices.Contains(kindsOf(r), u.Kind) {
		return false, nil
	}
	cp.run.Pairings = append(cp.run.Pairings, r)
	f := &cp.c.Findings[i]
	f.Shrunk, f.ShrunkEvents, f.ShrinkRuns, f.Repro = prev.Shrunk, prev.ShrunkEvents, 1, r.Repro
	fmt.Fprintf(cp.progress, "fuzz: %s on %s (case %s) shows with the journey it was shrunk to on %s: %s\n", u.Kind,
		results.PairingLabel(p.Host.Label, p.Kind, p.Client.Label, "fuzz"), cj.name,
		results.PairingLabel(prev.Host, prev.ClientKind, prev.Client, "fuzz"), prev.Shrunk)
	return true, nil
}

// shrinkWindow is the context one finding's shrink runs under: ctx, ended also at the
// finding's share of a budget (ShrinkShare) from now; ctx alone without a budget.
func (cp *campaign) shrinkWindow(ctx context.Context) (context.Context, context.CancelFunc) {
	if cp.deadline.IsZero() || cp.o.Budget <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, cp.o.Budget/ShrinkShare)
}

// runOne runs journey j on the builds of pairing p, with the references it is checked
// against, and returns p's result (nil when it did not run). Its pairings' directories are
// removed unless keep is set.
func (cp *campaign) runOne(ctx context.Context, p harness.Pairing, j *journeys.Journey, keep bool) (*results.Pairing, error) {
	q := p
	q.Journey, q.Index = j, 0
	plan := harness.Number(harness.WithReferences([]harness.Pairing{q}))
	batch := &results.Run{}
	cp.execute(ctx, plan, batch, cp.opts)
	cp.c.Pairings += len(batch.Pairings)
	cp.countProcesses(batch, cp.opts)
	// The pairing's run and its future-peer pass: what either found, it shows.
	var out *results.Pairing
	for _, r := range batch.Pairings {
		if r.Host == p.Host.Label && r.Client == p.Client.Label && r.ClientKind == p.Kind {
			if out == nil {
				c := *r
				out = &c
			} else {
				out.Findings = append(slices.Clip(out.Findings), r.Findings...)
			}
		}
		if !keep {
			cp.discard(r)
		}
	}
	return out, ctx.Err()
}

// replayCorpus runs every journey in the corpus directory (minimised failures first,
// then the kept passing cases) before any new case.
func (cp *campaign) replayCorpus(ctx context.Context) error {
	var files []string
	for _, pat := range []string{"*.txtar", "passing/*.txtar"} {
		m, _ := filepath.Glob(filepath.Join(cp.o.Corpus, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil
	}
	fmt.Fprintf(cp.stdout, "corpus: replaying %s from %s\n", results.Plural(len(files), "case"), cp.o.Corpus)
	var cjs []caseJourney
	for _, f := range files {
		cj, err := corpusCase(f)
		if err != nil {
			return err
		}
		cjs = append(cjs, cj)
	}
	// In lanes, as the cases: a night's corpus of a few dozen journeys would otherwise
	// start two driver processes a pairing (measured: 20 journeys, 566 processes, a minute).
	_, err := cp.runJourneys(ctx, cjs, true, cp.pooled)
	return err
}

// corpusCase reads one journey of the corpus as a case to replay. A case drawn with a
// differential event is judged as it was when drawn: its file says so
// (fuzz.MarkedDifferential).
func corpusCase(file string) (caseJourney, error) {
	abs, _ := filepath.Abs(file)
	j, err := journeys.Load(abs)
	if err != nil {
		return caseJourney{}, err
	}
	if err := harness.Validate(j); err != nil {
		return caseJourney{}, err
	}
	text, err := os.ReadFile(abs)
	if err != nil {
		return caseJourney{}, err
	}
	j.Name = "corpus-" + j.Name
	return caseJourney{j: j, name: j.Name, marked: fuzz.MarkedDifferential(text)}, nil
}
