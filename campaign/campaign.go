package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/fuzz"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/journeys"
	"github.com/skewtest/skewtest/matrix"
	"github.com/skewtest/skewtest/pins"
	"github.com/skewtest/skewtest/reports"
	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/subject"
)

// campaign is one fuzz campaign under way.
type campaign struct {
	o        *Config
	stdout   io.Writer
	progress io.Writer
	gens     []*fuzz.Generator
	built    []*harness.Build
	// pairs are the (host, client) builds every case runs on, references aside.
	pairs [][2]*harness.Build
	// opts run a case on processes of its own; pooled runs cases in lanes of the campaign's
	// shared driver processes (the bulk of the campaign).
	opts    harness.ExecuteOptions
	pooled  harness.ExecuteOptions
	pool    *harness.Pool
	run     *results.Run
	c       *results.Campaign
	corpus  string
	unique  map[string]int // finding key → index in c.Findings
	started time.Time
	// seen holds event pairs passing cases have covered: a case with a new one is kept
	// in the corpus as an interesting passing case (at most keepPassing per campaign).
	seen map[string]bool
	kept int
}

// keepPassing bounds how many passing cases one campaign adds to the corpus.
const keepPassing = 20

// Run runs a fuzz campaign and writes its reports; the run it returns holds the campaign's
// findings (its ExitCode is the command's). An interrupted campaign writes its reports,
// marked interrupted, and returns them with an error that says so.
func Run(ctx context.Context, o Config) (*results.Run, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	stdout, stderr := o.Stdout, o.Stderr
	s, err := o.open()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	if len(cfg.Fuzz) == 0 {
		return nil, subject.Usagef("%s lists no generators: add fuzz: [\"fuzz/*.txtar\"] (see docs/fuzz.md)", filepath.Join(o.Repo, builds.ConfigFile))
	}
	gens, err := fuzz.LoadSet(o.Repo, cfg.Fuzz)
	if err != nil {
		return nil, err
	}
	if gens, err = pickGenerators(gens, o.Generators); err != nil {
		return nil, err
	}
	if gens, err = generatorsFor(gens, o.Kinds); err != nil {
		return nil, err
	}
	// Every generator must make journeys the vocabulary knows: draw one case of each.
	for _, g := range gens {
		if err := checkGenerator(g, o.Seed, o.Exclude); err != nil {
			return nil, err
		}
	}
	support, err := s.Support(ctx)
	if err != nil {
		return nil, err
	}
	mode := "cases"
	if o.Budget > 0 {
		mode = "budget"
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Seed: o.Seed, Repo: o.Repo, Started: time.Now()}
	run.Campaign = &results.Campaign{Seed: o.Seed, Mode: mode, Budget: o.Budget, Generators: map[string]int{}, Events: map[string]int{},
		Findings: []results.CampaignFinding{}, CaseList: []results.CampaignCase{}}
	fmt.Fprintf(stdout, "skewtest fuzz: seed %d\n", o.Seed)
	// The report directory is this campaign's from here on, as a run's (a corpus kept in it
	// stays where it is).
	release, err := matrix.ClaimReportDir(o.ReportDir, []string{"fuzz"})
	if err != nil {
		return nil, err
	}
	defer release()
	// A campaign interrupted during its builds still writes every report, marked
	// interrupted (as an interrupted run does); one interrupted later says so below.
	interrupted := func() (*results.Run, error) {
		run.Interrupted, run.Finished = true, time.Now()
		if err := reports.Write(o.ReportDir, run); err != nil {
			return nil, fmt.Errorf("write reports: %w", err)
		}
		fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
		return run, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	built, src, err := matrix.Prepare(ctx, &o.Config, run)
	hostIdx, clientIdx := src.HostIdx, src.ClientIdx
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return nil, err
	}
	cp := &campaign{o: &o, stdout: stdout, progress: stderr, gens: gens, built: built, run: run, c: run.Campaign,
		unique: map[string]int{}, seen: map[string]bool{}}
	if hostIdx >= 0 {
		h, c := built[hostIdx], built[clientIdx]
		cp.pairs = [][2]*harness.Build{{h, c}}
		if h != c {
			cp.pairs = append(cp.pairs, [2]*harness.Build{c, h})
		}
	} else {
		for _, p := range built[1:] {
			cp.pairs = append(cp.pairs, [2]*harness.Build{p, built[0]}, [2]*harness.Build{built[0], p})
		}
		if len(built) == 1 {
			cp.pairs = [][2]*harness.Build{{built[0], built[0]}}
		}
	}
	cp.corpus = o.Corpus
	if cp.corpus == "" {
		cp.corpus = filepath.Join(o.ReportDir, "corpus")
	}
	cp.opts = harness.ExecuteOptions{
		ReportDir: o.ReportDir,
		// Passing pairings leave nothing behind (thousands of transcripts are not worth
		// writing); failing ones stay under pairings/.
		Pairing:  harness.Options{Timeout: o.Timeout, Quiet: o.Quiet, Settle: o.Settle, Older: pins.Older, Support: support, DiscardPassing: true},
		Repro:    func(p harness.Pairing) string { return o.ReproLine(p) },
		Parallel: o.Parallel,
	}
	if o.Verbose {
		cp.opts.Progress, cp.opts.Verbose = stderr, true
	}
	// The campaign's cases run in lanes of driver processes it keeps from start to end (one
	// per build, role and client kind), where the drivers serve lanes.
	cp.pool = harness.NewPool(ctx, harness.PoolOptions{Dir: filepath.Join(o.ReportDir, reports.DriversDir)})
	cp.pooled = cp.opts
	cp.pooled.Pairing.Pool = cp.pool
	if o.Settle == 0 {
		// A packed case is hundreds of tiny steps, and a settle period on each would cost
		// most of the campaign's rate (measured: 9,200 session cases/min without, 1,020 with
		// 50ms). Without it a step still waits for its replies and for what the references
		// owe, and the checks tolerate a frame that crossed into the next step; a case that
		// fails is confirmed alone, with the default settle period.
		cp.pooled.Pairing.Settle = -1
	}
	cp.started = time.Now()
	if cp.pool.Warm(cp.warmPlan()) {
		if !o.ParallelGiven {
			cp.pooled.Parallel = harness.DefaultLaneParallel()
		}
		fmt.Fprintf(stdout, "lanes: %s serve every case, %d pairings at once\n", matrix.Plural(cp.pool.Processes(), "shared driver process"), cp.pooled.Parallel)
	}
	err = cp.go_(ctx)
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	cp.pool.Close(closeCtx)
	cancel()
	cp.c.DriverProcesses += cp.pool.Processes()
	run.Finished = time.Now()
	cp.c.Duration = time.Since(cp.started)
	if m := cp.c.Duration.Minutes(); m > 0 {
		cp.c.CasesPerMin = float64(cp.c.Cases+cp.c.CorpusCases) / m
	}
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if ctx.Err() != nil {
		// Stopped in the middle of a case, a confirmation or a shrink (whose error is the
		// interruption's): what the campaign found so far goes in the reports, not only on
		// stderr.
		run.Interrupted = true
	}
	if werr := reports.Write(o.ReportDir, run); werr != nil {
		return nil, fmt.Errorf("write reports: %w", werr)
	}
	fmt.Fprintf(stdout, "\nfuzz: %d cases (%d from the corpus) in %s, %.0f cases/min, %d pairings, %s; %s\n",
		cp.c.Cases+cp.c.CorpusCases, cp.c.CorpusCases, cp.c.Duration.Round(time.Millisecond), cp.c.CasesPerMin, cp.c.Pairings,
		matrix.Plural(cp.c.DriverProcesses, "driver process"), matrix.Plural(len(cp.c.Findings), "unique finding"))
	for _, f := range cp.c.Findings {
		what := fmt.Sprintf("shrunk to %s (%s)", f.Shrunk, strings.Join(f.ShrunkEvents, " "))
		switch {
		case f.Flaky:
			what = "did not reproduce when run again (flaky), not shrunk: " + f.Shrunk
		case f.Shrunk == "":
			what = "not shrunk: the campaign was interrupted first"
		}
		fmt.Fprintf(stdout, "  %s on %s: %d cases, first %s; %s\n    %s\n",
			f.Kind, results.PairingLabel(f.Host, f.ClientKind, f.Client, "fuzz"), f.Cases, f.First, what, f.Repro)
	}
	fmt.Fprintf(stdout, "reports: %s\n", o.ReportDir)
	if ctx.Err() != nil {
		return run, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return run, nil
}

func pickGenerators(gens []*fuzz.Generator, names []string) ([]*fuzz.Generator, error) {
	if len(names) == 0 {
		return gens, nil
	}
	var out []*fuzz.Generator
	var have []string
	for _, g := range gens {
		have = append(have, g.Name)
	}
	for _, n := range names {
		i := slices.Index(have, n)
		if i < 0 {
			return nil, subject.Usagef("--generator %s: no such generator (the subject has %s)", n, strings.Join(have, ", "))
		}
		out = append(out, gens[i])
	}
	return out, nil
}

// generatorsFor keeps the generators that drive one of kinds (all of them when kinds is
// empty): --kind desktop leaves out a generator of session cases.
func generatorsFor(gens []*fuzz.Generator, kinds []string) ([]*fuzz.Generator, error) {
	if len(kinds) == 0 {
		return gens, nil
	}
	var out []*fuzz.Generator
	for _, g := range gens {
		for _, k := range strings.Split(g.Kinds, ",") {
			if k = strings.TrimSpace(k); k == journeys.AnyKind || slices.Contains(kinds, k) {
				out = append(out, g)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, subject.Usagef("--kind %s: no generator drives it (%s)", strings.Join(kinds, ","), kindsOfGens(gens))
	}
	return out, nil
}

// checkGenerator draws cases of g until each of its events has appeared once (or a few
// dozen tries) and validates them, so a generator that writes a bad journey is a
// configuration error before anything is built.
func checkGenerator(g *fuzz.Generator, seed int64, exclude []string) error {
	for i := 1; i <= 32; i++ {
		c, err := fuzz.Draw([]*fuzz.Generator{g}, seed, -i, fuzz.Options{Exclude: exclude})
		if err != nil {
			return subject.Usagef("%v", err)
		}
		j, err := c.Journey(g.File + " (case drawn)")
		if err == nil {
			err = harness.Validate(j)
		}
		if err != nil {
			return subject.Usagef("generator %s writes a journey the vocabulary refuses: %v\n%s", g.File, err, numbered(c.Text()))
		}
	}
	return nil
}

func numbered(text []byte) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		if len(l) > 160 {
			l = l[:160] + "…"
		}
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

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

// go_ replays the corpus, then runs cases in batches until the count or budget is spent.
func (cp *campaign) go_(ctx context.Context) error {
	if cp.o.Corpus != "" {
		if err := cp.replayCorpus(ctx); err != nil {
			return err
		}
	}
	deadline := time.Time{}
	if cp.o.Budget > 0 {
		deadline = cp.started.Add(cp.o.Budget)
	}
	// A case's skew pairings wait for its references: a batch of several cases keeps -j
	// pairings busy while some wait.
	batch := cp.o.Batch
	if batch <= 0 {
		most := 1
		for _, g := range cp.gens {
			most = max(most, cp.packOf(g))
		}
		batch = max(2, cp.pooled.Parallel) * most
	}
	next := 1
	for ctx.Err() == nil {
		if deadline.IsZero() && next > cp.o.Cases {
			break
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		n := batch
		if deadline.IsZero() {
			n = min(n, cp.o.Cases-next+1)
		}
		var cases []*fuzz.Case
		for k := range n {
			c, err := fuzz.Draw(cp.gens, cp.o.Seed, next+k, fuzz.Options{Exclude: cp.o.Exclude})
			if err != nil {
				return subject.Usagef("%v", err)
			}
			cases = append(cases, c)
		}
		next += n
		if err := cp.runCases(ctx, cases); err != nil {
			return err
		}
		cp.report()
	}
	return nil
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
	fmt.Fprintf(cp.progress, "fuzz: %d cases, %.0f cases/min, %s, %s\n", cp.c.Cases+cp.c.CorpusCases, rate,
		matrix.Plural(len(cp.c.Findings), "unique finding"), d.Round(time.Second))
}

// caseJourney is one case to run: its journey and, for a generated case, the case.
type caseJourney struct {
	j    *journeys.Journey
	c    *fuzz.Case // nil for a corpus journey
	name string
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
func (cp *campaign) runCases(ctx context.Context, cases []*fuzz.Case) error {
	var cjs []caseJourney
	for _, c := range cases {
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
		return cp.runJourneys(ctx, cjs, false, cp.pooled)
	}
	return cp.runPacked(ctx, cjs)
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
			return subject.Usagef("generator %s, case %d: %v\n%s", c.Gen.File, c.Index, err, numbered(c.Text()))
		}
		cjs[i].j = j
	}
	return nil
}

// packOf is how many cases of generator g share a journey: --pack, else the generator's pack
// line, else DefaultPack.
func (cp *campaign) packOf(g *fuzz.Generator) int {
	switch {
	case cp.o.Pack > 0:
		return cp.o.Pack
	case g.Pack > 0:
		return g.Pack
	}
	return DefaultPack
}

// runPacked runs the batch's cases packed (fuzz.Pack) several to a journey, so a pairing's
// driver processes and connection serve many cases. Every case of a packed journey that
// passes on every pairing passes; the cases of one that does not are run again alone, so
// a verdict, a finding and a shrink are always a single case's.
func (cp *campaign) runPacked(ctx context.Context, cjs []caseJourney) error {
	var packs [][]caseJourney
	byGen := map[*fuzz.Generator]int{}
	for _, cj := range cjs {
		i, ok := byGen[cj.c.Gen]
		if !ok || len(packs[i]) >= cp.packOf(cj.c.Gen) {
			byGen[cj.c.Gen] = len(packs)
			packs = append(packs, nil)
			i = len(packs) - 1
		}
		packs[i] = append(packs[i], cj)
	}
	var plan []harness.Pairing
	var owner []int
	packed := make([]caseJourney, len(packs))
	for i, pk := range packs {
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
			return subject.Usagef("generator %s, pack of cases %s…: %v", c.Gen.File, pk[0].name, err)
		}
		packed[i] = caseJourney{j: j, c: c, name: c.Name}
		ps := cp.plan(j)
		plan = append(plan, ps...)
		for range ps {
			owner = append(owner, i)
		}
	}
	plan = harness.Number(plan)
	batch := &results.Run{}
	harness.Execute(ctx, plan, batch, cp.pooled)
	cp.run.Interrupted = cp.run.Interrupted || batch.Interrupted
	cp.run.NotRun += batch.NotRun
	cp.c.Pairings += len(batch.Pairings)
	ran := make([]int, len(packs))
	failed := make([][]int, len(packs)) // each pack's failing pairings, by plan position
	for _, r := range batch.Pairings {
		i := owner[r.Index-1]
		ran[i]++
		if r.Status != results.StatusPass && r.Status != results.StatusExpectedRefusal {
			failed[i] = append(failed[i], r.Index-1)
		}
	}
	byIndex := map[int]*results.Pairing{}
	for _, r := range batch.Pairings {
		byIndex[r.Index-1] = r
	}
	for i, pk := range packs {
		if ctx.Err() != nil {
			return nil
		}
		if len(failed[i]) == 0 && ran[i] > 0 {
			for _, cj := range pk {
				cp.c.CaseList = append(cp.c.CaseList, results.CampaignCase{Name: cj.name, Events: cj.c.EventNames(), Status: results.StatusPass})
				cp.c.Cases++
				if cp.o.Corpus != "" {
					cp.keepIfNew(cj.c)
				}
			}
			continue
		}
		before := len(cp.c.CaseList)
		// Case by case, in lanes like the pack: a shared process that exits is run again on
		// processes of the pairing's own (harness.Run), and a finding is confirmed on them
		// before it is shrunk (found).
		if err := withJourneys(pk); err != nil {
			return err
		}
		if err := cp.runJourneys(ctx, pk, false, cp.pooled); err != nil {
			return err
		}
		if slices.ContainsFunc(cp.c.CaseList[before:], func(c results.CampaignCase) bool { return c.Status == results.StatusFail }) {
			// A case shows it alone: the pack's failing pairings are not worth keeping.
			for _, k := range failed[i] {
				if r := byIndex[k]; r.Transcript != "" {
					_ = os.RemoveAll(filepath.Join(cp.o.ReportDir, filepath.Dir(filepath.FromSlash(r.Transcript))))
				}
			}
		} else {
			// Every case passes alone, yet the pack failed: what fails is how its cases
			// follow one another on one connection, so the pack is the failing case.
			for _, k := range failed[i] {
				switch r := byIndex[k]; r.Status {
				case results.StatusFail:
					if err := cp.found(ctx, packed[i], plan[k], r, false); err != nil {
						return err
					}
				case results.StatusError:
					cp.run.Pairings = append(cp.run.Pairings, r) // the harness broke on the pack
				}
			}
		}
	}
	return nil
}

// runJourneys runs cases, each as its own journey, with opts (in lanes or not).
func (cp *campaign) runJourneys(ctx context.Context, cjs []caseJourney, fromCorpus bool, opts harness.ExecuteOptions) error {
	var plan []harness.Pairing
	owner := []int{}
	for i, cj := range cjs {
		ps := cp.plan(cj.j)
		plan = append(plan, ps...)
		for range ps {
			owner = append(owner, i)
		}
	}
	if len(plan) == 0 {
		return subject.Usagef("nothing to fuzz: the generators drive %s; the builds have client drivers for %s", kindsOfGens(cp.gens), subject.OrNone(harness.KindsOf(cp.built...)))
	}
	plan = harness.Number(plan)
	batch := &results.Run{}
	harness.Execute(ctx, plan, batch, opts)
	cp.run.Interrupted = cp.run.Interrupted || batch.Interrupted
	cp.run.NotRun += batch.NotRun
	cp.c.Pairings += len(batch.Pairings)
	cp.countProcesses(batch, opts)
	// Execute records pairings in plan order, leaving out the ones not run.
	byIndex := map[int]*results.Pairing{}
	for _, r := range batch.Pairings {
		byIndex[r.Index] = r
	}
	status := make([]results.Status, len(cjs))
	for i := range status {
		status[i] = results.StatusPass
	}
	for k, p := range plan {
		r := byIndex[p.Index]
		if r == nil {
			continue
		}
		i := owner[k]
		status[i] = worse(status[i], r.Status)
		switch r.Status {
		case results.StatusPass, results.StatusExpectedRefusal:
			// A passing pairing's directory is not worth keeping by the thousand.
			if r.Transcript != "" {
				_ = os.RemoveAll(filepath.Join(cp.o.ReportDir, filepath.Dir(filepath.FromSlash(r.Transcript))))
			}
		case results.StatusFail:
			if err := cp.found(ctx, cjs[i], p, r, fromCorpus); err != nil {
				return err
			}
		default:
			cp.run.Pairings = append(cp.run.Pairings, r)
		}
	}
	for i, cj := range cjs {
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
	return nil
}

func kindsOfGens(gens []*fuzz.Generator) string {
	var out []string
	for _, g := range gens {
		out = append(out, g.Name+" drives "+g.Kinds)
	}
	return strings.Join(out, "; ")
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

// keepIfNew keeps a passing case in the corpus when it draws an event pair no kept case
// has drawn.
func (cp *campaign) keepIfNew(c *fuzz.Case) {
	if cp.kept >= keepPassing {
		return
	}
	ev := append([]string{"^"}, c.EventNames()...)
	fresh := false
	for i := 1; i < len(ev); i++ {
		k := c.Gen.Name + "/" + ev[i-1] + ">" + ev[i]
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

// consequences are finding kinds that usually follow from another finding of the same
// pairing (a stall after a refusal, a journey cut short, a driver reporting the detach the
// checks name as data loss): they are not shrunk on their own when the case has another.
var consequences = []results.Kind{results.Stall, results.IncompleteJourney, results.DriverError}

// found records a failing pairing of a case: a finding kind new on this pairing is a
// unique finding; one seen before is counted. The case is shrunk on the pairing for each
// new kind that is not one of the consequences, and written to the corpus; the new
// consequences name the first shrunk file.
func (cp *campaign) found(ctx context.Context, cj caseJourney, p harness.Pairing, r *results.Pairing, fromCorpus bool) error {
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
			ClientKind: p.Kind, Cases: 1, First: cj.name, Message: f.Message, Repro: r.Repro})
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
	// Confirm first, once for every kind: the case run again on the pairing, with processes of
	// its own. A kind it does not show again is not worth shrinking.
	confirm := *cj.j
	confirm.Name += "-again" // a directory of its own, beside the failing pairing's
	again, err := cp.runOne(ctx, p, &confirm, false)
	if err != nil {
		return err
	}
	shows := map[results.Kind]bool{}
	if again != nil {
		for _, f := range again.Findings {
			shows[f.Kind] = true
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
	small, runs, err := fuzz.Shrink(ctx, c, fails, cp.o.ShrinkTries)
	runs++
	if err != nil && ctx.Err() == nil {
		return "", nil, runs, "", err
	}
	small.Name = safeName(fmt.Sprintf("%s-%s-%s-%s-%s-min", c.Name, kind, p.Host.Label, p.Kind, p.Client.Label))
	if err := writeCase(cp.corpus, small); err != nil {
		return "", nil, runs, "", fmt.Errorf("write corpus: %w", err)
	}
	file, _ = filepath.Abs(filepath.Join(cp.corpus, small.Name+".txtar"))
	fmt.Fprintf(cp.progress, "fuzz: shrunk %s to %s (%s) in %d runs\n", c.Name, file, strings.Join(small.EventNames(), " "), runs)
	j, err := journeys.Load(file)
	if err != nil {
		return "", nil, runs, "", fmt.Errorf("read back %s: %w", file, err)
	}
	r, err := cp.runOne(ctx, p, j, true)
	if err != nil {
		return "", nil, runs, "", err
	}
	if r == nil { // the run did not happen (cancelled): the line is made here
		return file, small.EventNames(), runs, cp.reproOf(p, file), nil
	}
	cp.run.Pairings = append(cp.run.Pairings, r)
	return file, small.EventNames(), runs, r.Repro, nil
}

// runOne runs journey j on the builds of pairing p, with the references it is checked
// against, and returns p's result (nil when it did not run).
// Its pairings' directories are removed unless keep is set.
func (cp *campaign) runOne(ctx context.Context, p harness.Pairing, j *journeys.Journey, keep bool) (*results.Pairing, error) {
	q := p
	q.Journey, q.Index = j, 0
	plan := harness.Number(harness.WithReferences([]harness.Pairing{q}))
	batch := &results.Run{}
	harness.Execute(ctx, plan, batch, cp.opts)
	cp.c.Pairings += len(batch.Pairings)
	cp.countProcesses(batch, cp.opts)
	var out *results.Pairing
	for _, r := range batch.Pairings {
		if r.Host == p.Host.Label && r.Client == p.Client.Label && r.ClientKind == p.Kind {
			out = r
		}
		if !keep && r.Transcript != "" {
			_ = os.RemoveAll(filepath.Join(cp.o.ReportDir, filepath.Dir(filepath.FromSlash(r.Transcript))))
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
	fmt.Fprintf(cp.stdout, "corpus: replaying %s from %s\n", matrix.Plural(len(files), "case"), cp.o.Corpus)
	var cjs []caseJourney
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		j, err := journeys.Load(abs)
		if err != nil {
			return err
		}
		if err := harness.Validate(j); err != nil {
			return err
		}
		j.Name = "corpus-" + j.Name
		cjs = append(cjs, caseJourney{j: j, name: j.Name})
	}
	return cp.runJourneys(ctx, cjs, true, cp.opts)
}
