package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// tinySubject is a fixture repository made with go-git: a shell "driver", a contract and
// tags v1.0.0 and v1.1.0 (annotated), a pre-release and a foreign tag.
type tinySubject struct {
	dir  string
	repo *git.Repository
	n    int
}

func newTinySubject(pinsSection string) *tinySubject {
	GinkgoHelper()
	s := &tinySubject{dir: GinkgoT().TempDir()}
	var err error
	s.repo, err = git.PlainInit(s.dir, false)
	Expect(err).NotTo(HaveOccurred())
	s.write("skewtest.yaml", "product: tiny\ncontract: contract.json\nbuild:\n  steps: ['cp driver.sh \"$SKEWTEST_OUT/driver\"']\n"+
		"drivers:\n  host: [./driver, host]\n  clients: {desktop: [./driver, client]}\njourneys: [tiny.txtar]\n"+pinsSection)
	s.write("driver.sh", "#!/bin/sh\nexit 1\n")
	s.write("tiny.txtar", "kind desktop\n-- script --\nstep a\nclient noop\n")
	s.write("contract.json", `{"contractVersion": 1, "product": "tiny", "protocol": {"version": 1, "minCompatible": 1}}`)
	for _, t := range []string{"v1.0.0", "v1.1.0", "v1.2.0-rc.1", "mobile-v2.0.0"} {
		s.tag(t, s.commit(t))
	}
	return s
}

func (s *tinySubject) write(rel, body string) {
	GinkgoHelper()
	Expect(os.WriteFile(filepath.Join(s.dir, rel), []byte(body), 0o644)).To(Succeed())
}

