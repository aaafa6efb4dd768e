package docs_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// workflow is one CI file docs/ci.md shows: the file its heading names, the line of ci.md its
// text starts on, and its text. Doc names the document when it is not ci.md.
type workflow struct {
	File string
	Line int
	Text string
	Doc  string
}

// doc is the document the workflow is shown in.
func (w workflow) doc() string {
	if w.Doc == "" {
		return "ci.md"
	}
	return w.Doc
}

// GitHub says whether the workflow is a GitHub Actions workflow.
func (w workflow) GitHub() bool { return strings.HasPrefix(w.File, ".github/workflows/") }

// namedFile finds the CI file a heading names in backticks, such as
// `.github/workflows/skewtest.yml` or `.gitlab-ci.yml`.
var namedFile = regexp.MustCompile("`([^`]*(?:\\.github/workflows/[^`]+\\.ya?ml|\\.gitlab-ci\\.yml))`")

// workflows reads the ```yaml blocks of a CI document, each named by the file its nearest
// heading above names ("" when none does).
func workflows(path string) ([]workflow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []workflow
	lines := strings.Split(string(data), "\n")
	file, fence, start := "", "", 0
	for i, line := range lines {
		switch {
		case fence != "" && strings.HasPrefix(line, "```"):
			if fence == "```yaml" {
				out = append(out, workflow{File: file, Line: start + 1, Text: strings.Join(lines[start:i], "\n") + "\n"})
			}
			fence = ""
		case fence != "":
		case strings.HasPrefix(line, "```"):
			fence, start = strings.TrimSpace(line), i+1
		case heading.MatchString(line):
			file = ""
			if m := namedFile.FindStringSubmatch(line); m != nil {
				file = m[1]
			}
		}
	}
	return out, nil
}

// usesAction finds the steps that use skewtest's Action: `uses: skewtest/skewtest@REF`.
var usesAction = regexp.MustCompile(`(?m)^(\s*(?:-\s+)?uses:\s*)skewtest/skewtest@"?([^\s"#]+)"?`)

// lint lints a GitHub Actions workflow with actionlint, shellcheck and pyflakes off (they are
// programs of their own), and returns its errors as lines of ci.md. Steps that use skewtest's
// Action use this repository's action.yml instead (`uses: ./`), so the inputs they give and the
// outputs they read are checked against it.
func lint(w workflow) ([]string, error) {
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{
		Shellcheck: "", Pyflakes: "", WorkingDir: GinkgoT().TempDir(),
	})
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	project, err := actionlint.NewProject(abs)
	if err != nil {
		return nil, err
	}
	text := usesAction.ReplaceAllString(w.Text, "${1}./")
	errs, err := l.Lint(w.File, []byte(text), project)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s [%s]", w.doc(), w.Line+e.Line-1, e.Column, w.File, e.Message, e.Kind))
	}
	return out, nil
}

var (
	// A skewtest ref a workflow installs or builds from.
	refVariable = regexp.MustCompile(`(?m)^\s*SKEWTEST_(?:REF|VERSION):\s*"?([^\s"#]+)`)
	refInstall  = regexp.MustCompile(`skewtest/cmd/skewtest@"?([^\s"$]+)`)
	// A version tag, anywhere.
	versionTag = regexp.MustCompile(`\bv\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?\b`)
)

// missingRefs lists what a workflow names that repo does not have: a skewtest ref it builds
// or installs from that is no branch, tag or commit of repo, and a version tag (vX.Y.Z) that
// is not one of repo's tags.
func missingRefs(repo *git.Repository, w workflow) []string {
	var out []string
	at := func(idx int) int { return w.Line + strings.Count(w.Text[:idx], "\n") }
	for _, re := range []*regexp.Regexp{refVariable, refInstall, usesAction} {
		for _, m := range re.FindAllStringSubmatchIndex(w.Text, -1) {
			i := 2
			if re == usesAction {
				i = 4
			}
			ref := w.Text[m[i]:m[i+1]]
			if !resolves(repo, ref) {
				out = append(out, fmt.Sprintf("ci.md:%d: %s builds skewtest from %s, which is no branch, tag or commit of skewtest", at(m[i]), w.File, ref))
			}
		}
	}
	for _, m := range versionTag.FindAllStringIndex(w.Text, -1) {
		tag := w.Text[m[0]:m[1]]
		if _, err := repo.Tag(tag); err != nil {
			out = append(out, fmt.Sprintf("ci.md:%d: %s names version %s, which is not a tag of skewtest (git tag -l)", at(m[0]), w.File, tag))
		}
	}
	return out
}

