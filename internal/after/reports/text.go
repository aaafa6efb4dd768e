package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skewtest/skewtest/results"
)

var statusMark = map[results.Status]string{
	results.StatusPass:            "PASS",
	results.StatusFail:            "FAIL",
	results.StatusError:           "ERROR",
	results.StatusExpectedRefusal: "REFUSED (expected)",
	results.StatusFlaky:           "FLAKY",
}

// failing reports whether a pairing's details are printed after the matrix.
func failing(p *results.Pairing) bool {
	return p.Status == results.StatusFail || p.Status == results.StatusError || p.Status == results.StatusFlaky
}

// attempts is a retried pairing's verdicts: "attempts: fail, pass, pass".
func attempts(p *results.Pairing) string {
	if len(p.Attempts) == 0 {
		return ""
	}
	s := make([]string, len(p.Attempts))
	for i, a := range p.Attempts {
		s[i] = string(a)
	}
	return "attempts: " + strings.Join(s, ", ")
}

// totals is the run in one line: "3 pairings: 1 passed, 1 failed, 1 errors, 0 expected
// refusals (seed 42)"; flaky pairings and pairings not run are named when there are any.
func totals(run *results.Run, strong func(string) string) string {
	c := run.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "%d pairings: %s, %s, ", len(run.Pairings), strong(fmt.Sprintf("%d passed", c[results.StatusPass])),
		strong(fmt.Sprintf("%d failed", c[results.StatusFail])))
	if n := c[results.StatusFlaky]; n > 0 {
		fmt.Fprintf(&b, "%s, ", strong(fmt.Sprintf("%d flaky", n)))
	}
	fmt.Fprintf(&b, "%d errors, %d expected refusals", c[results.StatusError], c[results.StatusExpectedRefusal])
	if n := len(run.Skipped); n > 0 {
		fmt.Fprintf(&b, ", %d skipped", n)
	}
	if run.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", run.NotRun)
	}
	if f := run.Fixtures; f != nil && len(f.Findings) > 0 {
		fmt.Fprintf(&b, "; fixtures: %s", strong(results.Plural(len(f.Findings), "refusal")))
	}
	return b.String()
}

// incomplete says why a run's matrix is incomplete, or "".
func incomplete(run *results.Run) string {
	switch {
	case run.Interrupted:
		return fmt.Sprintf("interrupted: %d pairings of the plan did not run; the matrix is incomplete", run.NotRun)
	case run.NotRun > 0:
		return fmt.Sprintf("%d pairings of the plan did not run; the matrix is incomplete", run.NotRun)
	}
	return ""
}

