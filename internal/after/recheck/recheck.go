// Package recheck re-judges a saved run with the checks of today: each pairing's recorded
// transcript goes through checks.Run again, with the builds' contracts read from git
// objects at the revisions the run recorded, the journeys the subject has now, and the
// references the run recorded beside it. No build, no process, no socket. A team that fixes
// a check confirms with it that old verdicts change the way they should, and only those.
package recheck

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// Config is one recheck.
type Config struct {
	// Saved is the report directory of the run to re-judge (its results.json and
	// transcripts).
	Saved string
	// Repo is the subject's repository (default: the one results.json names).
	Repo string
	// ReportDir receives the rechecked reports (default: Saved/recheck).
	ReportDir string
	// Stdout gets the verdicts that changed and the totals. Nil discards.
	Stdout io.Writer
}

// Change is a pairing whose verdict the checks of today give differently.
type Change struct {
	Pairing  string
	Was, Now results.Status
	// Gained and Lost are the findings the recheck adds and no longer finds.
	Gained, Lost []results.Finding
}

// Run re-judges the saved run and writes the rechecked reports. A pairing without a
// transcript (an error, or a passing one a campaign did not keep), and a future-peer pass
// (its rewritten frames are judged against its unmodified run, which is not recorded), keep
// their verdicts and are counted as not rechecked.
func Run(ctx context.Context, c Config) (*results.Run, []Change, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	dir, err := reports.OpenSaved(c.Saved)
	if err != nil {
		return nil, nil, err
	}
	saved := dir.Run
	if c.Repo == "" {
		c.Repo = saved.Repo
	}
	if c.ReportDir == "" {
		c.ReportDir = filepath.Join(c.Saved, "recheck")
	}
	s, err := subject.Open(c.Repo)
	if err != nil {
		return nil, nil, err
	}
	j := &judge{s: s, saved: saved, dir: dir, transcripts: map[string]*transcript.Transcript{}, journeys: map[string]*journeys.Journey{}}
	if err := j.describe(ctx); err != nil {
		return nil, nil, err
	}
	if j.support, err = s.Support(ctx); err != nil {
		return nil, nil, err
	}
	// The verdicts are today's checks': the run names the skewtest that made them.
	out := *saved
	out.Started, out.Pairings, out.ToolVersion = time.Now(), nil, version.String()
	var changes []Change
	rechecked := 0
	for _, p := range saved.Pairings {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		q, ok, err := j.pairing(p)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			rechecked++
			if ch, changed := compare(p, q); changed {
				changes = append(changes, ch)
			}
		}
		out.Pairings = append(out.Pairings, q)
	}
	out.Finished = time.Now()
	if err := reports.Write(c.ReportDir, &out); err != nil {
		return nil, nil, fmt.Errorf("write reports: %w", err)
	}
	summarize(c.Stdout, changes, rechecked, len(saved.Pairings), c.ReportDir)
	return &out, changes, nil
}

// judge holds what the pairings of one saved run are judged with.
type judge struct {
	s           *subject.Subject
	saved       *results.Run
	dir         *reports.Saved
	builds      map[string]*harness.Build // by label, as described from their recorded revisions
	support     func(host, client string) checks.Support
	transcripts map[string]*transcript.Transcript // by path, nil when there is none
	journeys    map[string]*journeys.Journey
}

// describe reads each recorded build's files (contract, journeys) at the revision the run
// recorded, the working tree's from disk.
func (j *judge) describe(ctx context.Context) error {
	var srcs []builds.Source
	for _, b := range j.saved.Builds {
		src := builds.Worktree()
		if b.Label != builds.WorktreeLabel {
			if plumbing.IsHash(b.Revision) {
				src = builds.AtCommit(b.Label, plumbing.NewHash(b.Revision))
			} else {
				var err error
				if src, err = j.s.Source(ctx, b.Label); err != nil {
					return err
				}
			}
		}
		srcs = append(srcs, src)
	}
	described, err := j.s.Describe(ctx, srcs)
	if err != nil {
		return err
	}
	j.builds = map[string]*harness.Build{}
	for _, b := range described {
		j.builds[b.Label] = b
	}
	return nil
}

