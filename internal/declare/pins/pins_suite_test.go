package pins_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPins(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "pins")
}

var signature = object.Signature{
	Name:  "Fixture",
	Email: "fixture@example.com",
	When:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
}

// fixture is a git repository in a temporary directory, built with go-git.
type fixture struct {
	dir  string
	repo *git.Repository
	n    int
}

func newFixture() *fixture {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	repo, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	return &fixture{dir: dir, repo: repo}
}

// write writes a file of the working tree.
func (f *fixture) write(rel, content string) {
	GinkgoHelper()
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	Expect(os.WriteFile(p, []byte(content), 0o644)).To(Succeed())
}

// commit writes VERSION and commits every change, returning the commit hash.
func (f *fixture) commit(msg string) plumbing.Hash {
	GinkgoHelper()
	f.n++
	wt, err := f.repo.Worktree()
	Expect(err).NotTo(HaveOccurred())
	f.write("VERSION", msg+"\n")
	Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
	sig := signature
	sig.When = sig.When.Add(time.Duration(f.n) * time.Minute)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &sig, Committer: &sig})
	Expect(err).NotTo(HaveOccurred())
	return h
}

// tag tags a new commit; annotated tags get a tagger and a message.
func (f *fixture) tag(name string, annotated bool) plumbing.Hash {
	GinkgoHelper()
	h := f.commit("release " + name)
	var opts *git.CreateTagOptions
	if annotated {
		opts = &git.CreateTagOptions{Tagger: &signature, Message: "release " + name}
	}
	_, err := f.repo.CreateTag(name, h, opts)
	Expect(err).NotTo(HaveOccurred())
	return h
}

// remove removes a file of the working tree.
func (f *fixture) remove(rel string) {
	GinkgoHelper()
	Expect(os.Remove(filepath.Join(f.dir, filepath.FromSlash(rel)))).To(Succeed())
}
