package reports

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/results"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr,omitempty"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

// junitProperties are a suite's properties: every suite names the skewtest that made the
// run (VersionProperty).
type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// VersionProperty is the name of the property each JUnit suite gives the version of the
// skewtest that made the run (results.Run.ToolVersion), when the run says.
const VersionProperty = "skewtest.version"

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit renders run as JUnit XML: one suite per journey, one case per pairing, and a
// skipped case per pairing the plan could not run.
func JUnit(run *results.Run) ([]byte, error) {
	out := junitSuites{Name: "skewtest"}
	index := map[string]int{}
	suite := func(journey string) *junitSuite {
		i, ok := index[journey]
		if !ok {
			i = len(out.Suites)
			index[journey] = i
			out.Suites = append(out.Suites, junitSuite{Name: journey})
		}
		return &out.Suites[i]
	}
	for _, p := range run.Pairings {
		s := suite(p.JourneyLabel())
		c := junitCase{
			Name:      fmt.Sprintf("host %s × %s %s", p.Host, p.ClientKind, p.Client),
			Classname: "skewtest." + p.JourneyLabel(),
			Time:      fmt.Sprintf("%.3f", p.Duration.Seconds()),
			SystemOut: "repro: " + p.Repro,
		}
		switch p.Status {
		case results.StatusFail:
			c.Failure = &junitMessage{Message: summarize(p), Type: "findings", Text: findingsText(p)}
			s.Failures++
		case results.StatusFlaky:
			// A verdict that does not reproduce fails the run (exit 1), so CI shows it as one.
			msg := attempts(p)
			if k := summarize(p); k != "" {
				msg += "; " + k
			}
			c.Failure = &junitMessage{Message: msg, Type: "flaky", Text: attempts(p) + "\n" + findingsText(p)}
			s.Failures++
		case results.StatusError:
			c.Error = &junitMessage{Message: p.Error, Type: "error", Text: p.Error}
			s.Errors++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	if failing := results.Failing(run.Findings); len(failing) > 0 {
		s := suite("contract-check")
		var lines []string
		for _, f := range failing {
			lines = append(lines, FindingLine(f)+"\n"+indent(f.Detail, "    "))
		}
		s.Cases = append(s.Cases, junitCase{Name: "contract check", Classname: "skewtest.contract-check", Time: "0.000",
			Failure: &junitMessage{Message: fmt.Sprintf("%d contract violation(s)", len(failing)), Type: "contract-violation",
				Text: strings.Join(lines, "\n")}})
		s.Tests++
		s.Failures++
	}
	if f := run.Fixtures; f != nil && len(f.Findings) > 0 {
		s := suite("fixtures")
		var lines []string
		for _, fd := range f.Findings {
			lines = append(lines, FindingLine(fd))
		}
		s.Cases = append(s.Cases, junitCase{Name: "fixtures", Classname: "skewtest.fixtures", Time: "0.000",
			Failure: &junitMessage{Message: fmt.Sprintf("%d frame(s) of earlier releases' recordings refused", len(f.Findings)), Type: string(results.DecoderRefusal),
				Text: strings.Join(lines, "\n")}})
		s.Tests++
		s.Failures++
	}
	if msg := incomplete(run); msg != "" {
		// An incomplete matrix is an error CI must show, not a shorter list of green cases.
		s := suite("run")
		s.Cases = append(s.Cases, junitCase{Name: "whole plan ran", Classname: "skewtest.run", Time: "0.000",
			Error: &junitMessage{Message: msg, Type: "interrupted", Text: msg}})
		s.Tests++
		s.Errors++
	}
	for _, sk := range run.Skipped {
		s := suite(sk.Journey)
		s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("host %s × %s %s", sk.Host, sk.ClientKind, sk.Client),
			Classname: "skewtest." + sk.Journey, Time: "0.000", Skipped: &junitSkipped{Message: sk.Reason}})
		s.Tests++
		s.Skipped++
	}
	for i := range out.Suites {
		s := &out.Suites[i]
		var total float64
		for _, c := range s.Cases {
			var t float64
			fmt.Sscanf(c.Time, "%f", &t)
			total += t
		}
		s.Time = fmt.Sprintf("%.3f", total)
		if run.ToolVersion != "" {
			s.Properties = &junitProperties{[]junitProperty{{Name: VersionProperty, Value: run.ToolVersion}}}
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(data, '\n')...), nil
}

// summarize is a pairing's findings in one line: "decoder-refusal, data-loss".
func summarize(p *results.Pairing) string {
	var kinds []string
	seen := map[results.Kind]bool{}
	own := map[results.Kind]bool{}
	for _, f := range p.Findings {
		if !seen[f.Kind] {
			seen[f.Kind] = true
			kinds = append(kinds, string(f.Kind))
			own[f.Kind] = true
		}
		own[f.Kind] = own[f.Kind] && f.Own != ""
	}
	for i, k := range kinds {
		if own[results.Kind(k)] {
			kinds[i] += " (own)"
		}
	}
	return strings.Join(kinds, ", ")
}

func findingsText(p *results.Pairing) string {
	var b strings.Builder
	for _, f := range p.Findings {
		fmt.Fprintf(&b, "%s", FindingLine(f))
		if f.Detail != "" {
			fmt.Fprintf(&b, "\n%s", indent(f.Detail, "    "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "repro: %s\n", p.Repro)
	return b.String()
}

// FindingLine is a finding in one line: "[decoder-refusal] step transformed-output H>C: …".
func FindingLine(f results.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]", f.Kind)
	if f.Step != "" {
		fmt.Fprintf(&b, " step %s", f.Step)
	}
	if f.Direction != "" {
		fmt.Fprintf(&b, " %s", f.Direction)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	if f.Allowed != "" {
		fmt.Fprintf(&b, " (allowed, %s)", f.Allowed)
	}
	if f.Own != "" {
		fmt.Fprintf(&b, " (%s's own bug: it fails with itself too)", f.Own)
	}
	return b.String()
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
