package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/internal/testkit/shelltest"
	"github.com/skewtest/skewtest/results"
)

// A repro line is copied out of every report and pasted into a shell: each format must give
// back the very line, so that it runs skewtest with exactly its words and nothing else.
var _ = Describe("a repro line in the reports", func() {
	DescribeTable("reads back as the line, which runs skewtest with exactly its words",
		func(argv []string) {
			line := shell.Join(argv)
			run := sampleRun()
			run.Pairings[1].Repro = line // the failing pairing: every format shows its repro
			run.Bisect = &results.Bisect{Side: "host", Fixed: "v1.4.120", Kind: "desktop", Journey: "terminal", Good: "v1.4.120", Bad: "v1.4.190",
				LastGoodTag: "v1.4.120", FirstBadTag: "v1.4.190", Candidates: []results.Candidate{}, Repro: line}
			dir := GinkgoT().TempDir()
			Expect(reports.Write(dir, run)).To(Succeed())
			read := func(name string) string {
				data, err := os.ReadFile(filepath.Join(dir, name))
				Expect(err).NotTo(HaveOccurred())
				return string(data)
			}

			var text bytes.Buffer
			reports.Matrix(&text, run)
			Expect(text.String()).To(ContainSubstring("  repro: " + line + "\n"))

			md := read(reports.SummaryFile)
			copied := map[string]string{"text": line,
				"summary.md pairing": markdownCode(md, "\nRepro:"), "summary.md bisect": markdownCode(md, "\n- Repro:")}

			var doc struct {
				Cases []struct {
					Name      string `xml:"name,attr"`
					SystemOut string `xml:"system-out"`
					Failure   *struct {
						Text string `xml:",chardata"`
					} `xml:"failure"`
				} `xml:"testsuite>testcase"`
			}
			Expect(xml.Unmarshal([]byte(read(reports.JUnitFile)), &doc)).To(Succeed())
			Expect(doc.Cases[1].Failure).NotTo(BeNil())
			copied["junit.xml system-out"] = strings.TrimPrefix(doc.Cases[1].SystemOut, "repro: ")
			_, copied["junit.xml failure"], _ = strings.Cut(strings.TrimSuffix(doc.Cases[1].Failure.Text, "\n"), "\nrepro: ")

			page := read(reports.HTMLFile)
			data := regexp.MustCompile(`(?s)<script type="application/json" id="skewtest-data">(.*?)</script>`).FindStringSubmatch(page)
			Expect(data).To(HaveLen(2))
			var pd struct {
				P []struct {
					R string `json:"r"`
				} `json:"p"`
			}
			Expect(json.Unmarshal([]byte(data[1]), &pd)).To(Succeed())
			copied["report.html copy button"] = pd.P[1].R
			bisect := regexp.MustCompile(`(?s)<p>Repro: <code>(.*?)</code></p>`).FindStringSubmatch(page)
			Expect(bisect).To(HaveLen(2))
			copied["report.html bisect"] = html.UnescapeString(bisect[1])

			for _, where := range slices.Sorted(maps.Keys(copied)) {
				got := copied[where]
				Expect(got).To(Equal(line), where)
				pasted, err := shelltest.Paste(GinkgoT().TempDir(), "skewtest", got)
				Expect(err).NotTo(HaveOccurred(), where)
				Expect(pasted.Runs).To(Equal([][]string{argv}), where)
				Expect(pasted.Stray).To(BeEmpty(), "%s: the line ran more than skewtest", where)
			}
		},
		Entry("labels that run commands", repro("/src/my repo/$HOME", "y$(id)", "x`id`")),
		Entry("labels with runs of backticks", repro("/src/chatd", "``y``", "`x")),
		Entry("HTML and XML in a label", repro("/src/<b>&amp;</b>", `"]]></system-out>`, "</code></script><script>alert(1)</script>")),
		Entry("a repository path with line endings and a fence", repro("/src/a\n```\n$(touch MARKER)\n  ``` b", "y$(id)", "v1.4.120")),
	)

	It("gives back in summary.md a line that begins or ends with a backtick or spaces, as an older run may hold", func() {
		for _, line := range []string{"`a`", "``a", " a ", "a b"} {
			run := sampleRun()
			run.Pairings[1].Repro = line
			Expect(markdownCode(reports.Markdown(run), "\nRepro:")).To(Equal(line))
		}
	})

	It("prints a line of plain words in summary.md as it always has", func() {
		Expect(reports.Markdown(sampleRun())).To(ContainSubstring("\nRepro: `skewtest repro --host v1.4.190 --client v1.4.120`\n"))
	})
})

func repro(repo, host, client string) []string {
	return []string{"skewtest", "repro", "--repo", repo, "--host", host, "--client", client,
		"--kind", "desktop", "--journey", "$(touch MARKER)", "--seed", "42"}
}

// markdownCode reads, as CommonMark does, the code that follows label in md: an inline code
// span or, on the lines after it, a fenced code block (indented as a list item's content).
func markdownCode(md, label string) string {
	_, rest, ok := strings.Cut(md, label)
	Expect(ok).To(BeTrue(), "no %q in:\n%s", label, md)
	if block, ok := strings.CutPrefix(rest, "\n\n"); ok {
		lines := strings.Split(block, "\n")
		open := strings.TrimLeft(lines[0], " ")
		indent := len(lines[0]) - len(open)
		fence := strings.TrimRight(open, " ")
		Expect(fence).To(MatchRegexp("^````*$"), "a fence opens the block: %q", lines[0])
		var content []string
		for _, l := range lines[1:] {
			l = strings.TrimPrefix(l, strings.Repeat(" ", min(indent, len(l)-len(strings.TrimLeft(l, " ")))))
			if t := strings.TrimSpace(l); len(l)-len(strings.TrimLeft(l, " ")) < 4 && strings.Trim(t, "`") == "" && len(t) >= len(fence) {
				return strings.Join(content, "\n")
			}
			content = append(content, l)
		}
		Fail("the fenced block does not close:\n" + block)
	}
	rest, ok = strings.CutPrefix(rest, " ")
	Expect(ok).To(BeTrue())
	n := len(rest) - len(strings.TrimLeft(rest, "`"))
	Expect(n).To(BeNumerically(">", 0), "a code span follows %q", label)
	rest = rest[n:]
	// The span ends at the next run of exactly n backticks.
	for i := 0; i < len(rest); {
		if rest[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(rest) && rest[j] == '`' {
			j++
		}
		if j-i == n {
			code := strings.ReplaceAll(rest[:i], "\n", " ")
			if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			return code
		}
		i = j
	}
	Fail("the code span does not close: " + rest)
	return ""
}