// resolves says whether ref is a branch (local or remote), a tag or a commit of repo.
func resolves(repo *git.Repository, ref string) bool {
	if _, err := repo.ResolveRevision(plumbing.Revision(ref)); err == nil {
		return true
	}
	refs, err := repo.References()
	if err != nil {
		return false
	}
	found := errors.New("found")
	err = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Name().IsRemote() && strings.HasSuffix(r.Name().Short(), "/"+ref) {
			return found
		}
		return nil
	})
	return errors.Is(err, found)
}

func openRepo() *git.Repository {
	GinkgoHelper()
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		Skip("skewtest's source is not a git repository here: its refs cannot be checked")
	}
	Expect(err).NotTo(HaveOccurred())
	return repo
}

var _ = Describe("the CI workflows of docs/ci.md", func() {
	ciDoc := filepath.Join(root, "docs", "ci.md")
	var all []workflow
	BeforeEach(func() {
		var err error
		all, err = workflows(ciDoc)
		Expect(err).NotTo(HaveOccurred())
	})

	It("are the three GitHub workflows and the GitLab CI file, each named by its heading", func() {
		var files []string
		for _, w := range all {
			files = append(files, w.File)
		}
		Expect(files).To(Equal([]string{".github/workflows/skewtest.yml", ".github/workflows/skewtest-nightly.yml", ".github/workflows/skewtest-fixtures.yml", ".gitlab-ci.yml"}))
	})

	It("lint clean with actionlint, the GitHub ones", func() {
		n, errs := 0, []string{}
		for _, w := range all {
			if !w.GitHub() {
				continue
			}
			n++
			e, err := lint(w)
			Expect(err).NotTo(HaveOccurred())
			errs = append(errs, e...)
		}
		Expect(n).To(Equal(3))
		Expect(errs).To(BeEmpty())
	})

	It("are YAML, the GitLab one too", func() {
		for _, w := range all {
			var doc map[string]any
			Expect(yaml.Unmarshal([]byte(w.Text), &doc)).To(Succeed(), "%s at ci.md:%d", w.File, w.Line)
			Expect(doc).NotTo(BeEmpty())
		}
	})

	It("build skewtest from a ref that exists, and name no version that was never tagged", func() {
		repo := openRepo()
		var missing []string
		for _, w := range all {
			missing = append(missing, missingRefs(repo, w)...)
		}
		Expect(missing).To(BeEmpty())
	})

	It("would catch a workflow that lints badly or installs a version never tagged", func() {
		bad := workflow{File: ".github/workflows/bad.yml", Line: 10, Text: `on: push
env:
  SKEWTEST_VERSION: v0.1.0
jobs:
  skew:
    runs-on: ubuntu-latest
    steps:
      - run: go install github.com/skewtest/skewtest/cmd/skewtest@v0.1.0
      - run: echo ${{ matrix.shard }}
`}
		errs, err := lint(bad)
		Expect(err).NotTo(HaveOccurred())
		Expect(errs).To(ContainElement(HavePrefix("ci.md:18:")), "the undefined matrix is found, on ci.md's line")
		repo := openRepo()
		Expect(missingRefs(repo, bad)).To(ConsistOf(
			"ci.md:12: .github/workflows/bad.yml builds skewtest from v0.1.0, which is no branch, tag or commit of skewtest",
			"ci.md:17: .github/workflows/bad.yml builds skewtest from v0.1.0, which is no branch, tag or commit of skewtest",
			"ci.md:12: .github/workflows/bad.yml names version v0.1.0, which is not a tag of skewtest (git tag -l)",
			"ci.md:17: .github/workflows/bad.yml names version v0.1.0, which is not a tag of skewtest (git tag -l)",
		))
		Expect(resolves(repo, "main")).To(BeTrue(), "skewtest's default branch")
	})

	It("would catch a step that gives the Action an input it lacks, reads an output it lacks, or uses a ref never made", func() {
		bad := workflow{File: ".github/workflows/bad.yml", Line: 10, Text: `on: push
jobs:
  skew:
    runs-on: ubuntu-latest
    steps:
      - id: skew
        uses: skewtest/skewtest@v0.1.0
        with:
          pin: main
      - run: echo "${{ steps.skew.outputs.passes }} ${{ steps.skew.outputs.passed }}"
`}
		errs, err := lint(bad)
		Expect(err).NotTo(HaveOccurred())
		Expect(errs).To(ConsistOf(
			And(HavePrefix("ci.md:18:"), ContainSubstring(`input "pin" is not defined`)),
			And(HavePrefix("ci.md:19:"), ContainSubstring(`property "passes" is not defined`)),
		))
		Expect(missingRefs(openRepo(), bad)).To(ConsistOf(
			"ci.md:16: .github/workflows/bad.yml builds skewtest from v0.1.0, which is no branch, tag or commit of skewtest",
			"ci.md:16: .github/workflows/bad.yml names version v0.1.0, which is not a tag of skewtest (git tag -l)",
		))
	})

	It("use skewtest's Action in every GitHub job; only the GitLab file builds skewtest itself", func() {
		for _, w := range all {
			if !w.GitHub() {
				Expect(w.Text).To(ContainSubstring("make -C /tmp/skewtest build"), w.File)
				continue
			}
			Expect(w.Text).NotTo(ContainSubstring("git clone"), w.File)
			var doc struct {
				Jobs map[string]struct {
					Steps []struct {
						Uses string `yaml:"uses"`
					} `yaml:"steps"`
				} `yaml:"jobs"`
			}
			Expect(yaml.Unmarshal([]byte(w.Text), &doc)).To(Succeed())
			Expect(doc.Jobs).NotTo(BeEmpty(), w.File)
			for name, job := range doc.Jobs {
				var uses []string
				for _, s := range job.Steps {
					uses = append(uses, s.Uses)
				}
				Expect(uses).To(ContainElement(HavePrefix("skewtest/skewtest@")), "%s: job %s", w.File, name)
			}
		}
	})
})

