package docs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// releaseFile is skewtest's release workflow (the README's Install names what it attaches).
var releaseFile = filepath.Join(root, ".github", "workflows", "release.yml")

// releaseWorkflow is what the specs read of the release workflow.
type releaseWorkflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Env   map[string]string `yaml:"env"`
		Steps []struct {
			Name             string            `yaml:"name"`
			Uses             string            `yaml:"uses"`
			Run              string            `yaml:"run"`
			WorkingDirectory string            `yaml:"working-directory"`
			Env              map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// lintWorkflow lints a workflow file's text with actionlint.
func lintWorkflow(path string, data []byte) ([]string, error) {
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{WorkingDir: GinkgoT().TempDir()})
	if err != nil {
		return nil, err
	}
	errs, err := l.Lint(path, data, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind))
	}
	return out, nil
}

// Stand-ins for the programs the release's steps call that a spec must not: make writes a
// binary that says the VERSION it was given (or "(devel)" with $STANDIN_NO_VERSION set) and
// the platform; gh writes down its arguments.
const (
	standInMake = `#!/bin/sh
bin= version=
for a in "$@"; do case $a in BIN=*) bin=${a#BIN=} ;; VERSION=*) version=${a#VERSION=} ;; esac; done
[ -z "$STANDIN_NO_VERSION" ] || version="(devel)"
printf '%s %s %s\n' "$GOOS/$GOARCH" "CGO_ENABLED=$CGO_ENABLED" "$*" >>"$STANDIN_LOG/make"
mkdir -p "$(dirname "$bin")"
printf '#!/bin/sh\necho "skewtest %s %s/%s"\n' "$version" "$GOOS" "$GOARCH" >"$bin"
chmod +x "$bin"
`
	standInGh = `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >"$STANDIN_LOG/gh"
printf '%s\n' "$GH_TOKEN" >"$STANDIN_LOG/gh-token"
`
)

// githubValue is an expression of the github context in a step's env.
var githubValue = regexp.MustCompile(`^\$\{\{\s*github\.(\w+)\s*\}\}$`)

// runRelease runs the run steps of the release workflow in a new directory as a push of tag
// would, with stand-ins for make and gh first on the PATH (the steps that use actions are
// GitHub's: checkout and setup-go). It returns the directory, the name of the step that
// failed ("" if none) and the log.
func runRelease(ctx SpecContext, tag string, env ...string) (dir, failed, log string) {
	GinkgoHelper()
	data, err := os.ReadFile(releaseFile)
	Expect(err).NotTo(HaveOccurred())
	var w releaseWorkflow
	Expect(yaml.Unmarshal(data, &w)).To(Succeed())
	Expect(w.Jobs).To(HaveLen(1))
	dir = GinkgoT().TempDir()
	work, bin, standins := filepath.Join(dir, "work"), filepath.Join(dir, "bin"), filepath.Join(dir, "log")
	for _, d := range []string{work, bin, standins} {
		Expect(os.MkdirAll(d, 0o755)).To(Succeed())
	}
	Expect(os.WriteFile(filepath.Join(bin, "make"), []byte(standInMake), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(bin, "gh"), []byte(standInGh), 0o755)).To(Succeed())
	github := map[string]string{"ref_name": tag, "token": "the-token"}
	var out bytes.Buffer
	for _, job := range w.Jobs {
		for i, s := range job.Steps {
			if s.Run == "" {
				continue
			}
			script := filepath.Join(dir, fmt.Sprintf("step-%d.sh", i))
			Expect(os.WriteFile(script, []byte(s.Run), 0o644)).To(Succeed())
			cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir = filepath.Join(work, s.WorkingDirectory)
			cmd.Env = append(runnerEnviron(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "STANDIN_LOG="+standins)
			cmd.Env = append(cmd.Env, env...)
			for _, vars := range []map[string]string{job.Env, s.Env} {
				for k, v := range vars {
					if m := githubValue.FindStringSubmatch(v); m != nil {
						val, ok := github[m[1]]
						Expect(ok).To(BeTrue(), "the spec does not know github.%s", m[1])
						v = val
					}
					Expect(v).NotTo(ContainSubstring("${{"), "the spec evaluates only github values")
					cmd.Env = append(cmd.Env, k+"="+v)
				}
			}
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				return dir, s.Name, out.String()
			}
		}
	}
	return dir, "", out.String()
}

