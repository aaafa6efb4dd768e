package matrix_test

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/shelltest"
)

// Refs come from pull requests of forks: git allows $, (, ) and backticks in a tag. A repro
// line pasted into a shell must run skewtest with exactly its words and nothing else.
var _ = Describe("a repro line", func() {
	const host, client = "y$(id)", "x`id`"
	pairing := func(journey *journeys.Journey) harness.Pairing {
		return harness.Pairing{Host: &harness.Build{Label: host}, Client: &harness.Build{Label: client}, Kind: "desk#top", Journey: journey}
	}
	paste := func(line string) [][]string {
		pasted, err := shelltest.Paste(GinkgoT().TempDir(), "skewtest", line)
		Expect(err).NotTo(HaveOccurred())
		Expect(pasted.Stray).To(BeEmpty(), "the line ran more than skewtest: %s", line)
		return pasted.Runs
	}

	It("runs skewtest with exactly its words, whatever the labels, kind, repository and journey hold", func() {
		o := matrix.Config{Repo: "/src/my repo/$(touch MARKER)", Seed: 7,
			Env: []string{host + ":K=a b", "`touch MARKER`:K=v", client + ":it's=#1"}}
		line := o.ReproLine(pairing(&journeys.Journey{Name: "$(touch MARKER)", Listed: true}), "--future-peers")
		Expect(paste(line)).To(Equal([][]string{{"skewtest", "repro", "--repo", o.Repo, "--host", host, "--client", client,
			"--kind", "desk#top", "--journey", "$(touch MARKER)", "--seed", "7", "--env", host + ":K=a b", "--env", client + ":it's=#1",
			"--future-peers"}}))
	})

	It("names a journey the subject does not list by its file's absolute path", func() {
		o := matrix.Config{Repo: "/src/chatd", Seed: 7}
		line := o.ReproLine(pairing(&journeys.Journey{Name: "new\nline", File: "cases/`touch MARKER` $(id).txtar"}))
		abs, err := filepath.Abs("cases/`touch MARKER` $(id).txtar")
		Expect(err).NotTo(HaveOccurred())
		Expect(paste(line)).To(Equal([][]string{{"skewtest", "repro", "--repo", "/src/chatd", "--host", host, "--client", client,
			"--kind", "desk#top", "--journey", abs, "--seed", "7"}}))
	})

	It("prints a line of plain words as it always has", func() {
		o := matrix.Config{Repo: "/src/chatd", Seed: 7, Env: []string{"v1.4.190:A=b c", "worktree:K=v"}}
		p := harness.Pairing{Host: &harness.Build{Label: "v1.4.190"}, Client: &harness.Build{Label: "worktree"}, Kind: "desktop",
			Journey: &journeys.Journey{Name: "terminal", Listed: true}}
		Expect(o.ReproLine(p)).To(Equal("skewtest repro --repo /src/chatd --host v1.4.190 --client worktree --kind desktop --journey terminal --seed 7 --env 'v1.4.190:A=b c' --env worktree:K=v"))
		Expect(o.ReproLine(p, "--future-peers")).To(HaveSuffix(" --seed 7 --env 'v1.4.190:A=b c' --env worktree:K=v --future-peers"))
	})
})

// The same through a plan of a real history, tagged by a hostile fork, in a directory
// whose name a shell would expand.
var _ = Describe("a plan of hostile tags", func() {
	It("prints repro lines that run skewtest with exactly the tags and the repository", func(ctx SpecContext) {
		src, err := example.FindSource("remoteterm")
		Expect(err).NotTo(HaveOccurred())
		repo := filepath.Join(GinkgoT().TempDir(), "my repo $(touch MARKER)", "remoteterm")
		_, err = example.Write(src, repo)
		Expect(err).NotTo(HaveOccurred())
		r, err := git.PlainOpen(repo)
		Expect(err).NotTo(HaveOccurred())
		for tag, of := range map[string]string{"y$(id)": "v1.4.190", "x`id`": "v1.4.120"} {
			ref, err := r.Tag(of)
			Expect(err).NotTo(HaveOccurred())
			commit, err := r.ResolveRevision(plumbing.Revision(ref.Name()))
			Expect(err).NotTo(HaveOccurred())
			_, err = r.CreateTag(tag, *commit, nil)
			Expect(err).NotTo(HaveOccurred())
		}

		var out bytes.Buffer
		run, err := matrix.Run(ctx, matrix.Config{Repo: repo, CacheDir: GinkgoT().TempDir(), ReportDir: GinkgoT().TempDir(),
			Seed: 7, PlanOnly: true, Pairings: []matrix.Pair{{Host: "y$(id)", Client: "x`id`", Kind: "desktop", Journey: "terminal"}},
			Stdout: &out, Stderr: GinkgoWriter})
		GinkgoWriter.Print(out.String())
		Expect(err).NotTo(HaveOccurred())
		Expect(run).To(BeNil())

		var runs [][]string
		for _, l := range strings.Split(out.String(), "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "skewtest repro ") {
				pasted, err := shelltest.Paste(GinkgoT().TempDir(), "skewtest", l)
				Expect(err).NotTo(HaveOccurred())
				Expect(pasted.Stray).To(BeEmpty(), "the line ran more than skewtest: %s", l)
				runs = append(runs, pasted.Runs...)
			}
		}
		words := func(h, c string) []string {
			return []string{"skewtest", "repro", "--repo", repo, "--host", h, "--client", c, "--kind", "desktop", "--journey", "terminal", "--seed", "7"}
		}
		Expect(runs).To(ConsistOf(words("y$(id)", "x`id`"), words("y$(id)", "y$(id)"), words("x`id`", "x`id`")),
			"the pairing and its two references")
	})
})