// stepsAfterAction are the GitHub steps the other docs show (a ```yaml block that is a list of
// steps, such as bisect.md's), each as a workflow whose job uses skewtest's Action first: the
// steps a doc suggests come after it.
func stepsAfterAction() ([]workflow, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	const head = "on: push\njobs:\n  skew:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: skewtest/skewtest@main\n"
	var out []workflow
	for _, f := range files {
		if filepath.Base(f) == "ci.md" {
			continue
		}
		blocks, err := workflows(f)
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			if !isSteps(b.Text) {
				continue
			}
			var text strings.Builder
			text.WriteString(head)
			for line := range strings.Lines(b.Text) {
				text.WriteString("      " + line)
			}
			out = append(out, workflow{File: ".github/workflows/" + strings.TrimSuffix(filepath.Base(f), ".md") + ".yml",
				Line: b.Line - strings.Count(head, "\n"), Text: text.String(), Doc: filepath.Base(f)})
		}
	}
	return out, nil
}

// isSteps says whether YAML text is a list of GitHub steps: mappings with run or uses.
func isSteps(text string) bool {
	var steps []map[string]any
	if yaml.Unmarshal([]byte(text), &steps) != nil || len(steps) == 0 {
		return false
	}
	for _, s := range steps {
		_, run := s["run"]
		_, uses := s["uses"]
		if !run && !uses {
			return false
		}
	}
	return true
}

var _ = Describe("the GitHub steps the other docs show", func() {
	It("lint clean with actionlint after a step that uses the Action", func() {
		all, err := stepsAfterAction()
		Expect(err).NotTo(HaveOccurred())
		Expect(all).NotTo(BeEmpty(), "bisect.md's step, at least")
		var errs []string
		for _, w := range all {
			e, err := lint(w)
			Expect(err).NotTo(HaveOccurred())
			errs = append(errs, e...)
		}
		Expect(errs).To(BeEmpty())
	})

	It("would be found, and an error in one reported on its document's line", func() {
		dir := GinkgoT().TempDir()
		doc := filepath.Join(dir, "x.md")
		Expect(os.WriteFile(doc, []byte("# X\n\n```yaml\n- name: a step\n  run: echo ${{ matrix.shard }}\n```\n\n```yaml\nproduct: x\n```\n"), 0o644)).To(Succeed())
		blocks, err := workflows(doc)
		Expect(err).NotTo(HaveOccurred())
		Expect(blocks).To(HaveLen(2))
		Expect(isSteps(blocks[0].Text)).To(BeTrue())
		Expect(isSteps(blocks[1].Text)).To(BeFalse(), "a skewtest.yaml")
		const head = 6 // the lines stepsAfterAction puts first
		w := workflow{File: ".github/workflows/x.yml", Line: blocks[0].Line - head, Doc: "x.md",
			Text: "on: push\njobs:\n  skew:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: skewtest/skewtest@main\n      - name: a step\n        run: echo ${{ matrix.shard }}\n"}
		errs, err := lint(w)
		Expect(err).NotTo(HaveOccurred())
		Expect(errs).To(ConsistOf(HavePrefix("x.md:5:")))
	})
})