var _ = Describe("the release workflow (.github/workflows/release.yml)", func() {
	BeforeEach(func() {
		if _, err := exec.LookPath("sha256sum"); err != nil {
			Skip("sha256sum is not on the PATH: the release runs on Linux, where it is")
		}
	})

	It("lints clean with actionlint, and would not with a context that is not there", func() {
		data, err := os.ReadFile(releaseFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(lintWorkflow(".github/workflows/release.yml", data)).To(BeEmpty())
		bad := strings.Replace(string(data), "${{ github.token }}", "${{ secret.TOKEN }}", 1)
		Expect(bad).NotTo(Equal(string(data)))
		Expect(lintWorkflow(".github/workflows/release.yml", []byte(bad))).To(ConsistOf(ContainSubstring(`undefined variable "secret"`)))
	})

	It("runs on v* tags", func() {
		data, err := os.ReadFile(releaseFile)
		Expect(err).NotTo(HaveOccurred())
		var w releaseWorkflow
		Expect(yaml.Unmarshal(data, &w)).To(Succeed())
		Expect(w.On.Push.Tags).To(Equal([]string{"v*"}))
	})

	DescribeTable("builds linux and darwin binaries for amd64 and arm64 stamped with the tag, writes checksums that verify, and attaches them to a release of the tag",
		func(ctx SpecContext, tag string, prerelease bool) {
			dir, failed, log := runRelease(ctx, tag)
			Expect(failed).To(BeEmpty(), log)
			standins := filepath.Join(dir, "log")
			made, err := os.ReadFile(filepath.Join(standins, "make"))
			Expect(err).NotTo(HaveOccurred())
			var files []string
			var want strings.Builder
			for _, p := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"} {
				name := "skewtest-" + strings.ReplaceAll(p, "/", "-")
				files = append(files, name)
				fmt.Fprintf(&want, "%s CGO_ENABLED=0 build BIN=dist/%s VERSION=%s\n", p, name, tag)
			}
			Expect(string(made)).To(Equal(want.String()))

			dist := filepath.Join(dir, "work", "dist")
			sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
			Expect(err).NotTo(HaveOccurred())
			var listed []string
			for line := range strings.Lines(string(sums)) {
				sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
				Expect(ok).To(BeTrue(), line)
				data, err := os.ReadFile(filepath.Join(dist, name))
				Expect(err).NotTo(HaveOccurred())
				got := sha256.Sum256(data)
				Expect(sum).To(Equal(hex.EncodeToString(got[:])), name)
				listed = append(listed, name)
			}
			Expect(listed).To(ConsistOf(files))
			check := exec.CommandContext(ctx, "sha256sum", "-c", "SHA256SUMS")
			check.Dir = dist
			out, err := check.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "what the README tells users to run: %s", out)

			args, err := os.ReadFile(filepath.Join(standins, "gh"))
			Expect(err).NotTo(HaveOccurred())
			wantArgs := []string{"release", "create", tag, "--verify-tag", "--title", "skewtest " + tag, "--generate-notes"}
			if prerelease {
				wantArgs = append(wantArgs, "--prerelease")
			}
			wantArgs = append(wantArgs, "dist/skewtest-darwin-amd64", "dist/skewtest-darwin-arm64", "dist/skewtest-linux-amd64",
				"dist/skewtest-linux-arm64", "dist/SHA256SUMS")
			Expect(strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")).To(Equal(wantArgs))
			Expect(os.ReadFile(filepath.Join(standins, "gh-token"))).To(Equal([]byte("the-token\n")))
		},
		Entry("a release", "v1.2.0", false),
		Entry("a pre-release", "v1.2.0-rc.1", true),
	)

	It("stops before releasing a binary that does not say the tag", func(ctx SpecContext) {
		dir, failed, log := runRelease(ctx, "v1.2.0", "STANDIN_NO_VERSION=1")
		Expect(failed).To(Equal("Check that a binary says its version"), log)
		Expect(filepath.Join(dir, "log", "gh")).NotTo(BeAnExistingFile())
	})
})

