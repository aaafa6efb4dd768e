package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest init", func() {
	It("writes a subject whose drivers speak the protocol as they are, leaving doctor one thing to fix: the product's real code", Label(testlabels.Slow), func(ctx SpecContext) {
		dir := filepath.Join(GinkgoT().TempDir(), "prod")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		_, err := git.PlainInit(dir, false)
		Expect(err).NotTo(HaveOccurred())
		root, err := filepath.Abs("../..")
		Expect(err).NotTo(HaveOccurred())
		// The product's module: it never requires skewtest, the driver's own module does.
		Expect(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/prod\n\ngo 1.26\n"), 0o644)).To(Succeed())

		code, out := cli(ctx, "init", "--repo", dir, "--kind", "desktop,mobile")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("init: wrote skewtest.yaml\ninit: wrote skewtest/contract.json\ninit: wrote skewtest/journeys/first.txtar\ninit: wrote skewtest/driver/go.mod\ninit: wrote skewtest/driver/main.go\n"))
		Expect(out).To(ContainSubstring("go mod edit -replace github.com/skewtest/skewtest=/path/to/skewtest"), "the kit, without --vendor-kit")
		Expect(out).NotTo(ContainSubstring("go get"), "skewtest's module is not published")
		// The documented replace: the driver's kit from a skewtest checkout.
		edit := exec.CommandContext(ctx, "go", "mod", "edit", "-replace", "github.com/skewtest/skewtest="+root)
		edit.Dir = filepath.Join(dir, "skewtest", "driver")
		b, err := edit.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(b))

		code, out = cli(ctx, "doctor", "--repo", dir, "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitFindings), out)
		for _, step := range []string{"skewtest.yaml", "contract", "journeys", "build", "host driver", "desktop client driver", "mobile client driver", "old tags"} {
			Expect(out).To(ContainSubstring("ok   "+step+": "), step)
		}
		Expect(out).To(ContainSubstring(`FAIL reference pairing: host worktree × desktop client worktree · first: fail; driver-error: client driver: action "connect" failed (failed): connect is not written yet: skewtest/driver/main.go`))
		Expect(out).To(ContainSubstring("doctor: 1 step of 10 to fix"))
	})

	It("writes nothing over a subject's files, naming them", func(ctx SpecContext) {
		s := newShellSubject()
		code, out := cli(ctx, "init", "--repo", s.dir)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("init: skewtest.yaml already exist(s)"))
		Expect(filepath.Join(s.dir, "skewtest", "contract.json")).NotTo(BeAnExistingFile())
	})

	DescribeTable("refuses names it cannot write into a skewtest.yaml", func(ctx SpecContext, args []string, want string) {
		code, out := cli(ctx, append([]string{"init", "--repo", GinkgoT().TempDir()}, args...)...)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(want))
	},
		Entry("a kind with a space", []string{"--kind", "desk top"}, `client kind "desk top"`),
		Entry("a kind twice", []string{"--kind", "a,a"}, "names a kind twice"),
		Entry("a path without its slash", []string{"--path", "ws"}, `--path "ws"`),
		Entry("a product with a quote", []string{"--product", `p"q`}, `product "p\"q"`),
		Entry("a module path go cannot use", []string{"--module", "example.com/my lib"}, `--module "example.com/my lib": give the product's Go module path`),
		Entry("a transport skewtest has no tap for", []string{"--transport", "quic"}, `--transport "quic": want ws, wss, tcp, tls`),
	)

	It("writes a subject whose host serves a byte stream over TLS, and a driver for it that compiles", Label(testlabels.Slow), func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/prod\n\ngo 1.26\n"), 0o644)).To(Succeed())
		code, out := cli(ctx, "init", "--repo", dir, "--transport", "tls", "--vendor-kit")
		Expect(code).To(Equal(exitOK), out)
		cfg, err := builds.LoadConfig(filepath.Join(dir, "skewtest.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Transport()).To(Equal(builds.Transport{Scheme: "tls", Channel: "main", Framing: "lines"}))
		c, err := contract.Load(filepath.Join(dir, "skewtest", "contract.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ChannelNamed("main").Paths).To(Equal([]string{"/main"}), "the path its connections are filed under")
		main, err := os.ReadFile(filepath.Join(dir, "skewtest", "driver", "main.go"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(main)).To(ContainSubstring("driverkit.ListenOn(ctx, driverkit.TransportTLS)"))
		// The driver's own module, with the kit beside it: nothing to download.
		for _, args := range [][]string{{"vet", "-mod=mod", "."}} {
			cmd := exec.CommandContext(ctx, "go", args...)
			cmd.Dir = filepath.Join(dir, "skewtest", "driver")
			cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off")
			b, err := cmd.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(b))
		}
	})

	It("writes what skewtest reads without complaint", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		_, err := git.PlainInit(dir, false)
		Expect(err).NotTo(HaveOccurred())
		code, out := cli(ctx, "init", "--repo", dir, "--product", "chat", "--kind", "web", "--path", "/chat")
		Expect(code).To(Equal(exitOK), out)
		yaml, err := os.ReadFile(filepath.Join(dir, "skewtest.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(yaml)).To(ContainSubstring(`web: ["./skewtest-driver", "client", "web"]`))
		code, out = cli(ctx, "contract", "decode", "--repo", dir, filepath.Join(dir, "skewtest", "contract.json"), writeSamples(`C>H {"type":"hello"}`, `H>C {"type":"welcome"}`))
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("every frame of 2 messages read"))
	})
})

// writeSamples writes sample frame lines to a file (contract decode's input).
func writeSamples(lines ...string) string {
	GinkgoHelper()
	p := filepath.Join(GinkgoT().TempDir(), "samples.txt")
	Expect(os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
	return p
}
