package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/libhistory"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// docBlock is one fenced block of a walkthrough: its info string's language and file (```json
// skewtest/contract.json), its text, and its line in the document.
type docBlock struct {
	lang, file, text string
	line             int
}

// walkthrough reads the fenced blocks of one section of a document: from the heading
// that is title to the next heading of the same or a higher level.
func walkthrough(doc, title string) []docBlock {
	GinkgoHelper()
	lines := strings.Split(readFile(doc), "\n")
	var out []docBlock
	in, fence, start := false, "", 0
	for i, line := range lines {
		switch {
		case fence != "" && strings.HasPrefix(line, "```"):
			f := strings.Fields(strings.TrimPrefix(fence, "```"))
			b := docBlock{text: strings.Join(lines[start:i], "\n") + "\n", line: start}
			if len(f) > 0 {
				b.lang = f[0]
			}
			if len(f) > 1 {
				b.file = f[1]
			}
			out = append(out, b)
			fence = ""
		case fence != "":
		case line == title:
			in = true
		case in && (strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")):
			return out
		case in && strings.HasPrefix(line, "```"):
			fence, start = line, i+1
		}
	}
	Expect(in).To(BeTrue(), "%s has no heading %q", doc, title)
	return out
}

// mergeYAML replaces each top-level key that block sets in the YAML file at path: the key's
// section (its line and the indented or list lines after it) is taken out, and the block's
// is appended. A commented-out key stays as it is.
func mergeYAML(path, block string) {
	GinkgoHelper()
	keys := map[string]bool{}
	for _, l := range strings.Split(block, "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok && l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "#") {
			keys[k] = true
		}
	}
	var kept []string
	skipping := false
	for _, l := range strings.Split(readFile(path), "\n") {
		k, _, isKey := strings.Cut(l, ":")
		top := isKey && l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "#")
		switch {
		case top:
			skipping = keys[k]
		case skipping && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-")):
		default:
			skipping = false
		}
		if !skipping {
			kept = append(kept, l)
		}
	}
	Expect(os.WriteFile(path, []byte(strings.TrimRight(strings.Join(kept, "\n"), "\n")+"\n\n"+block), 0o644)).To(Succeed())
}

// freeAddr is a TCP address nothing listens on now.
func freeAddr() string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer ln.Close()
	return ln.Addr().String()
}

