package example_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/adopt/example/internal/bundle"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

func write(dir, name, text string) {
	GinkgoHelper()
	p := filepath.Join(dir, name)
	Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
}

const history = `author: {name: bot, email: bot@example.invalid}
featuresFile: release/release.json
contract:
  template: contract.template.json
  path: skewtest-contract.json
  protocolFrom: {version: proto, minCompatible: protoMin}
releases:
  - tag: v1.0.0
    date: 2026-01-01T00:00:00Z
    message: first
    set: {span: false, proto: 1, protoMin: 1}
  - tag: v1.1.0
    date: 2026-02-01T00:00:00Z
    message: second
    set: {span: true}
  - tag: v1.2.0
    date: 2026-03-01T00:00:00Z
    message: third
otherTags:
  - {tag: mobile-v9.0.0, at: v1.0.0}
worktree:
  set: {proto: 2}
`

const template = `{"contractVersion": 1, "channels": [{"name": "t", "paths": ["/t"], "frames": [
  {"opcode": 1, "name": "Output", "direction": "H>C"},
  {"opcode": 15, "name": "OutputSpan", "direction": "H>C", "feature": "span"},
  {"opcode": 1, "name": "Legacy", "direction": "H>C", "feature": "!span"}
]}]}`

const knownBugs = `knownBugs:
  - host: v1.2.0
    client: v1.0.0
    kind: desktop
    journey: terminal
    finds: [decoder-refusal]
    why: OutputSpan reaches an old decoder
`

// reader reads files of a written repository at a tag.
func reader(dir string) func(tag, file string) string {
	repo, err := git.PlainOpen(dir)
	Expect(err).NotTo(HaveOccurred())
	return func(tag, file string) string {
		GinkgoHelper()
		h, err := repo.ResolveRevision(plumbing.Revision(tag + "^{commit}"))
		Expect(err).NotTo(HaveOccurred())
		c, err := repo.CommitObject(*h)
		Expect(err).NotTo(HaveOccurred())
		f, err := c.File(file)
		if err != nil {
			return ""
		}
		s, err := f.Contents()
		Expect(err).NotTo(HaveOccurred())
		return s
	}
}

func head(dir string) plumbing.Hash {
	GinkgoHelper()
	repo, err := git.PlainOpen(dir)
	Expect(err).NotTo(HaveOccurred())
	ref, err := repo.Head()
	Expect(err).NotTo(HaveOccurred())
	return ref.Hash()
}

// withCommits is history with a brokenFile and intermediate commits before v1.1.0 (the
// change of span not the last of them, its set re-applied by the release) and before
// v1.2.0 (a broken commit, then one that fixes it and sets a feature of its own).
var withCommits = strings.NewReplacer(
	"featuresFile: release/release.json\n", "featuresFile: release/release.json\nbrokenFile: wip.go\n",
	"    set: {span: true}\n", `    set: {span: true}
    commits:
      - {date: 2026-01-10T00:00:00Z, message: "wire: define span"}
      - {date: 2026-01-20T00:00:00Z, message: "host: send spans", set: {span: true}}
      - {date: 2026-01-25T00:00:00Z, message: "docs: spans"}
`,
	"    message: third\n", `    message: third
    commits:
      - {date: 2026-02-10T00:00:00Z, message: "wip (does not build)", broken: true}
      - {date: 2026-02-20T00:00:00Z, message: "fix the build", set: {gate: true}}
`).Replace(history)

// logged is one commit of a written repository's history.
type logged struct {
	Hash    plumbing.Hash
	Message string
	Date    time.Time
}

// firstParents lists the commits from the root to ref, oldest first, following first
// parents.
func firstParents(dir, ref string) []logged {
	GinkgoHelper()
	repo, err := git.PlainOpen(dir)
	Expect(err).NotTo(HaveOccurred())
	h, err := repo.ResolveRevision(plumbing.Revision(ref + "^{commit}"))
	Expect(err).NotTo(HaveOccurred())
	c, err := repo.CommitObject(*h)
	Expect(err).NotTo(HaveOccurred())
	var out []logged
	for {
		Expect(c.Committer.When.Equal(c.Author.When)).To(BeTrue(), c.Message)
		out = append([]logged{{Hash: c.Hash, Message: c.Message, Date: c.Author.When.UTC()}}, out...)
		if c.NumParents() == 0 {
			return out
		}
		c, err = c.Parent(0)
		Expect(err).NotTo(HaveOccurred())
	}
}