// Matrix prints the run's own findings (the contract check), the pairing matrix, then every
// finding with its repro line, then totals.
func Matrix(w io.Writer, run *results.Run) {
	if len(run.Findings) > 0 {
		fmt.Fprintf(w, "CONTRACT CHECK: %s, found before anything was built\n", staticCount(run.Findings))
		for _, f := range run.Findings {
			fmt.Fprintf(w, "  %s\n", FindingLine(f))
			if f.Detail != "" {
				fmt.Fprintf(w, "%s\n", indent(f.Detail, "      "))
			}
		}
		fmt.Fprintln(w)
	}
	if f := run.Fixtures; f != nil && len(f.Findings) > 0 {
		fmt.Fprintf(w, "FIXTURES: %s of the working tree's decoders asked about earlier releases' recordings, before any pairing ran\n",
			results.Plural(len(f.Findings), "refusal"))
		for _, fd := range f.Findings {
			fmt.Fprintf(w, "  %s\n", FindingLine(fd))
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tCLIENT\tKIND\tJOURNEY\tSTATUS\tSTEPS\tFINDINGS")
	for _, p := range run.Pairings {
		steps := fmt.Sprintf("%d/%d", len(p.CompletedSteps), p.StepsTotal)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Host, p.Client, p.ClientKind, p.JourneyLabel(),
			statusMark[p.Status], steps, summarize(p))
	}
	tw.Flush()
	if own := ownBugs(run); len(own) > 0 {
		fmt.Fprintf(w, "\nOWN BUGS: %s\n", ownHeading)
		for _, o := range own {
			fmt.Fprintf(w, "  %s\n", ownLine(o))
		}
	}
	for _, p := range run.Pairings {
		if !failing(p) {
			continue
		}
		fmt.Fprintf(w, "\n%s %s\n", statusMark[p.Status], p.Label())
		if a := attempts(p); a != "" {
			fmt.Fprintf(w, "  %s\n", a)
		}
		if p.Error != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(p.Error, "\n", "\n  "))
		}
		for _, f := range p.Findings {
			fmt.Fprintf(w, "  %s\n", FindingLine(f))
			if f.Detail != "" {
				fmt.Fprintf(w, "%s\n", indent(f.Detail, "      "))
			}
		}
		fmt.Fprintf(w, "  repro: %s\n", p.Repro)
	}
	if len(run.Skipped) > 0 {
		fmt.Fprintln(w)
	}
	for _, sk := range run.Skipped {
		fmt.Fprintf(w, "SKIPPED %s: %s\n", skipLabel(sk), sk.Reason)
	}
	if run.Coverage != nil && len(run.Coverage.Items) > 0 {
		fmt.Fprintln(w, "\nCONTRACT COVERAGE")
		for _, l := range run.Coverage.Summary(coverageLimit) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintf(w, "\n%s (seed %d%s)\n", totals(run, plain), run.Seed, madeBy(run, plain))
	if s := incomplete(run); s != "" {
		fmt.Fprintln(w, s)
	}
}

func plain(s string) string { return s }

func code(s string) string { return "`" + s + "`" }

// madeBy names the skewtest that made the run, after the seed: ", skewtest v1.2.0" (the
// version as quote writes it); "" when the run does not say.
func madeBy(run *results.Run, quote func(string) string) string {
	if run.ToolVersion == "" {
		return ""
	}
	return ", skewtest " + quote(run.ToolVersion)
}

// coverageLimit is how many parts never exercised the terminal names per category; the
// Markdown summary and the HTML report name them all.
const coverageLimit = 6

func skipLabel(sk results.Skip) string {
	return results.PairingLabel(sk.Host, sk.ClientKind, sk.Client, sk.Journey)
}

// buildNotes lists, under heading, the builds whose note is not empty, with it.
func buildNotes(b *strings.Builder, builds []results.Build, heading string, note func(results.Build) string) {
	first := true
	for _, bl := range builds {
		if n := note(bl); n != "" {
			if first {
				fmt.Fprintf(b, "\n%s:\n\n", heading)
				first = false
			}
			fmt.Fprintf(b, "- %s: %s\n", bl.Label, n)
		}
	}
}

func bold(s string) string { return "**" + s + "**" }

