package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/version"
)

// specVersion is the version the suite's binary is stamped with (madeBinary).
const specVersion = "v9.8.7-spec"

// made is the binary make build wrote for this test process, once: the version spec reads
// what it says, the completion specs put it on PATH.
var made struct {
	once sync.Once
	dir  string
	err  error
	out  string
}

// moduleRoot is this module's root, where the Makefile is.
func moduleRoot() string {
	GinkgoHelper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	Expect(filepath.Join(root, "Makefile")).To(BeAnExistingFile())
	return root
}

// madeBinary returns the path of a skewtest that make build wrote, stamped with
// specVersion, in a directory of its own (to put on PATH); it skips, saying why, without
// make.
func madeBinary(ctx context.Context) string {
	GinkgoHelper()
	if _, err := exec.LookPath("make"); err != nil {
		Skip("make is not on PATH: the spec builds skewtest with make build")
	}
	root := moduleRoot()
	made.once.Do(func() {
		if made.dir, made.err = os.MkdirTemp("", "skewtest-specs-bin-"); made.err != nil {
			return
		}
		// Not ctx: the binary outlives the spec that builds it, for the others of this process.
		cmd := exec.CommandContext(context.WithoutCancel(ctx), "make", "--no-print-directory", "build",
			"BIN="+filepath.Join(made.dir, "skewtest"), "VERSION="+specVersion)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		made.out, made.err = string(out), err
	})
	Expect(made.err).NotTo(HaveOccurred(), made.out)
	return filepath.Join(made.dir, "skewtest")
}

// removeMadeBinary removes what madeBinary wrote, if anything (the suite's end).
func removeMadeBinary() error {
	if made.dir == "" {
		return nil
	}
	return os.RemoveAll(made.dir)
}

var _ = Describe("make build", func() {
	It("stamps the version it is given, which version prints, with Go's and the platform", func(ctx SpecContext) {
		bin := madeBinary(ctx)
		out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(Equal(versionLine(specVersion, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH) + "\n"))
		Expect(string(out)).NotTo(ContainSubstring(version.Devel))
		// Control: this test binary, which nothing stamped, says something else.
		Expect(version.String()).NotTo(Equal(specVersion))
	})

	It("stamps git describe's version by default, and keeps BIN and VERSION overridable", func(ctx SpecContext) {
		if _, err := exec.LookPath("make"); err != nil {
			Skip("make is not on PATH")
		}
		root := moduleRoot()
		dry := func(args ...string) string {
			cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory", "-n", "build"}, args...)...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			return string(out)
		}
		stamp := func(line string) string {
			m := regexp.MustCompile(`-X '` + regexp.QuoteMeta(version.Var) + `=([^']*)'`).FindStringSubmatch(line)
			Expect(m).To(HaveLen(2), "make build passes -X %s=…: %s", version.Var, line)
			return m[1]
		}

		given := dry("BIN=/tmp/elsewhere/skewtest", "VERSION=v1.2.3")
		Expect(stamp(given)).To(Equal("v1.2.3"))
		Expect(given).To(ContainSubstring("-o /tmp/elsewhere/skewtest ./cmd/skewtest"))
		Expect(stamp(dry("VERSION="))).To(BeEmpty(), "empty: the build information's version")

		describe := exec.CommandContext(ctx, "git", "describe", "--tags", "--dirty", "--always")
		describe.Dir = root
		want, err := describe.Output()
		var ee *exec.ExitError
		if errors.Is(err, exec.ErrNotFound) || errors.As(err, &ee) {
			Skip("no git, or no repository around the module: make build leaves the version to the build information")
		}
		Expect(err).NotTo(HaveOccurred())
		got := stamp(dry())
		Expect(got).To(Equal(strings.TrimSpace(string(want))))
		Expect(got).NotTo(BeEmpty())
		Expect(got).NotTo(Equal("v1.2.3"), "control: the default is not the given version")
	})
})