// treeOf returns the hash of ref's tree.
func treeOf(dir, ref string) plumbing.Hash {
	GinkgoHelper()
	repo, err := git.PlainOpen(dir)
	Expect(err).NotTo(HaveOccurred())
	h, err := repo.ResolveRevision(plumbing.Revision(ref + "^{commit}"))
	Expect(err).NotTo(HaveOccurred())
	c, err := repo.CommitObject(*h)
	Expect(err).NotTo(HaveOccurred())
	return c.TreeHash
}

func date(s string) time.Time {
	GinkgoHelper()
	t, err := time.Parse(time.RFC3339, s)
	Expect(err).NotTo(HaveOccurred())
	return t
}

var _ = Describe("Write", func() {
	var src, dest string
	source := func() *example.Source {
		GinkgoHelper()
		s, err := example.SourceDir(src)
		Expect(err).NotTo(HaveOccurred())
		return s
	}
	BeforeEach(func() {
		src, dest = filepath.Join(GinkgoT().TempDir(), "subject"), filepath.Join(GinkgoT().TempDir(), "repo")
		write(src, "history.yaml", history)
		write(src, "contract.template.json", template)
		write(src, "main.go", "package main\n")
		write(src, "release/release.json", `{"stale": true}`)
		write(src, "history/v1.1.0/NEWS", "1.1\n")
		write(src, "history/v1.1.0/main.go", "package main // 1.1\n")
		write(src, "history/worktree/NEWS", "next\n")
	})

	It("writes every release as a tagged commit, with its own features and contract", func() {
		w, err := example.Write(source(), dest)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Tags).To(Equal([]string{"v1.0.0", "v1.1.0", "v1.2.0", "mobile-v9.0.0"}))
		Expect(w.Worktree).To(ConsistOf("NEWS", "release/release.json", "skewtest-contract.json"))

		read := reader(dest)
		var r map[string]any
		Expect(json.Unmarshal([]byte(read("v1.0.0", "release/release.json")), &r)).To(Succeed())
		Expect(r).To(Equal(map[string]any{"version": "v1.0.0", "span": false, "proto": 1.0, "protoMin": 1.0}))
		Expect(read("v1.0.0", "skewtest-contract.json")).To(ContainSubstring(`"Legacy"`))
		Expect(read("v1.0.0", "skewtest-contract.json")).NotTo(ContainSubstring(`OutputSpan`))
		Expect(read("v1.1.0", "skewtest-contract.json")).To(ContainSubstring(`OutputSpan`))
		Expect(read("v1.1.0", "skewtest-contract.json")).NotTo(ContainSubstring(`Legacy`))
		Expect(read("v1.1.0", "skewtest-contract.json")).NotTo(ContainSubstring(`feature`))
		Expect(read("v1.1.0", "history.yaml")).To(BeEmpty())
		Expect(read("v1.1.0", "contract.template.json")).To(BeEmpty())
		Expect(read("mobile-v9.0.0", "release/release.json")).To(ContainSubstring(`"version": "v1.0.0"`))

		wt, err := os.ReadFile(filepath.Join(dest, "skewtest-contract.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(wt)).To(MatchRegexp(`"protocol": \{\s*"minCompatible": 1,\s*"version": 2`))
		Expect(string(wt)).To(ContainSubstring(`"version": "worktree"`))
	})

	It("lays history/<tag>/ over the tree from that release on, and history/worktree/ over the working tree", func() {
		_, err := example.Write(source(), dest)
		Expect(err).NotTo(HaveOccurred())
		read := reader(dest)
		Expect(read("v1.0.0", "NEWS")).To(BeEmpty())
		Expect(read("v1.0.0", "main.go")).To(Equal("package main\n"))
		Expect(read("v1.1.0", "NEWS")).To(Equal("1.1\n"))
		Expect(read("v1.1.0", "main.go")).To(Equal("package main // 1.1\n"))
		Expect(read("v1.2.0", "main.go")).To(Equal("package main // 1.1\n"))
		Expect(read("v1.2.0", "NEWS")).To(Equal("1.1\n"))
		Expect(os.ReadFile(filepath.Join(dest, "NEWS"))).To(Equal([]byte("next\n")))
		Expect(filepath.Join(dest, "history")).NotTo(BeAnExistingFile())
	})

	It("says which known bugs the history declares: none unless it lists them", func() {
		w, err := example.Write(source(), dest)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.KnownBugs).To(BeEmpty())

		write(src, "history.yaml", history+knownBugs)
		w, err = example.Write(source(), filepath.Join(GinkgoT().TempDir(), "again"))
		Expect(err).NotTo(HaveOccurred())
		Expect(w.KnownBugs).To(Equal([]example.KnownBug{{Host: "v1.2.0", Client: "v1.0.0", Kind: "desktop", Journey: "terminal",
			Finds: []results.Kind{results.DecoderRefusal}, Why: "OutputSpan reaches an old decoder"}}))
		Expect(w.KnownBugs[0].Label()).To(Equal("host v1.2.0 × desktop client v1.0.0 · terminal"))
	})

	It("writes the same commits every time", func() {
		_, err := example.Write(source(), dest)
		Expect(err).NotTo(HaveOccurred())
		dest2 := filepath.Join(GinkgoT().TempDir(), "again")
		_, err = example.Write(source(), dest2)
		Expect(err).NotTo(HaveOccurred())
		Expect(head(dest)).To(Equal(head(dest2)))
	})

	It("writes only the subject's files when the history derives nothing", func() {
		write(src, "history.yaml", "author: {name: bot, email: bot@example.invalid}\nreleases:\n  - {tag: v1.0.0, date: 2026-01-01T00:00:00Z, message: first}\n")
		Expect(os.RemoveAll(filepath.Join(src, "history"))).To(Succeed())
		w, err := example.Write(source(), dest)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Worktree).To(BeEmpty())
		read := reader(dest)
		Expect(read("v1.0.0", "release/release.json")).To(Equal(`{"stale": true}`))
		Expect(read("v1.0.0", "contract.template.json")).To(Equal(template))
		Expect(read("v1.0.0", "skewtest-contract.json")).To(BeEmpty())
	})

	Describe("a subject whose drivers use the driver kit", func() {
		const gomod = "module example.com/shop\n\ngo 1.26.8\n\nrequire github.com/skewtest/skewtest v0.0.0-00010101000000-000000000000\n\nreplace github.com/skewtest/skewtest => ../..\n"
		BeforeEach(func() { write(src, "go.mod", gomod) })

		It("gets the kit in every tree, and its go.mod replace pointed at it", func() {
			write(src, "history/v1.1.0/go.mod", strings.Replace(gomod, "go 1.26.8", "go 1.26.8\n\n// 1.1", 1))
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			read := reader(dest)
			for _, tag := range []string{"v1.0.0", "v1.1.0", "v1.2.0"} {
				Expect(read(tag, "go.mod")).To(ContainSubstring("replace github.com/skewtest/skewtest => ./third_party/skewtest\n"), tag)
				Expect(read(tag, "go.mod")).NotTo(ContainSubstring("../.."), tag)
				Expect(read(tag, "third_party/skewtest/go.mod")).To(ContainSubstring("module github.com/skewtest/skewtest\n\ngo 1.26.8\n"), tag)
				Expect(read(tag, "third_party/skewtest/go.mod")).NotTo(ContainSubstring("require"), tag)
			}
			Expect(read("v1.0.0", "go.mod")).NotTo(ContainSubstring("// 1.1"))
			Expect(read("v1.2.0", "go.mod")).To(ContainSubstring("// 1.1"))
			kit, err := os.ReadFile("../../../driverkit/driver.go")
			Expect(err).NotTo(HaveOccurred())
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/driver.go")).To(Equal(string(kit)))
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/driverkit_test.go")).To(BeEmpty())
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/testdata/minimal/main.go")).To(BeEmpty())
			nodeKit, err := os.ReadFile("../../../driverkit/node/driverkit.js")
			Expect(err).NotTo(HaveOccurred())
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/node/driverkit.js")).To(Equal(string(nodeKit)), "the Node.js kit comes too")
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/node/driverkit.d.ts")).NotTo(BeEmpty())
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/node/node_test.go")).To(BeEmpty())
			Expect(read("v1.0.0", "third_party/skewtest/driverkit/node/testdata/minimal.js")).To(BeEmpty())
		})

		It("leaves a module that does not require skewtest alone", func() {
			write(src, "go.mod", "module example.com/shop\n\ngo 1.26.8\n")
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			Expect(reader(dest)("v1.0.0", "third_party/skewtest/go.mod")).To(BeEmpty())
		})
	})

	Describe("a release with intermediate commits", func() {
		BeforeEach(func() {
			write(src, "history.yaml", withCommits)
			write(src, "history/v1.1.0/extra.go", "package main\n")
		})

		It("writes them in order between the tags, untagged, dated as listed", func() {
			w, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.Tags).To(Equal([]string{"v1.0.0", "v1.1.0", "v1.2.0", "mobile-v9.0.0"}))
			log := firstParents(dest, "v1.2.0")
			var got []string
			for _, c := range log {
				got = append(got, c.Date.Format(time.RFC3339)+" "+c.Message)
			}
			Expect(got).To(Equal([]string{
				"2026-01-01T00:00:00Z first",
				"2026-01-10T00:00:00Z wire: define span",
				"2026-01-20T00:00:00Z host: send spans",
				"2026-01-25T00:00:00Z docs: spans",
				"2026-02-01T00:00:00Z second",
				"2026-02-10T00:00:00Z wip (does not build)",
				"2026-02-20T00:00:00Z fix the build",
				"2026-03-01T00:00:00Z third",
			}))
			Expect(firstParents(dest, "v1.0.0")).To(Equal(log[:1]))
			Expect(firstParents(dest, "v1.1.0")).To(Equal(log[:5]))
			Expect(firstParents(dest, "mobile-v9.0.0")).To(Equal(log[:1]))
			Expect(head(dest)).To(Equal(log[7].Hash))
		})

		It("carries a commit's set forward to later commits and the release", func() {
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			log, read := firstParents(dest, "v1.2.0"), reader(dest)
			features := func(ref string) map[string]any {
				GinkgoHelper()
				var f map[string]any
				Expect(json.Unmarshal([]byte(read(ref, "release/release.json")), &f)).To(Succeed())
				return f
			}
			Expect(features(log[1].Hash.String())).To(HaveKeyWithValue("span", false))
			Expect(features(log[1].Hash.String())).To(HaveKeyWithValue("version", "v1.1.0-dev.1"))
			Expect(features(log[2].Hash.String())).To(HaveKeyWithValue("span", true))
			Expect(features(log[2].Hash.String())).To(HaveKeyWithValue("version", "v1.1.0-dev.2"))
			Expect(read(log[2].Hash.String(), "skewtest-contract.json")).To(ContainSubstring("OutputSpan"))
			Expect(features(log[3].Hash.String())).To(HaveKeyWithValue("span", true))
			Expect(features(log[5].Hash.String())).NotTo(HaveKey("gate"))
			Expect(features(log[6].Hash.String())).To(HaveKeyWithValue("gate", true))
			Expect(features("v1.2.0")).To(Equal(map[string]any{"version": "v1.2.0", "span": true, "gate": true, "proto": 1.0, "protoMin": 1.0}))
			Expect(read(log[1].Hash.String(), "NEWS")).To(BeEmpty(), "history/v1.1.0/ is laid from the release on")
			Expect(read(log[5].Hash.String(), "NEWS")).To(Equal("1.1\n"))
		})

		It("gives a broken commit's tree, and no other, the broken file", func() {
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			log, read := firstParents(dest, "v1.2.0"), reader(dest)
			Expect(read(log[5].Hash.String(), "wip.go")).To(Equal("package main\n\n// work in progress\nfunc broken() { undefined_symbol() }\n"))
			for i, c := range log {
				if i != 5 {
					Expect(read(c.Hash.String(), "wip.go")).To(BeEmpty(), c.Message)
				}
			}
			for _, tag := range []string{"v1.0.0", "v1.1.0", "v1.2.0"} {
				Expect(read(tag, "wip.go")).To(BeEmpty(), tag)
			}
			Expect(filepath.Join(dest, "wip.go")).NotTo(BeAnExistingFile())
		})

		It("leaves every tag's tree as it is without the commits, when the release re-applies their sets", func() {
			write(src, "history.yaml", strings.Replace(withCommits, "    message: third\n", "    message: third\n    set: {gate: true}\n", 1))
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			without := filepath.Join(GinkgoT().TempDir(), "without")
			write(src, "history.yaml", strings.Replace(history, "    message: third\n", "    message: third\n    set: {gate: true}\n", 1))
			_, err = example.Write(source(), without)
			Expect(err).NotTo(HaveOccurred())
			for _, tag := range []string{"v1.0.0", "v1.1.0", "v1.2.0", "mobile-v9.0.0"} {
				Expect(treeOf(dest, tag)).To(Equal(treeOf(without, tag)), tag)
			}
			Expect(firstParents(dest, "v1.2.0")).To(HaveLen(8))
			Expect(firstParents(without, "v1.2.0")).To(HaveLen(3))
		})

		It("writes the same commits every time", func() {
			_, err := example.Write(source(), dest)
			Expect(err).NotTo(HaveOccurred())
			again := filepath.Join(GinkgoT().TempDir(), "again")
			_, err = example.Write(source(), again)
			Expect(err).NotTo(HaveOccurred())
			Expect(firstParents(again, "v1.2.0")).To(Equal(firstParents(dest, "v1.2.0")))
		})

		DescribeTable("refuses commits it cannot write",
			func(old, new, want string) {
				Expect(withCommits).To(ContainSubstring(old))
				write(src, "history.yaml", strings.Replace(withCommits, old, new, 1))
				_, err := example.Write(source(), dest)
				Expect(err).To(MatchError(ContainSubstring(want)))
			},
			Entry("a commit dated after its release", "2026-01-25T00:00:00Z", "2026-02-02T00:00:00Z",
				"history.yaml: releases[1] (v1.1.0): commits[2]: date 2026-02-02T00:00:00Z is not before the release's (2026-02-01T00:00:00Z): a release's commits come before it"),
			Entry("a commit dated on its release's date", "2026-01-25T00:00:00Z", "2026-02-01T00:00:00Z",
				"releases[1] (v1.1.0): commits[2]: date 2026-02-01T00:00:00Z is not before the release's"),
			Entry("a commit dated before the previous commit", "2026-01-25T00:00:00Z", "2026-01-15T00:00:00Z",
				"releases[1] (v1.1.0): commits[2]: date 2026-01-15T00:00:00Z is not after the previous commit's (2026-01-20T00:00:00Z): list commits oldest first"),
			Entry("a first commit dated before the previous release", "2026-02-10T00:00:00Z", "2026-01-31T00:00:00Z",
				"releases[2] (v1.2.0): commits[0]: date 2026-01-31T00:00:00Z is not after the previous commit's (2026-02-01T00:00:00Z)"),
			Entry("a commit without a date", "date: 2026-01-10T00:00:00Z, ", "",
				"releases[1] (v1.1.0): commits[0]: a commit needs a date"),
			Entry("a commit without a message", `message: "docs: spans"`, `message: ""`,
				"releases[1] (v1.1.0): commits[2]: a commit needs a message"),
			Entry("a broken commit without brokenFile", "brokenFile: wip.go\n", "",
				"a commit is broken: true, but brokenFile does not say where"),
			Entry("a brokenFile the subject has", "brokenFile: wip.go", "brokenFile: main.go",
				"brokenFile main.go: the subject has main.go; pick a name no tree has"),
			Entry("a brokenFile an overlay has", "brokenFile: wip.go", "brokenFile: extra.go",
				"brokenFile extra.go: the subject has history/v1.1.0/extra.go"),
			Entry("a brokenFile that is not Go", "brokenFile: wip.go", "brokenFile: wip.txt",
				`brokenFile "wip.txt": give a clean relative path of a Go file that is not a test`),
			Entry("a brokenFile where no Go package is", "brokenFile: wip.go", "brokenFile: release/wip.go",
				"brokenFile release/wip.go: release holds no Go package to break"),
		)
	})

	DescribeTable("refuses a history it cannot write",
		func(edit func(), want string) {
			edit()
			_, err := example.Write(source(), dest)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an unknown key", func() { write(src, "history.yaml", history+"extra: 1\n") }, "field extra not found"),
		Entry("an overlay for no release", func() { write(src, "history/v1.9.0/NEWS", "") }, "history/v1.9.0/: no release is tagged v1.9.0"),
		Entry("a tag listed twice", func() {
			write(src, "history.yaml", strings.Replace(history, "tag: v1.1.0", "tag: v1.0.0", 1))
		}, "tag v1.0.0 is listed twice"),
		Entry("another tag on no release", func() {
			write(src, "history.yaml", strings.Replace(history, "at: v1.0.0", "at: v0.9.0", 1))
		}, "tag mobile-v9.0.0 is at v0.9.0, which is not a release"),
		Entry("a protocol feature never set", func() {
			write(src, "history.yaml", strings.Replace(history, "protoMin: 1", "other: 1", 1))
		}, "contract.protocolFrom names features proto and protoMin"),
		Entry("a known bug on a build the history has not", func() {
			write(src, "history.yaml", history+strings.Replace(knownBugs, "client: v1.0.0", "client: v0.9.0", 1))
		}, "knownBugs[0]: client v0.9.0 is no tag of the history (refs: v1.0.0, v1.1.0, v1.2.0, mobile-v9.0.0, worktree)"),
		Entry("a known bug that finds no kind of finding skewtest has", func() {
			write(src, "history.yaml", history+strings.Replace(knownBugs, "finds: [decoder-refusal]", "finds: [decoder-refused]", 1))
		}, `knownBugs[0] (host v1.2.0 × desktop client v1.0.0 · terminal): finds: "decoder-refused" is no kind of finding (kinds: decoder-refusal, `),
		Entry("a known bug that finds nothing", func() {
			write(src, "history.yaml", history+strings.Replace(knownBugs, "finds: [decoder-refusal]", "finds: []", 1))
		}, "knownBugs[0] (host v1.2.0 × desktop client v1.0.0 · terminal): finds: list the kinds of finding"),
		Entry("a known bug without why", func() {
			write(src, "history.yaml", history+strings.Replace(knownBugs, "why: OutputSpan reaches an old decoder", "why: ''", 1))
		}, "knownBugs[0] (host v1.2.0 × desktop client v1.0.0 · terminal): why: say what the bug is in one line"),
		Entry("a known bug listed twice", func() {
			write(src, "history.yaml", history+knownBugs+strings.TrimPrefix(knownBugs, "knownBugs:\n"))
		}, "knownBugs[1]: host v1.2.0 × desktop client v1.0.0 · terminal is listed twice"),
	)

	It("refuses a directory that is not empty", func() {
		write(dest, "x", "")
		_, err := example.Write(source(), dest)
		Expect(err).To(MatchError(example.ErrNotEmpty))
	})

	DescribeTable("refuses to write a history as adopted late", func(adoption, at, want string) {
		write(src, "history.yaml", history+adoption)
		_, err := example.WriteWith(source(), dest, example.Options{AdoptedAt: at})
		Expect(err).To(MatchError(example.ErrOptions))
		Expect(err).To(MatchError(ContainSubstring(want)))
		Expect(err).To(MatchError(ContainSubstring("AdoptedAt "+at+": ")), "the option as Options names it")
		Expect(usage.Is(err)).To(BeTrue())
	},
		Entry("when it says nothing of adoption", "", "v1.1.0", "declares no adoption"),
		Entry("at its first release", "adoption:\n  files: [skewtest.yaml]\n", "v1.0.0", "the first release: no release predates it"),
		Entry("at a tag it does not have", "adoption:\n  files: [skewtest.yaml]\n", "v7.0.0", "no release is tagged so"),
	)
})