// Markdown renders run as a Markdown summary.
func Markdown(run *results.Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# skewtest results\n\n%s. Seed `%d`%s.\n\n", totals(run, bold), run.Seed, madeBy(run, code))
	if s := incomplete(run); s != "" {
		fmt.Fprintf(&b, "> **%s**\n\n", s)
	}
	if run.Bisect != nil {
		bisectSection(&b, run.Bisect)
	}
	if len(run.Findings) > 0 {
		fmt.Fprintf(&b, "## Contract check\n\n%s, found from the contracts before anything was built:\n\n", staticCount(run.Findings))
		for _, f := range run.Findings {
			fmt.Fprintf(&b, "- %s\n", FindingLine(f))
			if f.Detail != "" {
				fmt.Fprintf(&b, "\n```\n%s\n```\n", f.Detail)
			}
		}
		b.WriteString("\n")
	}
	if f := run.Fixtures; f != nil {
		fmt.Fprintf(&b, "## Fixtures\n\n%d recordings of %s (`%s`), %d frames into the working tree's decoders before any pairing ran: %s.\n\n",
			f.Recordings, strings.Join(f.Releases, ", "), f.Dir, f.Frames, results.Plural(len(f.Findings), "refusal"))
		for _, s := range f.Skipped {
			fmt.Fprintf(&b, "- skipped %s\n", s)
		}
		for _, fd := range f.Findings {
			fmt.Fprintf(&b, "- %s\n", FindingLine(fd))
		}
		if len(f.Skipped)+len(f.Findings) > 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString("## Builds\n\n| build | revision | status |\n|---|---|---|\n")
	for _, bl := range run.Builds {
		dirty := ""
		if bl.Dirty {
			dirty = " with uncommitted changes"
		}
		fmt.Fprintf(&b, "| %s | `%.12s`%s | %s |\n", bl.Label, bl.Revision, dirty, bl.Status)
	}
	buildNotes(&b, run.Builds, "Hosts that do not serve plain WebSocket", func(bl results.Build) string { return bl.Transport })
	buildNotes(&b, run.Builds, "Contracts not read from the build's own checkout", func(bl results.Build) string { return bl.Contract })
	b.WriteString("\n## Pairings\n\n| host | client | kind | journey | status | findings |\n|---|---|---|---|---|---|\n")
	for _, p := range run.Pairings {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", p.Host, p.Client, p.ClientKind, p.JourneyLabel(), statusMark[p.Status], summarize(p))
	}
	if own := ownBugs(run); len(own) > 0 {
		fmt.Fprintf(&b, "\n## Own bugs of releases\n\nThe %s:\n\n", ownHeading)
		for _, o := range own {
			fmt.Fprintf(&b, "- %s\n", ownLine(o))
		}
	}
	if c := run.Campaign; c != nil {
		races(&b, c.Findings)
	}
	if run.Coverage != nil && len(run.Coverage.Items) > 0 {
		b.WriteString("\n## Contract coverage\n\n")
		for _, l := range run.Coverage.Summary(0) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if c := run.Campaign; c != nil && len(c.History) > 0 {
		campaignCoverage(&b, c)
	}
	if len(run.Skipped) > 0 {
		b.WriteString("\n## Skipped\n\n| host | client | kind | journey | why |\n|---|---|---|---|---|\n")
		for _, sk := range run.Skipped {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", sk.Host, sk.Client, sk.ClientKind, sk.Journey, sk.Reason)
		}
	}
	for _, p := range run.Pairings {
		if !failing(p) {
			continue
		}
		fmt.Fprintf(&b, "\n### %s — %s\n\n", p.Label(), statusMark[p.Status])
		if a := attempts(p); a != "" {
			fmt.Fprintf(&b, "%s\n\n", a)
		}
		if p.Error != "" {
			fmt.Fprintf(&b, "%s\n\n", p.Error)
		}
		for _, f := range p.Findings {
			fmt.Fprintf(&b, "- %s\n", FindingLine(f))
			if f.Detail != "" {
				fmt.Fprintf(&b, "\n```\n%s\n```\n", f.Detail)
			}
		}
		fmt.Fprintf(&b, "\nRepro:%s\n", mdCode(p.Repro, ""))
	}
	return b.String()
}

// bisectSection writes a bisection's answer and every candidate it tested.
func bisectSection(b *strings.Builder, o *results.Bisect) {
	if o.Side == "contract" {
		fmt.Fprintf(b, "## Bisect\n\nThe contract moved from `%s` to `%s`, diffed against `%s`'s.\n\n", o.Good, o.Bad, o.Fixed)
	} else {
		fmt.Fprintf(b, "## Bisect\n\nThe %s side moved from `%s` to `%s`, %s `%s` fixed (%s client, journey %s).\n\n",
			o.Side, o.Good, o.Bad, results.OtherSide(o.Side), o.Fixed, o.Kind, o.Journey)
	}
	fmt.Fprintf(b, "- First bad release: **%s** (last good: %s)\n", o.FirstBadTag, o.LastGoodTag)
	if c := o.FirstBad; c != nil {
		if o.Exact {
			fmt.Fprintf(b, "- First bad commit: **`%.12s`** %s (%s, %s)\n", c.Commit, c.Subject, c.Author, c.Date.Format("2006-01-02"))
		} else {
			fmt.Fprintf(b, "- First bad commit: one of `%s` (the others could not be judged)\n", strings.Join(o.Suspects, "`, `"))
		}
	}
	for _, f := range o.Brought {
		fmt.Fprintf(b, "- brought: %s\n", FindingLine(f))
	}
	if o.Repro != "" {
		fmt.Fprintf(b, "- Repro:%s\n", mdCode(o.Repro, "  "))
	}
	b.WriteString("\n| # | build | commit | subject | verdict | why |\n|---|---|---|---|---|---|\n")
	for i, c := range o.Candidates {
		fmt.Fprintf(b, "| %d | %s | `%.12s` | %s | %s | %s |\n", i+1, c.Ref, c.Commit, c.Subject, c.Verdict, c.Why)
	}
	b.WriteString("\n")
}

// staticCount says how many static findings there are, and how many of them were reviewed
// and allowed: "2 finding(s)", "2 finding(s), 1 reviewed and allowed".
func staticCount(fs []results.Finding) string {
	s := fmt.Sprintf("%d finding(s)", len(fs))
	if allowed := len(fs) - len(results.Failing(fs)); allowed > 0 {
		s += fmt.Sprintf(", %d reviewed and allowed", allowed)
	}
	return s
}

// races writes a campaign's races: findings only a perturbed schedule showed, with the
// schedule, how often replaying it showed them again, and the case that replays them.
func races(b *strings.Builder, fs []results.CampaignFinding) {
	heading := false
	for _, f := range fs {
		if !f.Race {
			continue
		}
		if !heading {
			b.WriteString("\n## Races\n\nFindings only a schedule shows: with the gate's timing (steps settle) their cases pass.\n\n")
			heading = true
		}
		fmt.Fprintf(b, "- **%s** on %s: schedule `%s`, reproduced %d of %d replays; %s\n", f.Kind,
			results.PairingLabel(f.Host, f.ClientKind, f.Client, "fuzz"), f.Schedule, f.Reproduced, f.Replays, f.Message)
		if f.Repro != "" {
			fmt.Fprintf(b, "%s\n", mdCode(f.Repro, "  "))
		}
	}
}

// campaignCoverage writes a campaign's coverage over time: first what no campaign of its
// memory ever reached, then each campaign, then this one's timeline.
func campaignCoverage(b *strings.Builder, c *results.Campaign) {
	parts := "parts"
	if len(c.NeverReached) == 1 {
		parts = "part"
	}
	fmt.Fprintf(b, "\n## Coverage over time\n\n%d %s never reached by this campaign or any before it", len(c.NeverReached), parts)
	if len(c.NeverReached) > 0 {
		b.WriteString(":\n\n")
		for _, it := range c.NeverReached {
			fmt.Fprintf(b, "- %s `%s`\n", it.Category, it.Item)
		}
	} else {
		b.WriteString(".\n")
	}
	b.WriteString("\n| campaign | started | seed | cases | parts reached | first reached | reached by then |\n|---|---|---|---|---|---|---|\n")
	for _, n := range c.History {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d |\n", n.Name, n.Started.UTC().Format("2006-01-02 15:04"), n.Seed, n.Cases, n.Reached, n.New, n.Ever)
	}
	if len(c.Timeline) > 0 {
		b.WriteString("\n| after | cases | parts reached by this campaign |\n|---|---|---|\n")
		for _, p := range Thin(c.Timeline, timelineRows) {
			fmt.Fprintf(b, "| %s | %d | %d of %d |\n", p.After.Round(time.Second), p.Cases, p.Covered, p.Total)
		}
	}
}

// timelineRows is how many points of a campaign's timeline the reports show.
const timelineRows = 12

// Thin keeps at most n points of a timeline, evenly spread, the first and last included.
func Thin(points []results.CoveragePoint, n int) []results.CoveragePoint {
	if len(points) <= n || n < 2 {
		return points
	}
	out := make([]results.CoveragePoint, 0, n)
	for i := range n {
		out = append(out, points[i*(len(points)-1)/(n-1)])
	}
	return out
}
