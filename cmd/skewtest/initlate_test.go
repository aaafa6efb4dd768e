package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest init, adopted late by a library whose first tags predate modules", func() {
	It("writes a driver module that every tag builds, old ones without go.mod too, with no download", Label(testlabels.Slow), func(ctx SpecContext) {
		// Nothing may come from the network: the kit is vendored, the product needs nothing.
		GinkgoT().Setenv("GOPROXY", "off")
		GinkgoT().Setenv("GOFLAGS", "-mod=mod")
		GinkgoT().Setenv("GOTOOLCHAIN", "local")

		s := &tinySubject{dir: filepath.Join(GinkgoT().TempDir(), "lib")}
		Expect(os.MkdirAll(s.dir, 0o755)).To(Succeed())
		var err error
		s.repo, err = git.PlainInit(s.dir, false)
		Expect(err).NotTo(HaveOccurred())
		// v0.1.0 and v0.2.0: a GOPATH-era library, no go.mod; v0.3.0 adopted modules.
		for _, tag := range []string{"v0.1.0", "v0.2.0", "v0.3.0"} {
			if tag == "v0.3.0" {
				s.write("go.mod", "module example.com/lib\n\ngo 1.22\n")
			}
			s.write("lib.go", "// Package lib is a library with a wire protocol.\npackage lib\n\n// Version is the release.\nconst Version = \""+tag+"\"\n")
			s.tag(tag, s.commit(tag))
		}

		code, out := cli(ctx, "init", "--repo", s.dir, "--vendor-kit", "--kind", "app")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("init: wrote skewtest/driver/go.mod\n"))
		Expect(out).To(ContainSubstring("init: wrote skewtest/driver/skewtest-kit/ (the driver kit, "))
		Expect(out).NotTo(ContainSubstring("go get"))
		mod := readFile(filepath.Join(s.dir, "skewtest", "driver", "go.mod"))
		Expect(mod).To(ContainSubstring("replace example.com/lib => ../..\n"), "the module path read from the working tree's go.mod")
		Expect(mod).To(ContainSubstring("replace github.com/skewtest/skewtest => ./skewtest-kit\n"))
		yaml := readFile(filepath.Join(s.dir, "skewtest.yaml"))
		Expect(yaml).To(ContainSubstring("- test -f go.mod || go mod init example.com/lib\n"))

		// The user's code: the driver reports the product's own release, from the tag's lib.
		main := filepath.Join(s.dir, "skewtest", "driver", "main.go")
		s.edit("skewtest/driver/main.go", func(m string) string {
			m = strings.Replace(m, "\t\"github.com/skewtest/skewtest/driverkit\"\n", "\t\"example.com/lib\"\n\t\"github.com/skewtest/skewtest/driverkit\"\n", 1)
			return strings.Replace(m, `func version() string { return "v0.0.0" }`, "func version() string { return lib.Version }", 1)
		})
		Expect(readFile(main)).To(ContainSubstring("lib.Version"))
		// The tags predate skewtest: the working tree's files are laid over them, the
		// fixtures directory never.
		s.edit("skewtest.yaml", func(y string) string {
			return y + "versions:\n  - range: \"<v1.0.0\"\n    overlay: [skewtest]\n"
		})

		// The suite's shared cache: its GOCACHE has the kit's dependencies compiled.
		code, out = cli(ctx, "build", "--repo", s.dir, "--pins", "v0.1.0,v0.3.0", "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitOK), out)
		builds := buildLines(out)
		Expect(builds).To(HaveKey("worktree"), out)
		for _, tag := range []string{"v0.1.0", "v0.3.0"} {
			Expect(builds).To(HaveKey(tag), out)
			code, out = cli(ctx, "driver", "check", "--", filepath.Join(builds[tag][1], "skewtest-driver"), "host")
			Expect(code).To(Equal(exitOK), out)
			Expect(out).To(ContainSubstring("the driver speaks the protocol"))
		}

		// skewtest record writes under skewtest/fixtures: no old tag builds again.
		Expect(os.MkdirAll(filepath.Join(s.dir, "skewtest", "fixtures", "v0.3.0"), 0o755)).To(Succeed())
		s.write("skewtest/fixtures/v0.3.0/first.app.json", "{}\n")
		code, out = cli(ctx, "build", "--repo", s.dir, "--pins", "v0.1.0,v0.3.0", "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitOK), out)
		again := buildLines(out)
		for _, tag := range []string{"v0.1.0", "v0.3.0"} {
			Expect(again[tag]).To(Equal([]string{"cached", builds[tag][1]}), tag)
		}

		// The negative control: without the step that gives it a go.mod, the old tag does
		// not build (the driver's replace points at a directory that is no module).
		s.edit("skewtest.yaml", func(y string) string {
			return strings.Replace(y, "    - test -f go.mod || go mod init example.com/lib\n", "", 1)
		})
		code, out = cli(ctx, "build", "--repo", s.dir, "--pins", "v0.1.0", "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitInfra), out)
		Expect(out).To(MatchRegexp(`(?m)^v0\.1\.0\s+error\s+log: `))
	})
})

// buildLines reads skewtest build's table: label to status and directory.
func buildLines(out string) map[string][]string {
	lines := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?m)^(\S+)\s+(built|cached)\s+(\S+)$`).FindAllStringSubmatch(out, -1) {
		lines[m[1]] = []string{m[2], m[3]}
	}
	return lines
}
