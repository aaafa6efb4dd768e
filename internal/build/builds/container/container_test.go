package container_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/gofrs/flock"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/builds/container"
)

// goSubject is a Go module with one dependency that the host's module cache holds (it is
// one of skewtest's own), committed with go-git. Its recipe builds a static binary and
// records what it saw inside the container.
func goSubject(extraSteps ...string) (dir string, commit plumbing.Hash) {
	GinkgoHelper()
	dir = GinkgoT().TempDir()
	steps := append([]string{
		`go build -trimpath -o "$SKEWTEST_OUT/driver" .`,
		`id -u > "$SKEWTEST_OUT/uid"; echo "$GOPROXY $GOFLAGS" > "$SKEWTEST_OUT/env"; cat /proc/net/dev > "$SKEWTEST_OUT/net"`,
	}, extraSteps...)
	var yaml strings.Builder
	yaml.WriteString("product: fixture\ncontract: contract.json\nbuild:\n  steps:\n")
	for _, s := range steps {
		fmt.Fprintf(&yaml, "    - %q\n", s)
	}
	yaml.WriteString("drivers:\n  host: [./driver, host]\n  clients: {desktop: [./driver, client]}\n")
	files := map[string]string{
		"skewtest.yaml": yaml.String(),
		"go.mod":        "module example.com/fixture\n\ngo 1.26.0\n\nrequire golang.org/x/sync v0.25.0\n",
		"go.sum": "golang.org/x/sync v0.25.0 h1:dJnifr0nMV8/SBnBvdo4eSGGnrc3O4FFx6IqvtLcmRs=\n" +
			"golang.org/x/sync v0.25.0/go.mod h1:sUUOizhqBxiL6pEWpqNLUiaJn1ShEbZ6BBqskPbjZm0=\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"golang.org/x/sync/errgroup\"\n)\n\n" +
			"func main() {\n\tvar g errgroup.Group\n\tg.Go(func() error { fmt.Println(\"driver\", os.Args[1:]); return nil })\n\t_ = g.Wait()\n}\n",
	}
	for name, body := range files {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)).To(Succeed())
	}
	repo, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	wt, err := repo.Worktree()
	Expect(err).NotTo(HaveOccurred())
	Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
	sig := &object.Signature{Name: "Fixture", Email: "fixture@example.com", When: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	commit, err = wt.Commit("v1.0.0", &git.CommitOptions{Author: sig, Committer: sig})
	Expect(err).NotTo(HaveOccurred())
	return dir, commit
}

// containers lists the containers carrying skewtest's label.
func containers(ctx context.Context) []string {
	GinkgoHelper()
	out, err := exec.CommandContext(ctx, "docker", "ps", "-aq", "--filter", "label="+container.Label+"=1").Output()
	Expect(err).NotTo(HaveOccurred())
	return strings.Fields(string(out))
}