// pairing re-judges p, or returns it as it was (false) when it cannot be.
func (j *judge) pairing(p *results.Pairing) (*results.Pairing, bool, error) {
	host, client := j.builds[p.Host], j.builds[p.Client]
	if p.Future || p.Transcript == "" || p.Status == results.StatusError || host == nil || client == nil {
		return p, false, nil
	}
	t, err := j.transcript(p.Transcript)
	if err != nil || t == nil {
		return nil, false, err
	}
	jy, err := j.journey(p.Journey)
	if err != nil {
		return nil, false, err
	}
	in := &checks.Input{Transcript: t, Journey: jy, Host: host.Contract, Client: client.Contract,
		ClientOlder: pins.Older(p.Client, p.Host)}
	if p.Host != p.Client {
		if in.Reference, err = j.reference(p.Client, p); err != nil {
			return nil, false, err
		}
		if in.HostReference, err = j.reference(p.Host, p); err != nil {
			return nil, false, err
		}
	}
	if j.support != nil {
		in.Support = j.support(p.Host, p.Client)
	}
	q := *p
	q.Findings = checks.Run(in)
	q.Status = harness.Verdict(q.Findings, t)
	q.Attempts = nil
	return &q, true, nil
}

// reference is the transcript of the reference pairing of build label for p's kind and
// journey, when the run recorded it (nil: none, as a run without it judges).
func (j *judge) reference(label string, p *results.Pairing) (*transcript.Transcript, error) {
	i := slices.IndexFunc(j.saved.Pairings, func(r *results.Pairing) bool {
		return r.Host == label && r.Client == label && r.ClientKind == p.ClientKind && r.Journey == p.Journey && !r.Future
	})
	if i < 0 {
		return nil, nil
	}
	r := j.saved.Pairings[i]
	if r.Status == results.StatusError || r.Transcript == "" {
		return nil, nil
	}
	return j.transcript(r.Transcript)
}

// transcript loads (once) the transcript at path, relative to the saved report.
func (j *judge) transcript(path string) (*transcript.Transcript, error) {
	if t, ok := j.transcripts[path]; ok {
		return t, nil
	}
	t, err := j.dir.Transcript(path)
	if err != nil {
		return nil, err
	}
	j.transcripts[path] = t
	return t, nil
}

// journey is the subject's journey of that name, or the file it names.
func (j *judge) journey(name string) (*journeys.Journey, error) {
	if jy, ok := j.journeys[name]; ok {
		return jy, nil
	}
	js, err := j.s.Journeys([]string{name})
	if err != nil {
		return nil, err
	}
	j.journeys[name] = js[0]
	return js[0], nil
}

// compare says how p's verdict changed in q.
func compare(p, q *results.Pairing) (Change, bool) {
	ch := Change{Pairing: p.Label(), Was: p.Status, Now: q.Status}
	had, has := map[string]bool{}, map[string]bool{}
	for _, f := range p.Findings {
		had[f.Key()] = true
	}
	for _, f := range q.Findings {
		has[f.Key()] = true
		if !had[f.Key()] {
			ch.Gained = append(ch.Gained, f)
		}
	}
	for _, f := range p.Findings {
		if !has[f.Key()] {
			ch.Lost = append(ch.Lost, f)
		}
	}
	// A flaky pairing's recorded status is its attempts'; its kept transcript is one attempt.
	was := p.Status
	if was == results.StatusFlaky {
		was = q.Status
	}
	return ch, was != q.Status || len(ch.Gained) > 0 || len(ch.Lost) > 0
}

func summarize(w io.Writer, changes []Change, rechecked, total int, dir string) {
	for _, ch := range changes {
		fmt.Fprintf(w, "changed: %s: %s → %s\n", ch.Pairing, ch.Was, ch.Now)
		for _, f := range ch.Gained {
			fmt.Fprintf(w, "  + %s\n", reports.FindingLine(f))
		}
		for _, f := range ch.Lost {
			fmt.Fprintf(w, "  - %s\n", reports.FindingLine(f))
		}
	}
	fmt.Fprintf(w, "recheck: %d of %d pairings re-judged from their transcripts, %s changed\n", rechecked, total, results.Plural(len(changes), "verdict"))
	fmt.Fprintf(w, "reports: %s\n", dir)
}
