// Package bisect answers which change made a pairing fail. One side of the pairing moves
// along its history, from a ref where the pairing passes to one where it fails; the other
// side stays fixed. The walk goes first over the release tags between the two, to the
// release where the pairing first breaks, then over the commits between the last good tag
// and the first bad one, to the commit that did it. Each candidate runs through the same
// library a run does (matrix.Run: the build cache, the references, the checks), so a
// candidate's verdict is the one `skewtest repro` would give it. A candidate that does not
// build, or that the harness cannot run, is skipped and named, as git bisect skip does; one
// whose verdict flips across retries is flaky and never taken as good or bad.
package bisect

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// Sides a bisection moves.
const (
	Host   = "host"
	Client = "client"
	// Contract is a static bisection's: the contract moves, diffed against a fixed one.
	Contract = "contract"
)

// Config is one bisection.
type Config struct {
	// Repo is the subject's repository; ReportDir receives results.json, the reports and
	// one report directory per candidate (candidates/); CacheDir is the build cache.
	Repo, ReportDir, CacheDir string
	// Host, Client, Kind and Journey are the failing pairing (as repro names it).
	Host, Client, Kind, Journey string
	// Side is the side that moves: Host or Client. Empty: the working tree's side, else the
	// side whose ref is the newer release.
	Side string
	// Good and Bad are the moving side's refs to walk between. Good defaults to the fixed
	// side's ref (a build paired with itself is the reference: compatible by definition);
	// Bad to the moving side's ref in the pairing.
	Good, Bad string
	// Seed drives every random choice of every candidate's run (0: 1, so a bisection is
	// the same every time unless told otherwise).
	Seed int64
	// Retries reruns a failing candidate; one whose attempts disagree is flaky.
	Retries int
	// Env, Timeout, Quiet, Settle, Parallel and Runner are the run's (matrix.Config).
	Env                    []string
	Timeout, Quiet, Settle time.Duration
	Parallel               int
	Runner                 func(ctx context.Context, log io.Writer) (builds.Runner, func(), error)
	// Stdout gets the answer; Stderr a line per candidate. Nil discards.
	Stdout, Stderr io.Writer
	// Progress, when set, gets each candidate's run as it goes: its builds and its
	// pairings, as run prints them (-v). Nil: a line per candidate only.
	Progress io.Writer
}

// CandidatesDir holds each candidate's report directory, under the bisection's.
const CandidatesDir = "candidates"

// Run bisects and writes the reports. The run it returns holds the walk (Bisect) and the
// pairings of the last good and first bad candidates; its exit code is theirs. A good ref
// where the pairing fails, or a bad ref where it passes, is a usage error: there is nothing
// to walk between them.
func Run(ctx context.Context, c Config) (*results.Run, error) {
	if err := c.defaults(); err != nil {
		return nil, err
	}
	fixed := c.Client
	if c.Side == Client {
		fixed = c.Host
	}
	return execute(ctx, &c, []string{"bisect"}, func(pts []point) (*bisection, error) {
		b := newBisection(&c, pts, fixed, &results.Bisect{Side: c.Side, Fixed: fixed, Kind: c.Kind, Journey: c.Journey, Good: c.Good, Bad: c.Bad})
		b.try = b.runPairing
		fmt.Fprintf(c.Stderr, "bisect: the %s side moves from %s to %s (%s), %s %s fixed; seed %d\n",
			c.Side, c.Good, c.Bad, results.Plural(len(pts), "build"), results.OtherSide(c.Side), fixed, c.Seed)
		return b, nil
	})
}