var _ = Describe("the container runner", labels, func() {
	BeforeEach(func(ctx SpecContext) {
		needEngine(ctx)
	})

	It("builds a Go subject in the toolchain image, with no network, and removes its container", func(ctx SpecContext) {
		dir, commit := goSubject()
		b := &builds.Builder{CacheDir: cache, Runner: runner, Log: GinkgoWriter}
		a, err := b.Build(ctx, dir, builds.AtCommit("v1.0.0", commit))
		Expect(err).NotTo(HaveOccurred(), "%v", err)

		out, err := exec.CommandContext(ctx, filepath.Join(a.Dir, "driver"), "host").Output()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal("driver [host]\n"))
		uid, _ := os.ReadFile(filepath.Join(a.Dir, "uid"))
		Expect(strings.TrimSpace(string(uid))).To(Equal(fmt.Sprint(os.Getuid())), "the build runs as the host's user")
		env, _ := os.ReadFile(filepath.Join(a.Dir, "env"))
		Expect(string(env)).To(Equal("off -mod=mod\n"))
		netdev, _ := os.ReadFile(filepath.Join(a.Dir, "net"))
		Expect(string(netdev)).NotTo(ContainSubstring("eth0"), "the container has no network")
		log, _ := os.ReadFile(a.LogPath)
		Expect(string(log)).To(ContainSubstring("go mod download)  # on the host"))
		Expect(string(log)).To(ContainSubstring("toolchain container skewtest/toolchain:go"))
		Expect(containers(ctx)).To(BeEmpty())

		again, err := b.Build(ctx, dir, builds.AtCommit("v1.0.0", commit))
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Cached).To(BeTrue())

		local, err := (&builds.Builder{CacheDir: cache}).Build(ctx, dir, builds.AtCommit("v1.0.0", commit))
		Expect(err).NotTo(HaveOccurred())
		Expect(local.Key).NotTo(Equal(a.Key), "the runner's toolchain is part of the key")
	})

	It("fails a step with its output in the log tail and still removes the container", func(ctx SpecContext) {
		dir, commit := goSubject(`echo "undefined: Frobnicate" >&2; exit 7`)
		b := &builds.Builder{CacheDir: cache, Runner: runner}
		_, err := b.Build(ctx, dir, builds.AtCommit("v1.0.0", commit))
		var be *builds.BuildError
		Expect(errors.As(err, &be)).To(BeTrue(), "%v", err)
		Expect(be.Tail).To(ContainSubstring("undefined: Frobnicate"))
		Expect(err.Error()).To(ContainSubstring("step 3/3"))
		Expect(err.Error()).To(ContainSubstring("exit status 7"))
		Expect(containers(ctx)).To(BeEmpty())
	})

	It("removes the container when the build is cancelled", func(ctx SpecContext) {
		dir, commit := goSubject(`sleep 600`)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		b := &builds.Builder{CacheDir: cache, Runner: runner, Progress: func(e builds.Event) {
			if e.State == builds.Running && e.Step == 3 {
				cancel()
			}
		}}
		_, err := b.Build(cctx, dir, builds.AtCommit("v1.0.0", commit))
		Expect(err).To(MatchError(context.Canceled))
		Expect(containers(ctx)).To(BeEmpty())
	}, SpecTimeout(3*time.Minute))

	It("names a toolchain image it cannot build and how to provide it", func(ctx SpecContext) {
		_, err := runner.Toolchain(ctx, "go1.2")
		Expect(err).To(MatchError(container.ErrNoImage))
		Expect(err).To(MatchError(ContainSubstring("docker build -t skewtest/toolchain:go1.2")))
	})

	It("prunes left-over containers whose build lock is free, and only those", func(ctx SpecContext) {
		tag, err := runner.Toolchain(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		image := strings.Fields(tag)[1]
		lockDir := GinkgoT().TempDir()
		start := func(name string) string {
			out, err := exec.CommandContext(ctx, "docker", "run", "-d", "--network", "none",
				"--label", container.Label+"=1", "--label", container.BuildLabel+"="+name,
				"--label", container.LockLabel+"="+filepath.Join(lockDir, name), image, "sleep", "300").Output()
			Expect(err).NotTo(HaveOccurred())
			id := strings.TrimSpace(string(out))
			DeferCleanup(func(ctx SpecContext) { _ = exec.CommandContext(ctx, "docker", "rm", "-f", id).Run() })
			return id
		}
		leftOver := start("left-over")
		busy := start("building")
		l := flock.New(filepath.Join(lockDir, "building"))
		ok, err := l.TryLock()
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
		defer l.Close()

		left, err := runner.Prune(ctx)
		Expect(err).NotTo(HaveOccurred())
		removed := map[string]bool{}
		for _, c := range left {
			removed[c.Build] = c.Removed
		}
		// Another test process's runner (the e2e suite runs beside this one) may prune the
		// left-over first: what matters is that it is gone and the building one is not.
		Expect(removed).To(HaveKeyWithValue("building", false))
		Expect(removed).NotTo(HaveKeyWithValue("left-over", false), "a container whose build lock is free is never kept")
		Expect(containers(ctx)).To(ContainElement(busy[:12]))
		Expect(containers(ctx)).NotTo(ContainElement(leftOver[:12]))
	})
})
