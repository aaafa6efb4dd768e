package docs_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// markdownFiles are the documents whose relative links must resolve.
func markdownFiles() []string {
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

var _ = Describe("relative links in the README and docs/*.md", func() {
	for _, file := range markdownFiles() {
		name, _ := filepath.Rel(root, file)
		It(name+" links only to files that exist, and to headings they have", func() {
			broken, err := brokenLinks(file)
			Expect(err).NotTo(HaveOccurred())
			Expect(broken).To(BeEmpty())
		})
	}

	It("finds a missing file, a missing heading and a missing anchor in the same file", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "other.md"), []byte("# Other\n\n## Exit codes\n"), 0o644)).To(Succeed())
		doc := "# Doc\n\n## results.json\n\n" +
			"[ok](other.md#exit-codes) [ok](#resultsjson) [ok](other.md) ![ok](other.md) [web](https://example.invalid/x)\n" +
			"[gone](missing.md) [no heading](other.md#reports) ![no picture](pic.png) [no anchor](#exit-codes)\n" +
			"`[code](not-a-link.md)`\n\n```md\n[fenced](not-a-link.md)\n```\n\n[ref]: nowhere.md\n"
		Expect(os.WriteFile(filepath.Join(dir, "doc.md"), []byte(doc), 0o644)).To(Succeed())
		broken, err := brokenLinks(filepath.Join(dir, "doc.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(broken).To(Equal([]string{
			"doc.md:6: missing.md: no such file",
			"doc.md:6: other.md#reports: no heading or anchor reports in other.md",
			"doc.md:6: pic.png: no such file",
			"doc.md:6: #exit-codes: no heading or anchor exit-codes in doc.md",
			"doc.md:13: nowhere.md: no such file",
		}))
	})

	DescribeTable("names a heading's anchor as GitHub does",
		func(heading, anchor string) { Expect(slug(heading)).To(Equal(anchor)) },
		Entry(nil, "results.json", "resultsjson"),
		Entry(nil, "Exit codes", "exit-codes"),
		Entry(nil, "Pull requests: `.github/workflows/skewtest.yml`", "pull-requests-githubworkflowsskewtestyml"),
		Entry(nil, "1. Say how to build and start the drivers", "1-say-how-to-build-and-start-the-drivers"),
		Entry(nil, "host × client → [link](x.md)", "host--client--link"),
		Entry(nil, "What a frame carries: `where`", "what-a-frame-carries-where"),
		Entry(nil, "Lanes: one driver process, many pairings at once", "lanes-one-driver-process-many-pairings-at-once"),
	)
})

var (
	// A link or picture: [text](target) or ![alt](target), with an optional "title".
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// A reference definition: [label]: target
	refDef    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	codeSpan  = regexp.MustCompile("`+[^`]*`+")
	heading   = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlID    = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	linkText  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	hasScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// link is one link target and the line it is on.
type link struct {
	line   int
	target string
}

// prose reads a markdown file's lines outside fenced code blocks, calling fn with each
// line's number and text.
func prose(path string, fn func(n int, line string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fence := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			continue
		}
		fn(n, line)
	}
	return sc.Err()
}

// links lists the links of a markdown file, code spans and fenced code left out.
func links(path string) ([]link, error) {
	var out []link
	err := prose(path, func(n int, line string) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{n, m[1]})
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{n, m[1]})
		}
	})
	return out, err
}

// anchors lists the anchors a markdown file has: its headings' (as GitHub names them,
// repeated names numbered) and its explicit <a name> or <a id>.
func anchors(path string) (map[string]bool, error) {
	out := map[string]bool{}
	seen := map[string]int{}
	err := prose(path, func(_ int, line string) {
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			return
		}
		s := slug(m[1])
		if k := seen[s]; k > 0 {
			out[fmt.Sprintf("%s-%d", s, k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	})
	return out, err
}

// slug names a heading's anchor as GitHub does: the heading's text in lower case, without
// punctuation and symbols, spaces turned to hyphens.
func slug(text string) string {
	text = linkText.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-', r == '_', unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// brokenLinks lists the relative links of a markdown file that lead nowhere: a file that
// does not exist, or an anchor that the markdown file it points into does not have.
func brokenLinks(path string) ([]string, error) {
	ls, err := links(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	var broken []string
	for _, l := range ls {
		if hasScheme.MatchString(l.target) {
			continue
		}
		file, anchor, _ := strings.Cut(l.target, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if _, err := os.Stat(target); err != nil {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file", name, l.line, l.target))
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(target, ".md") {
			continue
		}
		as, err := anchors(target)
		if err != nil {
			return nil, err
		}
		if !as[anchor] {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: no heading or anchor %s in %s", name, l.line, l.target, anchor, filepath.Base(target)))
		}
	}
	return broken, nil
}
