package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest built with -tags nocontainer", Ordered, Label(testlabels.Slow), func() {
	var bin string

	BeforeAll(func(ctx SpecContext) {
		bin = filepath.Join(GinkgoT().TempDir(), "skewtest")
		out, err := exec.CommandContext(ctx, "go", "build", "-tags", "nocontainer", "-o", bin, ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	}, NodeTimeout(10*time.Minute))

	run := func(ctx SpecContext, args ...string) (int, string) {
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		GinkgoWriter.Printf("skewtest %s\n%s", strings.Join(args, " "), out)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		Expect(err).NotTo(HaveOccurred())
		return 0, string(out)
	}

	It("has none of the container runner's modules", func(ctx SpecContext) {
		out, err := exec.CommandContext(ctx, "go", "version", "-m", bin).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("github.com/go-git/go-git"))
		Expect(string(out)).NotTo(ContainSubstring("testcontainers"))
	})

	It("refuses --runner container before building anything, saying how to get a skewtest with the runner", func(ctx SpecContext) {
		s := newTinySubject("")
		cache := filepath.Join(GinkgoT().TempDir(), "cache")
		code, out := run(ctx, "build", "--repo", s.dir, "--runner", "container", "--cache-dir", cache)
		Expect(code).To(Equal(exitInfra), "as a missing runner (no Docker engine) is")
		Expect(out).To(ContainSubstring("skewtest: --runner container: this skewtest was built with -tags nocontainer and has no container runner"))
		Expect(out).To(ContainSubstring("go install github.com/skewtest/skewtest/cmd/skewtest@latest"))
		Expect(filepath.Join(cache, "builds")).NotTo(BeADirectory())
	})

	It("builds with the local runner, and prunes", func(ctx SpecContext) {
		s := newTinySubject("")
		cache := filepath.Join(GinkgoT().TempDir(), "cache")
		code, out := run(ctx, "build", "--repo", s.dir, "--cache-dir", cache)
		Expect(code).To(Equal(exitOK), out)
		code, out = run(ctx, "cache", "prune", "--all", "--cache-dir", cache)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("removed "))
	})
})