func (s *tinySubject) commit(msg string) plumbing.Hash {
	GinkgoHelper()
	s.n++
	s.write("VERSION", msg)
	wt, err := s.repo.Worktree()
	Expect(err).NotTo(HaveOccurred())
	Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
	sig := &object.Signature{Name: "F", Email: "f@example.com", When: time.Date(2025, 1, 1, 0, s.n, 0, 0, time.UTC)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	Expect(err).NotTo(HaveOccurred())
	return h
}

func (s *tinySubject) tag(name string, h plumbing.Hash) {
	GinkgoHelper()
	sig := &object.Signature{Name: "F", Email: "f@example.com", When: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, err := s.repo.CreateTag(name, h, &git.CreateTagOptions{Tagger: sig, Message: name})
	Expect(err).NotTo(HaveOccurred())
}

// move force-moves a tag to a new commit.
func (s *tinySubject) move(name string) plumbing.Hash {
	GinkgoHelper()
	h := s.commit("moved " + name)
	Expect(s.repo.DeleteTag(name)).To(Succeed())
	s.tag(name, h)
	return h
}

// cli runs skewtest in process and returns its exit code and output.
func cli(ctx context.Context, args ...string) (int, string) {
	var out bytes.Buffer
	code := exitCode(dispatch(ctx, args, &out, &out), &out)
	GinkgoWriter.Printf("skewtest %s -> %d\n%s", strings.Join(args, " "), code, out.String())
	return code, out.String()
}

var _ = Describe("skewtest pins", func() {
	It("prints the pins and why every other tag is skipped", func(ctx SpecContext) {
		s := newTinySubject("")
		code, out := cli(ctx, "pins", "--repo", s.dir)
		Expect(code).To(Equal(exitOK))
		Expect(out).To(MatchRegexp(`(?m)^v1\.1\.0\s+[0-9a-f]{40}\s+newest stable tag$`))
		Expect(out).To(MatchRegexp(`(?m)^v1\.0\.0\s+older than the newest stable tag v1\.1\.0$`))
		Expect(out).To(MatchRegexp(`(?m)^v1\.2\.0-rc\.1\s+pre-release`))
		Expect(out).To(MatchRegexp(`(?m)^mobile-v2\.0\.0\s+foreign prefix "mobile-"`))
	})

	It("reads the rules from the working tree's skewtest.yaml; flags replace them", func(ctx SpecContext) {
		s := newTinySubject("pins:\n  last: 2\n  refs:\n    - {ref: v1.2.0-rc.1, reason: the beta testers' build}\n")
		_, out := cli(ctx, "pins", "--repo", s.dir)
		Expect(out).To(MatchRegexp(`(?m)^v1\.2\.0-rc\.1\s+[0-9a-f]{40}\s+the beta testers' build$`))
		Expect(out).To(MatchRegexp(`(?m)^v1\.0\.0\s+[0-9a-f]{40}\s+one of the last 2 stable tags$`))

		_, out = cli(ctx, "pins", "--repo", s.dir, "--pins", "v1.0.0")
		Expect(out).To(MatchRegexp(`(?m)^v1\.0\.0\s+[0-9a-f]{40}\s+explicit \(--pins\)$`))
		Expect(out).NotTo(ContainSubstring("beta testers"))
	})

	It("refuses a wrong pins section with file and line", func(ctx SpecContext) {
		s := newTinySubject("pins:\n  lats: 2\n")
		code, out := cli(ctx, "pins", "--repo", s.dir)
		Expect(code).To(Equal(exitUsage))
		Expect(out).To(ContainSubstring(`skewtest.yaml:10: unknown key "lats"`))
	})

	Describe("lock", func() {
		It("refuses a tag moved after locking in run, build and repro, naming it, until locked again", func(ctx SpecContext) {
			s := newTinySubject("")
			code, out := cli(ctx, "pins", "lock", "--repo", s.dir)
			Expect(code).To(Equal(exitOK))
			Expect(out).To(ContainSubstring("wrote " + filepath.Join(s.dir, "skewtest.lock") + ": 2 tags, 2 changed"))
			lock, err := os.ReadFile(filepath.Join(s.dir, "skewtest.lock"))
			Expect(err).NotTo(HaveOccurred())
			old := strings.Fields(strings.Split(string(lock), "v1.1.0 ")[1])[0]

			moved := s.move("v1.1.0")
			cache := GinkgoT().TempDir()
			for _, args := range [][]string{
				{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", GinkgoT().TempDir()},
				{"build", "--repo", s.dir, "--cache-dir", cache},
				{"repro", "--repo", s.dir, "--host", "v1.1.0", "--client", "worktree", "--cache-dir", cache},
			} {
				code, out = cli(ctx, args...)
				Expect(code).To(Equal(exitUsage), args[0])
				Expect(out).To(ContainSubstring(fmt.Sprintf("v1.1.0 points at %s, but %s locked it at %s", moved, filepath.Join(s.dir, "skewtest.lock"), old)), args[0])
				Expect(out).To(ContainSubstring("run `skewtest pins lock`"), args[0])
			}

			code, out = cli(ctx, "pins", "lock", "--repo", s.dir)
			Expect(code).To(Equal(exitOK))
			Expect(out).To(ContainSubstring(fmt.Sprintf("v1.1.0: moved %.12s → %.12s", old, moved)))
			code, _ = cli(ctx, "build", "--repo", s.dir, "--cache-dir", cache)
			Expect(code).To(Equal(exitOK))
		})

		It("says which pins it does not record", func(ctx SpecContext) {
			s := newTinySubject("")
			cli(ctx, "pins", "lock", "--repo", s.dir)
			s.tag("v1.3.0", s.commit("v1.3.0"))
			_, out := cli(ctx, "pins", "--repo", s.dir)
			Expect(out).To(ContainSubstring("pin v1.3.0 is not in skewtest.lock; run `skewtest pins lock` to record it"))
		})
	})
})

var _ = Describe("skewtest cache", func() {
	It("lists and prunes the build cache", func(ctx SpecContext) {
		s := newTinySubject("")
		cache := GinkgoT().TempDir()
		code, _ := cli(ctx, "build", "--repo", s.dir, "--cache-dir", cache)
		Expect(code).To(Equal(exitOK))
		code, out := cli(ctx, "cache", "ls", "--cache-dir", cache)
		Expect(code).To(Equal(exitOK))
		Expect(out).To(MatchRegexp(`(?m)^KEY\s+LABEL\s+REVISION\s+STATUS\s+SIZE\s+USED$`))
		Expect(out).To(MatchRegexp(`(?m)^[0-9a-f]{12}\s+v1\.1\.0\s+[0-9a-f]{12}\s+ok\s+\S+\s+just now$`))
		Expect(out).To(MatchRegexp(`(?m)^[0-9a-f]{12}\s+worktree\s+[0-9a-f]{12}\s+ok`))
		Expect(out).To(ContainSubstring("2 builds"))

		code, out = cli(ctx, "cache", "prune", "--cache-dir", cache, "--older-than", "1d")
		Expect(code).To(Equal(exitOK))
		Expect(out).NotTo(ContainSubstring("removed"))
		code, out = cli(ctx, "cache", "prune", "--cache-dir", cache, "--all")
		Expect(code).To(Equal(exitOK))
		Expect(strings.Count(out, "removed ")).To(Equal(2))
		_, out = cli(ctx, "cache", "ls", "--cache-dir", cache)
		Expect(out).To(ContainSubstring("0 builds"))
	})

	DescribeTable("parses ages",
		func(in string, want time.Duration) {
			Expect(parseAge(in)).To(Equal(want))
		},
		Entry("go duration", "36h", 36*time.Hour),
		Entry("days", "7d", 7*24*time.Hour),
		Entry("weeks", "2w", 14*24*time.Hour),
		Entry("half a day", "0.5d", 12*time.Hour),
	)
})

var _ = Describe("skewtest build", func() {
	It("keeps going past a tag that fails to build, and shows its log's last lines", func(ctx SpecContext) {
		s := newTinySubject("versions:\n  - range: v1.0.0\n    recipe: ['echo \"undefined: Frobnicate\" >&2; exit 2']\n")
		cache := GinkgoT().TempDir()
		code, out := cli(ctx, "build", "--repo", s.dir, "--cache-dir", cache, "--pins", "v1.0.0,v1.1.0")
		Expect(code).To(Equal(exitInfra))
		Expect(out).To(MatchRegexp(`(?m)^v1\.0\.0\s+error\s+log: \S+/build\.log$`))
		Expect(out).To(MatchRegexp(`(?m)^v1\.1\.0\s+built\s+\S+/out$`))
		Expect(out).To(MatchRegexp(`(?m)^worktree\s+built\s+\S+/out$`))
		Expect(out).To(ContainSubstring("last lines of the build log:\n"))
		Expect(out).To(ContainSubstring("    undefined: Frobnicate\n"))

		code, out = cli(ctx, "build", "--repo", s.dir, "--cache-dir", cache, "--pins", "v1.1.0")
		Expect(code).To(Equal(exitOK))
		Expect(out).To(MatchRegexp(`(?m)^v1\.1\.0\s+cached\s`), "a second build over the same pins does no build work")
		Expect(out).To(MatchRegexp(`(?m)^worktree\s+cached\s`))
	})
})