// execute claims the report directory, lays the line from good to bad, walks it with the
// bisection prepare makes, and writes the reports.
func execute(ctx context.Context, c *Config, command []string, prepare func([]point) (*bisection, error)) (*results.Run, error) {
	release, err := matrix.ClaimReportDir(c.ReportDir, command)
	if err != nil {
		return nil, err
	}
	defer release()
	pts, err := line(ctx, c.Repo, c.Good, c.Bad)
	if err != nil {
		return nil, err
	}
	b, err := prepare(pts)
	if err != nil {
		return nil, err
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", ToolVersion: version.String(), Seed: c.Seed, Repo: c.Repo, Started: time.Now(), Bisect: b.out}
	if err := b.walk(ctx); err != nil {
		return nil, err
	}
	b.finish(run)
	run.Finished = time.Now()
	if err := reports.Write(c.ReportDir, run); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	b.print(c.Stdout)
	return run, nil
}

func newBisection(c *Config, pts []point, fixed string, out *results.Bisect) *bisection {
	return &bisection{c: c, pts: pts, fixed: fixed, tested: map[int]*tested{}, out: out}
}

// outputs makes nil writers discard, and fills the report directory.
func (c *Config) outputs() {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.ReportDir == "" {
		c.ReportDir = "skewtest-report"
	}
}

func (c *Config) defaults() error {
	c.outputs()
	if c.Seed == 0 {
		c.Seed = 1
	}
	switch {
	case c.Repo == "":
		return usage.Errorf("bisect needs the subject's repository")
	case c.Host == "" || c.Client == "":
		return usage.Errorf("bisect needs the failing pairing's host and client")
	case c.Kind == "" || c.Journey == "":
		return usage.Errorf("bisect needs the failing pairing's client kind and journey")
	case c.Retries < 0:
		return usage.Errorf("retries must not be negative")
	}
	if c.Side == "" {
		side, err := movingSide(c.Host, c.Client)
		if err != nil {
			return err
		}
		c.Side = side
	}
	moving, fixed := c.Host, c.Client
	switch c.Side {
	case Host:
	case Client:
		moving, fixed = fixed, moving
	default:
		return usage.Errorf("side %q: give host or client", c.Side)
	}
	if c.Bad == "" {
		c.Bad = moving
	}
	switch {
	case c.Good == results.WorktreeLabel:
		return usage.Optionf("Good", "%s: the walk goes from a commit to a later one: give the ref of a commit where the pairing passes", c.Good)
	case c.Good == "" && fixed == results.WorktreeLabel:
		return usage.Optionf("Good", "defaults to the fixed side's build, the working tree: the walk goes from a commit to a later one: give the ref of a commit where the pairing passes")
	case c.Good == "":
		c.Good = fixed
	}
	if c.Good == c.Bad {
		return usage.Errorf("good and bad are both %s: nothing to walk", c.Good)
	}
	return nil
}

// movingSide is the side that changed: the working tree's, else the newer release's.
func movingSide(host, client string) (string, error) {
	switch {
	case host == results.WorktreeLabel && client != results.WorktreeLabel:
		return Host, nil
	case client == results.WorktreeLabel && host != results.WorktreeLabel:
		return Client, nil
	}
	hv, herr := pins.ParseVersion(host)
	cv, cerr := pins.ParseVersion(client)
	if herr == nil && cerr == nil && hv.Compare(cv) != 0 {
		if hv.Compare(cv) > 0 {
			return Host, nil
		}
		return Client, nil
	}
	return "", usage.Errorf("cannot tell which side moved between host %s and client %s: give the side", host, client)
}

// bisection is one walk under way.
type bisection struct {
	c      *Config
	pts    []point
	fixed  string
	kinds  []results.Kind // what makes a candidate bad: the bad end's failing kinds
	tested map[int]*tested
	out    *results.Bisect
	// try judges the candidate at a point, setting t's verdict (runs the pairing, or
	// diffs the contracts); its error ends the walk.
	try func(ctx context.Context, p point, t *tested, end bool) error
}

// tested is a candidate's verdict and the run that gave it.
type tested struct {
	cand    results.Candidate
	pairing *results.Pairing // nil when it did not run
	builds  []results.Build
}

// walk tests both ends, then the tags, then the commits between the last good tag and the
// first bad one.
func (b *bisection) walk(ctx context.Context) error {
	last := len(b.pts) - 1
	if v, err := b.test(ctx, last); err != nil {
		return err
	} else if v != results.VerdictBad {
		return usage.Errorf("%s does not fail at bad %s (%s): nothing to look for", b.what(), b.c.Bad, b.why(last))
	}
	if v, err := b.test(ctx, 0); err != nil {
		return err
	} else if v != results.VerdictGood {
		return usage.Errorf("%s is not good at good %s (%s): give a good ref where it passes", b.what(), b.c.Good, b.why(0))
	}
	test := func(i int) (string, error) { return b.test(ctx, i) }
	lg, fb, _, err := search(tagged(b.pts), test)
	if err != nil {
		return err
	}
	b.out.LastGoodTag, b.out.FirstBadTag = b.pts[lg].ref, b.pts[fb].ref
	all := make([]int, 0, fb-lg+1)
	for i := lg; i <= fb; i++ {
		all = append(all, i)
	}
	lg, fb, unjudged, err := search(all, test)
	if err != nil {
		return err
	}
	b.out.LastGood, b.out.FirstBad = &b.tested[lg].cand, &b.tested[fb].cand
	b.out.Exact = len(unjudged) == 0
	if !b.out.Exact {
		for _, i := range append(unjudged, fb) {
			b.out.Suspects = append(b.out.Suspects, b.pts[i].ref)
		}
	}
	return nil
}

// what names what the walk judges, for its errors.
func (b *bisection) what() string {
	if b.c.Side == Contract {
		return "the contract, diffed against " + b.fixed + "'s,"
	}
	return fmt.Sprintf("the pairing, with the %s side moving,", b.c.Side)
}

// why is a tested candidate's verdict and reason, for an error about an end.
func (b *bisection) why(i int) string {
	t := b.tested[i]
	if t.cand.Why == "" {
		return t.cand.Verdict
	}
	return t.cand.Verdict + ": " + t.cand.Why
}

// test runs the pairing with the moving side at point i, once, and returns its verdict.
func (b *bisection) test(ctx context.Context, i int) (string, error) {
	if t, ok := b.tested[i]; ok {
		return t.cand.Verdict, nil
	}
	p := b.pts[i]
	t := &tested{cand: p.candidate()}
	start := time.Now()
	if err := b.try(ctx, p, t, i == 0 || i == len(b.pts)-1); err != nil {
		return "", err
	}
	b.tested[i] = t
	b.out.Candidates = append(b.out.Candidates, t.cand)
	kind := "commit"
	switch {
	case p.ref == results.WorktreeLabel:
		kind = "working tree"
	case p.tag != "":
		kind = "tag"
	}
	line := fmt.Sprintf("bisect: %s %s (%s): %s", b.c.Side, p.ref, kind, t.cand.Verdict)
	if t.cand.Why != "" {
		line += ": " + t.cand.Why
	}
	fmt.Fprintf(b.c.Stderr, "%s (%s)\n", line, time.Since(start).Round(time.Millisecond))
	return t.cand.Verdict, nil
}

// runPairing runs the pairing with the moving side at p, in a report directory of its own,
// and judges it. A candidate that cannot run is skipped, except an end: that ends the walk.
func (b *bisection) runPairing(ctx context.Context, p point, t *tested, end bool) error {
	host, client := p.ref, b.fixed
	if b.c.Side == Client {
		host, client = b.fixed, p.ref
	}
	t.cand.Report = filepath.Join(CandidatesDir, fmt.Sprintf("%02d-%s", len(b.tested)+1, p.ref))
	run, err := matrix.Run(ctx, matrix.Config{
		Repo: b.c.Repo, ReportDir: filepath.Join(b.c.ReportDir, t.cand.Report), CacheDir: b.c.CacheDir,
		Seed: b.c.Seed, Retries: b.c.Retries, Env: b.c.Env, Timeout: b.c.Timeout, Quiet: b.c.Quiet, Settle: b.c.Settle,
		Parallel: b.c.Parallel, Runner: b.c.Runner, Command: []string{"bisect"}, Stderr: b.c.Progress,
		Pairings: []matrix.Pair{{Host: host, Client: client, Kind: b.c.Kind, Journey: b.c.Journey}},
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && end:
		return fmt.Errorf("%s %s: %w", b.c.Side, p.ref, err)
	case err != nil:
		t.cand.Verdict, t.cand.Why = results.VerdictSkipped, firstLine(err.Error())
	default:
		b.judge(t, run, host, client, p.ref)
	}
	return nil
}

// judge sets a candidate's verdict from its run: skipped when the moving build failed or
// the pairing errored, flaky when its attempts disagreed, bad when it failed with a kind
// of finding the bad end has (the bad end itself: any failing finding), else good.
func (b *bisection) judge(t *tested, run *results.Run, host, client, moving string) {
	t.builds = run.Builds
	for _, bl := range run.Builds {
		if bl.Label == moving && bl.Status == "error" {
			t.cand.Verdict, t.cand.Why = results.VerdictSkipped, "does not build: "+firstLine(bl.Error)
			return
		}
	}
	i := slices.IndexFunc(run.Pairings, func(p *results.Pairing) bool {
		return p.Host == host && p.Client == client && p.ClientKind == b.c.Kind && !p.Future
	})
	if i < 0 {
		t.cand.Verdict, t.cand.Why = results.VerdictSkipped, "the pairing did not run"
		return
	}
	p := run.Pairings[i]
	t.pairing = p
	failing := results.Failing(p.Findings)
	t.cand.Findings = failing
	switch p.Status {
	case results.StatusError:
		t.cand.Verdict, t.cand.Why = results.VerdictSkipped, "the harness could not run it: "+firstLine(p.Error)
		return
	case results.StatusFlaky:
		t.cand.Verdict, t.cand.Why = results.VerdictFlaky, "its attempts disagree: "+attempts(p.Attempts)
		return
	}
	if b.kinds == nil && p.Status == results.StatusFail { // the bad end, tested first
		for _, f := range failing {
			if !slices.Contains(b.kinds, f.Kind) {
				b.kinds = append(b.kinds, f.Kind)
			}
		}
		b.out.Kinds = b.kinds
	}
	var shown []string
	for _, f := range failing {
		if slices.Contains(b.kinds, f.Kind) && !slices.Contains(shown, string(f.Kind)) {
			shown = append(shown, string(f.Kind))
		}
	}
	switch {
	case len(shown) > 0:
		t.cand.Verdict, t.cand.Why = results.VerdictBad, strings.Join(shown, ", ")
	case p.Status == results.StatusFail:
		t.cand.Verdict, t.cand.Why = results.VerdictGood, "fails, but not this way: "+kindsOf(failing)
	default:
		t.cand.Verdict = results.VerdictGood
	}
}

// finish fills the run from the walk's ends: their pairings (paths made relative to the
// bisection's report directory), the findings the first bad brought, and its repro line.
func (b *bisection) finish(run *results.Run) {
	var good, bad *tested
	for _, t := range b.tested {
		switch {
		case b.out.LastGood != nil && t.cand.Ref == b.out.LastGood.Ref:
			good = t
		case b.out.FirstBad != nil && t.cand.Ref == b.out.FirstBad.Ref:
			bad = t
		}
	}
	for _, t := range []*tested{good, bad} {
		if t == nil {
			continue
		}
		run.Builds = appendBuilds(run.Builds, t.builds)
		if t.pairing != nil {
			run.Pairings = append(run.Pairings, rebased(t.pairing, t.cand.Report))
		}
	}
	if bad == nil {
		return
	}
	if bad.pairing != nil {
		b.out.Repro = bad.pairing.Repro
	}
	if b.c.Side == Contract {
		run.Findings = bad.cand.Findings // the static tier's place for contract findings
	}
	var had []string
	if good != nil {
		for _, f := range good.cand.Findings {
			had = append(had, f.Key())
		}
	}
	for _, f := range bad.cand.Findings {
		if !slices.Contains(had, f.Key()) {
			b.out.Brought = append(b.out.Brought, f)
		}
	}
}

// print writes the answer.
func (b *bisection) print(w io.Writer) {
	o := b.out
	if o.Side == Contract {
		fmt.Fprintf(w, "\nbisect: the contract moved (diffed against %s's)\n", o.Fixed)
	} else {
		fmt.Fprintf(w, "\nbisect: the %s side moved (%s %s fixed)\n", o.Side, results.OtherSide(o.Side), o.Fixed)
	}
	fmt.Fprintf(w, "first bad release: %s (last good: %s)\n", o.FirstBadTag, o.LastGoodTag)
	if fb := o.FirstBad; fb != nil {
		if o.Exact {
			fmt.Fprintf(w, "first bad commit: %s\n", describe(fb))
		} else {
			fmt.Fprintf(w, "first bad commit: one of %s (the others could not be judged)\n", strings.Join(o.Suspects, ", "))
		}
		fmt.Fprintf(w, "last good: %s\n", describe(o.LastGood))
	}
	for _, c := range o.Candidates {
		if c.Verdict == results.VerdictSkipped || c.Verdict == results.VerdictFlaky {
			fmt.Fprintf(w, "%s: %s: %s\n", c.Verdict, c.Ref, c.Why)
		}
	}
	if len(o.Brought) > 0 {
		fmt.Fprintf(w, "what it brought:\n")
		for _, f := range o.Brought {
			fmt.Fprintf(w, "  - %s\n", reports.FindingLine(f))
		}
	}
	if o.Repro != "" {
		fmt.Fprintf(w, "repro: %s\n", o.Repro)
	}
	fmt.Fprintf(w, "reports: %s\n", b.c.ReportDir)
}

// describe names a candidate: its ref, commit subject, author date and author.
func describe(c *results.Candidate) string {
	if c.Commit == "" {
		return c.Ref
	}
	s := fmt.Sprintf("%s %q (%s, %s)", c.Ref, c.Subject, c.Date.Format("2006-01-02"), c.Author)
	if c.Ref != c.Commit[:min(len(c.Commit), shortHash)] {
		s += ", commit " + c.Commit[:shortHash]
	}
	return s
}

// rebased is p with its files' paths made relative to the bisection's report directory.
func rebased(p *results.Pairing, dir string) *results.Pairing {
	q := *p
	if q.Transcript != "" {
		q.Transcript = filepath.Join(dir, q.Transcript)
	}
	q.Logs = nil
	for _, l := range p.Logs {
		q.Logs = append(q.Logs, filepath.Join(dir, l))
	}
	return &q
}

// appendBuilds adds the builds out does not have yet (by label).
func appendBuilds(out, bs []results.Build) []results.Build {
	for _, b := range bs {
		if !slices.ContainsFunc(out, func(o results.Build) bool { return o.Label == b.Label }) {
			out = append(out, b)
		}
	}
	return out
}

func kindsOf(fs []results.Finding) string {
	var ks []string
	for _, f := range fs {
		if !slices.Contains(ks, string(f.Kind)) {
			ks = append(ks, string(f.Kind))
		}
	}
	return strings.Join(ks, ", ")
}

func attempts(as []results.Status) string {
	var s []string
	for _, a := range as {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
