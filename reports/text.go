package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skewtest/skewtest/results"
)

var statusMark = map[results.Status]string{
	results.StatusPass:            "PASS",
	results.StatusFail:            "FAIL",
	results.StatusError:           "ERROR",
	results.StatusExpectedRefusal: "REFUSED (expected)",
}

// Matrix prints the pairing matrix, then every finding with its repro line, then totals.
func Matrix(w io.Writer, run *results.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tCLIENT\tKIND\tJOURNEY\tSTATUS\tSTEPS\tFINDINGS")
	for _, p := range run.Pairings {
		steps := fmt.Sprintf("%d/%d", len(p.CompletedSteps), p.StepsTotal)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Host, p.Client, p.ClientKind, p.Journey,
			statusMark[p.Status], steps, summarize(p))
	}
	tw.Flush()
	for _, p := range run.Pairings {
		if p.Status != results.StatusFail && p.Status != results.StatusError {
			continue
		}
		fmt.Fprintf(w, "\n%s %s\n", statusMark[p.Status], p.Label())
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
	c := run.Counts()
	fmt.Fprintf(w, "\n%d pairings: %d passed, %d failed, %d errors, %d expected refusals (seed %d)\n",
		len(run.Pairings), c[results.StatusPass], c[results.StatusFail], c[results.StatusError], c[results.StatusExpectedRefusal], run.Seed)
}

// Markdown renders run as a Markdown summary.
func Markdown(run *results.Run) string {
	var b strings.Builder
	c := run.Counts()
	fmt.Fprintf(&b, "# skewtest results\n\n%d pairings: **%d passed**, **%d failed**, %d errors, %d expected refusals. Seed `%d`.\n\n",
		len(run.Pairings), c[results.StatusPass], c[results.StatusFail], c[results.StatusError], c[results.StatusExpectedRefusal], run.Seed)
	b.WriteString("## Builds\n\n| build | revision | status |\n|---|---|---|\n")
	for _, bl := range run.Builds {
		fmt.Fprintf(&b, "| %s | `%.12s` | %s |\n", bl.Label, bl.Revision, bl.Status)
	}
	b.WriteString("\n## Pairings\n\n| host | client | kind | journey | status | findings |\n|---|---|---|---|---|---|\n")
	for _, p := range run.Pairings {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", p.Host, p.Client, p.ClientKind, p.Journey, statusMark[p.Status], summarize(p))
	}
	for _, p := range run.Pairings {
		if p.Status != results.StatusFail && p.Status != results.StatusError {
			continue
		}
		fmt.Fprintf(&b, "\n### %s — %s\n\n", p.Label(), statusMark[p.Status])
		if p.Error != "" {
			fmt.Fprintf(&b, "%s\n\n", p.Error)
		}
		for _, f := range p.Findings {
			fmt.Fprintf(&b, "- %s\n", FindingLine(f))
			if f.Detail != "" {
				fmt.Fprintf(&b, "\n```\n%s\n```\n", f.Detail)
			}
		}
		fmt.Fprintf(&b, "\nRepro: `%s`\n", p.Repro)
	}
	return b.String()
}
