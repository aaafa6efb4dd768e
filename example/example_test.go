package example_test

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/example"
)

func write(dir, name, text string) {
	p := filepath.Join(dir, name)
	Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
}

const history = `author: {name: bot, email: bot@example.invalid}
releases:
  - tag: v1.0.0
    date: 2026-01-01T00:00:00Z
    message: first
    set: {span: false, sessionProtocol: 1}
  - tag: v1.1.0
    date: 2026-02-01T00:00:00Z
    message: second
    set: {span: true}
otherTags:
  - {tag: mobile-v9.0.0, at: v1.0.0}
worktree:
  set: {sessionProtocol: 2}
`

const template = `{"contractVersion": 1, "channels": [{"name": "t", "paths": ["/t"], "frames": [
  {"opcode": 1, "name": "Output", "direction": "H>C"},
  {"opcode": 15, "name": "OutputSpan", "direction": "H>C", "feature": "span"},
  {"opcode": 1, "name": "Legacy", "direction": "H>C", "feature": "!span"}
]}]}`

var _ = Describe("Write", func() {
	var src, dest string
	BeforeEach(func() {
		src, dest = GinkgoT().TempDir(), filepath.Join(GinkgoT().TempDir(), "repo")
		write(src, "history.yaml", history)
		write(src, "contract.template.json", template)
		write(src, "main.go", "package main\n")
		write(src, "release/release.json", `{"stale": true}`)
		write(src, "history/v1.1.0/NEWS", "1.1\n")
	})

	It("writes every release as a tagged commit, with its own features and contract", func() {
		w, err := example.Write(src, dest)
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Tags).To(Equal([]string{"v1.0.0", "v1.1.0", "mobile-v9.0.0"}))
		Expect(w.Worktree).To(ConsistOf("release/release.json", "skewtest-contract.json"))

		repo, err := git.PlainOpen(dest)
		Expect(err).NotTo(HaveOccurred())
		read := func(tag, file string) string {
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
		var r map[string]any
		Expect(json.Unmarshal([]byte(read("v1.0.0", "release/release.json")), &r)).To(Succeed())
		Expect(r).To(Equal(map[string]any{"version": "v1.0.0", "span": false, "sessionProtocol": float64(1)}))
		Expect(read("v1.0.0", "skewtest-contract.json")).To(ContainSubstring(`"Legacy"`))
		Expect(read("v1.0.0", "skewtest-contract.json")).NotTo(ContainSubstring(`OutputSpan`))
		Expect(read("v1.0.0", "NEWS")).To(BeEmpty())
		Expect(read("v1.1.0", "skewtest-contract.json")).To(ContainSubstring(`OutputSpan`))
		Expect(read("v1.1.0", "skewtest-contract.json")).NotTo(ContainSubstring(`Legacy`))
		Expect(read("v1.1.0", "skewtest-contract.json")).NotTo(ContainSubstring(`feature`))
		Expect(read("v1.1.0", "NEWS")).To(Equal("1.1\n"))
		Expect(read("v1.1.0", "history.yaml")).To(BeEmpty())
		Expect(read("mobile-v9.0.0", "release/release.json")).To(ContainSubstring(`"version": "v1.0.0"`))

		wt, err := os.ReadFile(filepath.Join(dest, "skewtest-contract.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(wt)).To(ContainSubstring(`"minCompatible": 1`))
		Expect(string(wt)).To(MatchRegexp(`"protocol": \{\s*"minCompatible": 1,\s*"version": 2`))
	})

	It("writes the same commits every time", func() {
		_, err := example.Write(src, dest)
		Expect(err).NotTo(HaveOccurred())
		dest2 := filepath.Join(GinkgoT().TempDir(), "again")
		_, err = example.Write(src, dest2)
		Expect(err).NotTo(HaveOccurred())
		head := func(dir string) plumbing.Hash {
			repo, err := git.PlainOpen(dir)
			Expect(err).NotTo(HaveOccurred())
			ref, err := repo.Head()
			Expect(err).NotTo(HaveOccurred())
			return ref.Hash()
		}
		Expect(head(dest)).To(Equal(head(dest2)))
	})

	It("refuses a directory that is not empty", func() {
		write(dest, "x", "")
		_, err := example.Write(src, dest)
		Expect(err).To(MatchError(ContainSubstring("is not empty")))
	})

	It("refuses a history with an unknown key", func() {
		write(src, "history.yaml", history+"extra: 1\n")
		_, err := example.Write(src, dest)
		Expect(err).To(MatchError(ContainSubstring("field extra not found")))
	})

	It("finds the bundled subject from inside the checkout", func() {
		dir, err := example.FindSource("")
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(dir, "history.yaml")).To(BeAnExistingFile())
		_, err = example.FindSource(GinkgoT().TempDir())
		Expect(err).To(MatchError(ContainSubstring("not the reference subject's source")))
	})
})