// readmeInstall is the README's shell block that installs a released binary.
func readmeInstall() string {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	Expect(err).NotTo(HaveOccurred())
	_, section, ok := strings.Cut(string(data), "\n### A released binary\n")
	Expect(ok).To(BeTrue(), "the README's Install has a section on released binaries")
	_, block, ok := strings.Cut(section, "```sh\n")
	Expect(ok).To(BeTrue())
	block, _, ok = strings.Cut(block, "```\n")
	Expect(ok).To(BeTrue())
	return block
}

var _ = Describe("the README's install of a released binary", func() {
	BeforeEach(func() {
		if _, err := exec.LookPath("sha256sum"); err != nil {
			Skip("sha256sum is not on the PATH (the README says shasum for macOS)")
		}
	})

	// install runs the README's block for release v1.2.0 of the release workflow's files (gh
	// downloads them; corrupt damages the binary on the way), in a new home directory.
	install := func(ctx SpecContext, corrupt bool) (string, error) {
		GinkgoHelper()
		dist, failed, log := runRelease(ctx, "v1.2.0")
		Expect(failed).To(BeEmpty(), log)
		dist = filepath.Join(dist, "work", "dist")
		dir := GinkgoT().TempDir()
		home, bin, work := filepath.Join(dir, "home"), filepath.Join(dir, "bin"), filepath.Join(dir, "work")
		for _, d := range []string{home, bin, work} {
			Expect(os.MkdirAll(d, 0o755)).To(Succeed())
		}
		// gh release download TAG --repo R --pattern P...: the files of the release.
		gh := `#!/bin/sh
[ "$1 $2 $3 $4 $5" = "release download v1.2.0 --repo skewtest/skewtest" ] || { echo "gh: unexpected $*" >&2; exit 1; }
shift 5
while [ $# -gt 0 ]; do [ "$1" = --pattern ] && cp "$DIST/$2" . && shift; shift; done
[ -z "$CORRUPT" ] || for f in skewtest-*-*; do echo damaged >>"$f"; done
`
		Expect(os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755)).To(Succeed())
		block := strings.Replace(readmeInstall(), "tag=vX.Y.Z", "tag=v1.2.0", 1)
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-e", "-c", block)
		cmd.Dir = work
		path := strings.Join([]string{bin, filepath.Join(home, ".local", "bin"), os.Getenv("PATH")}, string(os.PathListSeparator))
		cmd.Env = append(runnerEnviron(), "HOME="+home, "PATH="+path, "DIST="+dist)
		if corrupt {
			cmd.Env = append(cmd.Env, "CORRUPT=1")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	It("checks the binary against SHA256SUMS, installs it on the PATH, and it names the release", func(ctx SpecContext) {
		out, err := install(ctx, false)
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(MatchRegexp(`(?m)^skewtest-(linux|darwin)-(amd64|arm64): OK$`))
		Expect(out).To(MatchRegexp(`(?m)^skewtest v1\.2\.0 (linux|darwin)/(amd64|arm64)$`))
	})

	It("stops at a binary that does not match its checksum", func(ctx SpecContext) {
		out, err := install(ctx, true)
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring("FAILED"))
		Expect(out).NotTo(ContainSubstring("skewtest v1.2.0"))
	})
})