// The walkthrough of docs/subject.md ("Late adoption of a library, step by step") on
// wirelib's history (internal/testkit/libhistory): every sh block of it runs as it stands,
// in order, in a shell whose skewtest is this one, with nothing downloaded. What the
// walkthrough asks the user to write is its json, txtar and yaml blocks (written or merged
// into the named file), the driver (wirelib's, from libhistory), and the protocol-1 edit of
// step 10. The terminals of step 2 run side by side, on free ports in place of the page's.
var _ = Describe("the late-adoption walkthrough of docs/subject.md, on a library's own history", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var (
		bin  string
		hist *libhistory.History
		env  []string
	)

	BeforeAll(func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		bin = filepath.Join(dir, "bin")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "skewtest"), ".").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		hist, err = libhistory.Write(filepath.Join(dir, "wirelib"))
		Expect(err).NotTo(HaveOccurred())
		// skewtest's default cache is $XDG_CACHE_HOME/skewtest: the suite's, whose GOCACHE has
		// the kit's dependencies compiled.
		xdg := filepath.Join(dir, "xdg")
		Expect(os.MkdirAll(xdg, 0o755)).To(Succeed())
		Expect(os.Symlink(sharedCache, filepath.Join(xdg, "skewtest"))).To(Succeed())
		env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+xdg,
			"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	}, NodeTimeout(5*time.Minute))

	// sh runs a block as the page shows it, at the library's root.
	sh := func(ctx context.Context, text string) (int, string) {
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", text)
		cmd.Dir, cmd.Env = hist.Dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(GinkgoWriter, "$ %s%s\n", text, out)
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		Expect(err).NotTo(HaveOccurred())
		return 0, string(out)
	}
	// background starts a terminal's block; stop ends it as Ctrl-C does and waits for it.
	type terminal struct {
		cmd *exec.Cmd
		out *os.File
	}
	background := func(ctx context.Context, text string) (*terminal, *bufio.Scanner) {
		GinkgoHelper()
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", text)
		cmd.Dir, cmd.Env = hist.Dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		r, w, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		cmd.Stdout, cmd.Stderr = w, w
		Expect(cmd.Start()).To(Succeed())
		w.Close()
		return &terminal{cmd, r}, bufio.NewScanner(r)
	}
	stop := func(t *terminal) {
		Expect(syscall.Kill(-t.cmd.Process.Pid, syscall.SIGINT)).To(Succeed())
		_ = t.cmd.Wait()
		t.out.Close()
	}
	load := func(dir string) *results.Run {
		GinkgoHelper()
		r, err := results.Load(filepath.Join(hist.Dir, dir, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		return r
	}
	protocol := func(label string) int {
		if label == results.WorktreeLabel || label == "v0.4.0" {
			return 2
		}
		return 1
	}

	It("goes from init to a green matrix, bisect naming the protocol-2 commit on the way", func(ctx SpecContext) {
		blocks := walkthrough(filepath.Join("..", "..", "docs", "subject.md"), "### Late adoption of a library, step by step")
		runs := 0
		var host *terminal
		var stopTap func() string
		hostAddr, tapAddr := freeAddr(), freeAddr()
		ports := strings.NewReplacer("127.0.0.1:7000", hostAddr, "127.0.0.1:9000", tapAddr)
		for _, b := range blocks {
			By(fmt.Sprintf("docs/subject.md:%d: %s", b.line, strings.SplitN(b.text, "\n", 2)[0]))
			switch {
			case b.file != "" && b.lang == "yaml":
				mergeYAML(filepath.Join(hist.Dir, b.file), b.text)
				continue
			case b.file != "":
				Expect(os.MkdirAll(filepath.Dir(filepath.Join(hist.Dir, b.file)), 0o755)).To(Succeed())
				Expect(os.WriteFile(filepath.Join(hist.Dir, b.file), []byte(b.text), 0o644)).To(Succeed())
				continue
			case b.lang == "go":
				// Step 4: the user's driver, of which the page shows the host.
				driver, err := libhistory.Adoption("driver/main.go")
				Expect(err).NotTo(HaveOccurred())
				Expect(strings.ReplaceAll(driver, "\t", "")).To(ContainSubstring(strings.ReplaceAll(b.text, "\t", "")), "the page shows the driver's own code")
				Expect(os.WriteFile(filepath.Join(hist.Dir, "skewtest", "driver", "main.go"), []byte(driver), 0o644)).To(Succeed())
				continue
			case b.lang != "sh":
				continue
			}
			text := b.text
			switch {
			case strings.HasPrefix(text, "go run ./examples/echo host "):
				var lines *bufio.Scanner
				host, lines = background(ctx, ports.Replace(text))
				go func() {
					for lines.Scan() {
						fmt.Fprintln(GinkgoWriter, "host:", lines.Text())
					}
				}()
				// go run compiles first: the host listens once it is built.
				Eventually(func() error {
					c, err := net.Dial("tcp", hostAddr)
					if err == nil {
						c.Close()
					}
					return err
				}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())
				continue
			case strings.HasPrefix(text, "skewtest tap "):
				tap, lines := background(ctx, ports.Replace(text))
				Expect(lines.Scan()).To(BeTrue())
				Expect(lines.Text()).To(HavePrefix("tap: listening at tcp://" + tapAddr))
				var out strings.Builder
				done := make(chan struct{})
				go func() {
					defer close(done)
					for lines.Scan() {
						out.WriteString(lines.Text() + "\n")
					}
				}()
				// The next block is the client's terminal; once it is done, Ctrl-C.
				DeferCleanup(func() {
					if stopTap != nil {
						stop(tap)
						stop(host)
					}
				})
				stopTap = func() string {
					stopTap = nil
					stop(tap)
					<-done
					stop(host)
					return out.String()
				}
				continue
			case strings.HasPrefix(text, "go run ./examples/echo client "):
				code, out := sh(ctx, ports.Replace(text))
				Expect(code).To(Equal(exitOK), out)
				Expect(out).To(Equal("one\ntwo\nthree\n"))
				Expect(stopTap).NotTo(BeNil(), "the client's terminal comes after the tap's")
				tapped := stopTap()
				Expect(tapped).To(MatchRegexp(`tap: \d+ messages on 1 connection recorded in rec/transcript.json.gz`))
				continue
			}

			code, out := sh(ctx, text)
			switch {
			case strings.HasPrefix(text, "skewtest init "):
				Expect(code).To(Equal(exitOK), out)
				Expect(out).To(ContainSubstring("init: wrote skewtest/driver/skewtest-kit/"))
			case strings.HasPrefix(text, "skewtest contract infer rec"):
				Expect(code).To(Equal(exitOK), out)
				// The draft finds the header: the length where it is, the type byte, the opcodes.
				Expect(out).To(ContainSubstring("header of 8 bytes: every message is 8 bytes more than the u16le at byte 2 says"))
				Expect(out).To(MatchRegexp(`type: u8 at byte 1, 5 values`))
				Expect(out).To(ContainSubstring("length: u16le at byte 2 is the payload's size"))
				for _, f := range []string{"C>H Opcode1 (opcode 1)", "H>C Opcode2 (opcode 2)", "C>H Opcode3 (opcode 3)", "H>C Opcode4 (opcode 4)", "H>C Opcode5 (opcode 5)"} {
					Expect(out).To(ContainSubstring(f))
				}
			case strings.HasPrefix(text, "(cd skewtest/driver && "):
				Expect(code).To(Equal(exitOK), out)
			case strings.HasPrefix(text, "skewtest doctor "):
				Expect(code).To(Equal(exitOK), out)
				Expect(out).To(ContainSubstring("ok   reference pairing: 1 pairing of first passed"))
				Expect(out).To(ContainSubstring("ok   old tags: 4 stable tags: 0 with their own skewtest.yaml, 4 through a versions: row"))
			case strings.HasPrefix(text, "skewtest run ") && runs == 0:
				runs++
				// One contract for every tag: protocol-1 tags and the protocol-2 working tree
				// refuse each other where the contracts say they should not.
				Expect(code).To(Equal(exitFindings), out)
				r := load("reports/run")
				Expect(r.Pairings).To(HaveLen(13))
				for _, p := range r.Pairings {
					if protocol(p.Host) == protocol(p.Client) {
						Expect(p.Status).To(Equal(results.StatusPass), p.Label())
						continue
					}
					Expect(p.Status).To(Equal(results.StatusFail), p.Label())
					Expect(kinds(p.Findings)).To(ContainElement(results.WindowViolation), p.Label())
					Expect(out).To(ContainSubstring("the host refused a peer inside its protocol window"))
					Expect(out).To(ContainSubstring("the client refused a peer inside its protocol window"))
				}
			case strings.HasPrefix(text, "skewtest bisect "):
				Expect(code).To(Equal(exitFindings), out)
				Expect(out).To(ContainSubstring("first bad release: v0.4.0 (last good: v0.3.0)"))
				Expect(out).To(ContainSubstring(`first bad commit: ` + hist.ProtocolTwo[:12] + ` "wire: protocol 2"`))
				// The page shows this very answer.
				Expect(readFile(filepath.Join("..", "..", "docs", "subject.md"))).To(ContainSubstring(`first bad commit: ` + hist.ProtocolTwo[:12] + ` "wire: protocol 2" (2019-01-07, wirelib maintainers)`))
				// Replay's negative control: while every tag reads the working tree's contract,
				// the cells of a protocol-1 and a protocol-2 build are judged, and fail.
				code, out = sh(ctx, "skewtest replay --repo . --report-dir reports/replay-one-contract reports/run")
				Expect(code).To(Equal(exitFindings), out)
				failed := 0
				for _, p := range load("reports/replay-one-contract").Pairings {
					if p.Status == results.StatusFail {
						failed++
						Expect(kinds(p.Findings)).To(HaveEach(results.DecoderRefusal), p.Label())
					}
					Expect(p.Status).NotTo(Equal(results.StatusExpectedRefusal), p.Label())
				}
				Expect(failed).To(BeNumerically(">", 0))
			case strings.HasPrefix(text, "mkdir -p skewtest/contracts"):
				Expect(code).To(Equal(exitOK), out)
				// Step 10's edit of the copy.
				path := filepath.Join(hist.Dir, "skewtest", "contracts", "v0.3.0.json")
				c := readFile(path)
				Expect(c).To(ContainSubstring(`"protocol": {"version": 2, "minCompatible": 2}`))
				c = strings.Replace(c, `"protocol": {"version": 2, "minCompatible": 2}`, `"protocol": {"version": 1, "minCompatible": 1}`, 1)
				c = strings.Replace(c, `"version": "v0.4.0"`, `"version": "v0.3.0"`, 1)
				Expect(os.WriteFile(path, []byte(c), 0o644)).To(Succeed())
			case strings.HasPrefix(text, "skewtest run "):
				runs++
				Expect(code).To(Equal(exitOK), out)
				r := load("reports/run")
				Expect(r.Pairings).To(HaveLen(13))
				keepalives := 0
				for _, p := range r.Pairings {
					Expect(kinds(p.Findings)).NotTo(ContainElement(results.SequenceDrift), p.Label())
					if protocol(p.Host) != protocol(p.Client) {
						Expect(p.Status).To(Equal(results.StatusExpectedRefusal), p.Label())
						continue
					}
					Expect(p.Status).To(Equal(results.StatusPass), p.Label())
					for _, f := range p.Frames {
						if f == "H>C Keepalive" {
							keepalives++
						}
					}
				}
				Expect(keepalives).To(BeNumerically(">=", 7), "the idle step alone outlasts two keepalive periods")
			case strings.HasPrefix(text, "skewtest contract check "):
				Expect(code).To(Equal(exitOK), out)
				Expect(out).To(ContainSubstring("v0.3.0 → v0.4.0: compatible (1 allowed)"))
				Expect(out).To(ContainSubstring("record: 1 fixture of v0.4.0 in skewtest/fixtures/v0.4.0"))
				// Replay: the cells of a protocol-1 and a protocol-2 build are not judged, and no
				// other cell has a refusal.
				outside := 0
				for _, p := range load("reports/replay").Pairings {
					Expect(p.Replay).NotTo(BeNil())
					from := regexp.MustCompile(`^host (\S+) × \S+ client (\S+) · `).FindStringSubmatch(p.Replay.From)
					Expect(from).NotTo(BeNil(), p.Replay.From)
					sender, receiver := from[1], p.Client
					if p.Replay.Direction == "C>H" {
						sender, receiver = from[2], p.Host
					}
					Expect(p.Findings).To(BeEmpty(), p.Label())
					if protocol(sender) != protocol(receiver) {
						outside++
						Expect(p.Status).To(Equal(results.StatusExpectedRefusal), p.Label())
					} else {
						Expect(p.Status).To(Equal(results.StatusPass), p.Label())
					}
				}
				Expect(outside).To(BeNumerically(">", 0))
				Expect(out).To(MatchRegexp(`replay: \d+ decoder cells, 0 with refusals; %d between builds outside each other's protocol window, not judged`, outside))
				Expect(filepath.Join(hist.Dir, "skewtest", "fixtures", "v0.4.0", "app-first.json.gz")).To(BeAnExistingFile())
			default:
				Fail(fmt.Sprintf("docs/subject.md:%d: a block the spec does not know: %s", b.line, text))
			}
		}
		Expect(runs).To(Equal(2))

		By("the negative control: without the periodic mark, the keepalives read as drift")
		contract := filepath.Join(hist.Dir, "skewtest", "contract.json")
		c := readFile(contract)
		Expect(c).To(ContainSubstring(`, "periodic": true}`))
		Expect(os.WriteFile(contract, []byte(strings.Replace(c, `, "periodic": true}`, "}", 1)), 0o644)).To(Succeed())
		code, out := sh(ctx, "skewtest repro --repo . --host worktree --client worktree --kind app --journey first --seed 1 --report-dir reports/control")
		Expect(code).To(Equal(exitFindings), out)
		r := load("reports/control")
		Expect(r.Pairings).To(HaveLen(1))
		Expect(kinds(r.Pairings[0].Findings)).To(ContainElement(results.SequenceDrift))
		Expect(out).To(ContainSubstring("+ H>C Keepalive"))
	})
})

// kinds lists findings' kinds.
func kinds(fs []results.Finding) []results.Kind {
	var out []results.Kind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}
