package builds_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary guard the build steps its specs start (proc.Main), and
// be a helper process that builds and waits to be killed (see interrupt_test.go).
func TestMain(m *testing.M) {
	proc.Main()
	if os.Getenv(helperRepo) != "" {
		os.Exit(helper())
	}
	os.Exit(m.Run())
}

func TestBuilds(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "builds")
}

// subject is a fixture repository made with go-git. Its recipe appends a line to a counter
// file outside the cache, so a spec can tell how many times the recipe ran.
type subject struct {
	dir     string
	counter string
	repo    *git.Repository
	n       int
}

// newSubject makes a repository in dir with a skewtest.yaml whose recipe appends to
// counter and copies driver.sh to $SKEWTEST_OUT/driver.
func newSubject(dir, counter string, extraSteps ...string) (*subject, error) {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, err
	}
	s := &subject{dir: dir, counter: counter, repo: repo}
	steps := append([]string{
		fmt.Sprintf("echo run >> %q", counter),
		`cp driver.sh "$SKEWTEST_OUT/driver"`,
	}, extraSteps...)
	if err := s.write("skewtest.yaml", subjectConfig(steps...), 0o644); err != nil {
		return nil, err
	}
	if err := s.write("driver.sh", "#!/bin/sh\necho driver \"$@\"\n", 0o755); err != nil {
		return nil, err
	}
	return s, nil
}

func subjectConfig(steps ...string) string {
	var b strings.Builder
	b.WriteString("product: fixture\ncontract: contract.json\nbuild:\n  steps:\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "    - %q\n", s)
	}
	b.WriteString("drivers:\n  host: [\"./driver\", \"host\"]\n  clients:\n    desktop: [\"./driver\", \"client\", \"desktop\"]\n")
	return b.String()
}

func (s *subject) write(rel, content string, perm os.FileMode) error {
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		return err
	}
	return os.Chmod(p, perm)
}

// commit stages everything not ignored and commits it with a fixed author and date.
func (s *subject) commit(msg string) (plumbing.Hash, error) {
	s.n++
	wt, err := s.repo.Worktree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return plumbing.ZeroHash, err
	}
	sig := &object.Signature{
		Name: "Fixture", Email: "fixture@example.com",
		When: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(s.n) * time.Minute),
	}
	return wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
}

func (s *subject) tag(name string, h plumbing.Hash, annotated bool) error {
	var opts *git.CreateTagOptions
	if annotated {
		opts = &git.CreateTagOptions{
			Tagger:  &object.Signature{Name: "Fixture", Email: "fixture@example.com", When: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
			Message: name,
		}
	}
	_, err := s.repo.CreateTag(name, h, opts)
	return err
}

// runs is how many times the recipe ran.
func (s *subject) runs() int {
	data, err := os.ReadFile(s.counter)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "run\n")
}

// mustSubject is newSubject for specs.
func mustSubject(extraSteps ...string) *subject {
	GinkgoHelper()
	tmp := GinkgoT().TempDir()
	s, err := newSubject(filepath.Join(tmp, "repo"), filepath.Join(tmp, "counter"), extraSteps...)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func (s *subject) mustWrite(rel, content string, perm os.FileMode) {
	GinkgoHelper()
	Expect(s.write(rel, content, perm)).To(Succeed())
}

func (s *subject) mustCommit(msg string) plumbing.Hash {
	GinkgoHelper()
	h, err := s.commit(msg)
	Expect(err).NotTo(HaveOccurred())
	return h
}

func readFile(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}