var _ = Describe("sources", func() {
	It("finds the bundled subject in the checkout, and the copy built in", func() {
		s, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Name).To(Equal("remoteterm"))
		Expect(filepath.Join(s.From, "history.yaml")).To(BeAnExistingFile())

		s, err = example.Embedded("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.From).To(Equal("the copy built into skewtest"))
		Expect(example.Subjects()).To(Equal([]string{"remoteterm", "notesd"}))
	})

	It("refuses an unknown subject and a directory without a history", func() {
		_, err := example.FindSource("teleport")
		Expect(err).To(MatchError(example.ErrUnknownSubject))
		Expect(err).To(MatchError(ContainSubstring("the example subjects are remoteterm")))
		_, err = example.SourceDir(GinkgoT().TempDir())
		Expect(err).To(MatchError(ContainSubstring("not an example subject's source (no history.yaml)")))
	})

	It("writes the built-in remoteterm so that a tag builds from its own repository", Label(testlabels.Slow), func(ctx SpecContext) {
		s, err := example.Embedded("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(s, repo)
		Expect(err).NotTo(HaveOccurred())

		checkout := filepath.Join(GinkgoT().TempDir(), "v1.4.120")
		clone, err := git.PlainClone(checkout, false, &git.CloneOptions{URL: repo})
		Expect(err).NotTo(HaveOccurred())
		tag, err := clone.ResolveRevision("v1.4.120^{commit}")
		Expect(err).NotTo(HaveOccurred())
		wt, err := clone.Worktree()
		Expect(err).NotTo(HaveOccurred())
		Expect(wt.Checkout(&git.CheckoutOptions{Hash: *tag})).To(Succeed())

		// Read-only modules: go.mod and go.sum must already say everything.
		build := exec.CommandContext(ctx, "go", "build", "./...")
		build.Dir = checkout
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		status, err := wt.Status()
		Expect(err).NotTo(HaveOccurred())
		Expect(status.IsClean()).To(BeTrue(), status.String())
	}, NodeTimeout(10*time.Minute))
})

var _ = Describe("remoteterm's planted commit that does not build", Label(testlabels.Slow), func() {
	// build runs the recipe of skewtest.yaml in dir at ref, with read-only modules.
	build := func(ctx SpecContext, dir string, clone *git.Repository, ref plumbing.Hash) (string, error) {
		GinkgoHelper()
		wt, err := clone.Worktree()
		Expect(err).NotTo(HaveOccurred())
		Expect(wt.Checkout(&git.CheckoutOptions{Hash: ref})).To(Succeed())
		cfg, err := builds.LoadConfig(filepath.Join(dir, builds.ConfigFile))
		Expect(err).NotTo(HaveOccurred())
		var out []byte
		for _, step := range cfg.Build.Steps {
			cmd := exec.CommandContext(ctx, "sh", "-c", step)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SKEWTEST_OUT="+GinkgoT().TempDir(), "GOWORK=off", "GOFLAGS=-mod=readonly")
			if out, err = cmd.CombinedOutput(); err != nil {
				return string(out), err
			}
		}
		return string(out), nil
	}

	It("fails the build recipe, and the commit after it builds", func(ctx SpecContext) {
		s, err := example.Embedded("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
		_, err = example.Write(s, repo)
		Expect(err).NotTo(HaveOccurred())
		log := firstParents(repo, "v1.4.190")
		i := slices.IndexFunc(log, func(c logged) bool { return c.Message == "wip: transformedRuns option (does not build)" })
		Expect(i).To(BeNumerically(">", 0))
		Expect(log[i+1].Message).To(Equal("transformedRuns: span | downgrade-to-text"))

		checkout := filepath.Join(GinkgoT().TempDir(), "checkout")
		clone, err := git.PlainClone(checkout, false, &git.CloneOptions{URL: repo})
		Expect(err).NotTo(HaveOccurred())
		out, err := build(ctx, checkout, clone, log[i].Hash)
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring("cmd/remoteterm-driver/wip.go"))
		Expect(out).To(ContainSubstring("undefined: undefined_symbol"))
		out, err = build(ctx, checkout, clone, log[i+1].Hash)
		Expect(err).NotTo(HaveOccurred(), out)
	}, NodeTimeout(10*time.Minute))
})

var _ = Describe("the built-in archive (sources.zip)", func() {
	It("holds what the repository holds", func() {
		archive, err := os.ReadFile("sources.zip")
		Expect(err).NotTo(HaveOccurred())
		err = bundle.Diff(archive, os.DirFS("../../.."))
		if errors.Is(err, bundle.ErrStale) {
			Fail(err.Error() + ", then commit internal/adopt/example/sources.zip")
		}
		Expect(err).NotTo(HaveOccurred())
	})

	It("names what changed since it was written", func() {
		root := GinkgoT().TempDir()
		write(root, "go.mod", "module github.com/skewtest/skewtest\n\ngo 1.26.8\n")
		write(root, "driverkit/kit.go", "package driverkit\n")
		write(root, "driverkit/kit_test.go", "package driverkit\n")
		write(root, "examples/remoteterm/history.yaml", "releases: []\n")
		write(root, "examples/remoteterm/host/host.go", "package host\n")
		write(root, "examples/remoteterm/.git/HEAD", "ref\n")
		write(root, "examples/remoteterm/host/host.test", "binary")
		write(root, "examples/notesd/history.yaml", "releases: []\n")
		var buf bytes.Buffer
		Expect(bundle.Write(&buf, os.DirFS(root))).To(Succeed())
		Expect(bundle.Diff(buf.Bytes(), os.DirFS(root))).To(Succeed())
		zr, err := bundle.Open(buf.Bytes())
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		Expect(names).To(Equal([]string{"driverkit/kit.go", "examples/notesd/history.yaml", "examples/remoteterm/history.yaml", "examples/remoteterm/host/host.go", "go.mod"}))

		var again bytes.Buffer
		Expect(bundle.Write(&again, os.DirFS(root))).To(Succeed())
		Expect(again.Bytes()).To(Equal(buf.Bytes()), "the same files make the same archive")

		write(root, "go.mod", "module github.com/skewtest/skewtest\n\ngo 1.26.8\n\nrequire golang.org/x/sync v0.25.0\n")
		Expect(bundle.Diff(buf.Bytes(), os.DirFS(root))).To(Succeed(), "only go.mod's go directive matters")

		write(root, "examples/remoteterm/host/host.go", "package host // changed\n")
		write(root, "examples/remoteterm/host/new.go", "package host\n")
		Expect(os.Remove(filepath.Join(root, "driverkit/kit.go"))).To(Succeed())
		write(root, "driverkit/other.go", "package driverkit\n")
		err = bundle.Diff(buf.Bytes(), os.DirFS(root))
		Expect(err).To(MatchError(bundle.ErrStale))
		Expect(err).To(MatchError(ContainSubstring("added driverkit/other.go, changed examples/remoteterm/host/host.go, added examples/remoteterm/host/new.go, removed driverkit/kit.go")))
	})
})

var _ = Describe("every subject's contracts", func() {
	for _, name := range example.Subjects() {
		It("parse at every tag and in the working tree: "+name, func() {
			src, err := example.FindSource(name)
			Expect(err).NotTo(HaveOccurred())
			dir := filepath.Join(GinkgoT().TempDir(), name)
			w, err := example.Write(src, dir)
			Expect(err).NotTo(HaveOccurred())
			repo, err := git.PlainOpen(dir)
			Expect(err).NotTo(HaveOccurred())
			cfg, err := builds.LoadConfig(filepath.Join(dir, builds.ConfigFile))
			Expect(err).NotTo(HaveOccurred())
			for _, tag := range w.Tags {
				h, err := repo.ResolveRevision(plumbing.Revision(tag))
				Expect(err).NotTo(HaveOccurred())
				commit, err := repo.CommitObject(*h)
				Expect(err).NotTo(HaveOccurred())
				f, err := commit.File(cfg.Contract)
				Expect(err).NotTo(HaveOccurred(), tag)
				text, err := f.Contents()
				Expect(err).NotTo(HaveOccurred())
				_, err = contract.Parse(tag+":"+cfg.Contract, []byte(text))
				Expect(err).NotTo(HaveOccurred(), tag)
			}
			_, err = contract.Load(filepath.Join(dir, cfg.Contract))
			Expect(err).NotTo(HaveOccurred(), "worktree")
		})
	}
})

var _ = Describe("a known bug's verdict", func() {
	bug := example.KnownBug{Host: "v1.4.180", Client: "v1.4.173", Kind: "desktop", Journey: "terminal",
		Finds: []results.Kind{results.Stall, results.DataLoss}, Why: "resyncs"}
	pairing := func(status results.Status, kinds ...results.Kind) *results.Pairing {
		p := &results.Pairing{Host: "v1.4.180", Client: "v1.4.173", ClientKind: "desktop", Journey: "terminal", Status: status}
		for _, k := range kinds {
			p.Findings = append(p.Findings, results.Finding{Kind: k})
		}
		return p
	}

	DescribeTable("is found as documented only when its pairing failed with every kind it finds",
		func(ps []*results.Pairing, missing string) {
			s := bug.Check(&results.Run{Pairings: ps})
			Expect(s.Missing).To(Equal(missing))
			Expect(s.Found()).To(Equal(missing == ""))
			if len(ps) > 0 && missing != "the run has no such pairing" {
				Expect(s.Pairing).To(BeIdenticalTo(ps[len(ps)-1]))
			}
		},
		Entry("every kind, and more", []*results.Pairing{pairing(results.StatusFail, results.DataLoss, results.SequenceDrift, results.Stall, results.DataLoss)}, ""),
		Entry("a kind missing", []*results.Pairing{pairing(results.StatusFail, results.DataLoss, results.SequenceDrift)},
			"no stall finding (it found data-loss, sequence-drift)"),
		Entry("a pass", []*results.Pairing{pairing(results.StatusPass)}, "the pairing's verdict is pass, not fail"),
		Entry("flaky", []*results.Pairing{pairing(results.StatusFlaky, results.Stall, results.DataLoss)},
			"the pairing's verdict is flaky, not fail (findings: stall, data-loss)"),
		Entry("an error", []*results.Pairing{func() *results.Pairing {
			p := pairing(results.StatusError)
			p.Error = "build v1.4.180: exit status 1"
			return p
		}()}, "the pairing could not be tested: build v1.4.180: exit status 1"),
		Entry("only another pairing", []*results.Pairing{{Host: "v1.4.180", Client: "v1.4.180", ClientKind: "desktop", Journey: "terminal", Status: results.StatusPass}},
			"the run has no such pairing"),
		Entry("after its reference", []*results.Pairing{
			{Host: "v1.4.173", Client: "v1.4.173", ClientKind: "desktop", Journey: "terminal", Status: results.StatusPass},
			pairing(results.StatusFail, results.Stall, results.DataLoss)}, ""),
	)
})

var _ = Describe("DriverKit", func() {
	It("is the Go driver kit as a module of its own: its go.mod and driverkit's sources, no specs, no Node.js kit", func() {
		kit, err := example.DriverKit()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(kit["go.mod"])).To(ContainSubstring("module github.com/skewtest/skewtest\n"))
		Expect(kit).To(HaveKey("driverkit/driver.go"))
		for name := range kit {
			Expect(name).NotTo(HaveSuffix("_test.go"))
			Expect(name).NotTo(HavePrefix("driverkit/node/"))
		}
	})
})
