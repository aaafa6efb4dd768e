package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// The bad-input corpus: one spec per case of the trial "a new user's bad inputs and
// interrupts" (../shared/trials/bad-inputs-and-interrupts.md, cases B01…B58), with its input,
// its exit code and the key words of its message. Nearly every case runs on a shell subject:
// a git repository made with go-git whose drivers are a shell script that answers every action
// (no product, no WebSocket), so a whole run takes a fraction of a second and its builds are
// a copy. The reference subject is not needed for any of them.

// shellDriver is a driver with no product: hello, ready, then ok to every action; stop ends it.
const shellDriver = `#!/bin/sh
if [ "$1" = host ]; then
  echo '{"type":"hello","protocol":1,"role":"host","actions":["noop","stop"]}'
  echo '{"type":"ready","url":"ws://127.0.0.1:9"}'
else
  echo '{"type":"hello","protocol":1,"role":"client","kind":"'"$2"'","actions":["noop","stop"]}'
  echo '{"type":"ready"}'
fi
while read -r line; do
  id=$(echo "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  [ -n "$id" ] && echo "{\"type\":\"result\",\"id\":$id,\"ok\":true}"
  case "$line" in *'"stop"'*) exit 0;; esac
done
`

// shellYAML is the shell subject's skewtest.yaml; its line numbers are used below
// (drivers.host is line 6).
const shellYAML = `product: shell
contract: contract.json
build:
  steps: ['cp driver.sh "$SKEWTEST_OUT/driver" && chmod +x "$SKEWTEST_OUT/driver"']
drivers:
  host: [./driver, host]
  clients: {desktop: [./driver, client, desktop], mobile: [./driver, client, mobile]}
journeys: [journeys/*.txtar]
`

// shellJourney is the subject's one journey (line 4: client noop).
const shellJourney = "kind desktop\n-- script --\nstep one\nclient noop\nhost noop\n"

// newShellSubject writes the shell subject, commits it and tags v1.0.0 and v1.1.0 (the
// newest stable tag, pinned by default).
func newShellSubject() *tinySubject {
	GinkgoHelper()
	s := &tinySubject{dir: filepath.Join(GinkgoT().TempDir(), "shell")}
	var err error
	s.repo, err = git.PlainInit(s.dir, false)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(filepath.Join(s.dir, "journeys"), 0o755)).To(Succeed())
	s.write("skewtest.yaml", shellYAML)
	s.write("driver.sh", shellDriver)
	s.write("journeys/one.txtar", shellJourney)
	s.write("contract.json", rpcContract)
	s.tag("v1.0.0", s.commit("v1.0.0"))
	s.tag("v1.1.0", s.commit("v1.1.0"))
	return s
}

// edit changes a file of the subject's working tree.
func (s *tinySubject) edit(rel string, edit func(string) string) {
	GinkgoHelper()
	s.write(rel, edit(readFile(filepath.Join(s.dir, rel))))
}

// journeyFile writes a journey file outside the subject and returns its path.
func journeyFile(name, body string) string {
	GinkgoHelper()
	p := filepath.Join(GinkgoT().TempDir(), name)
	Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
	return p
}

// cacheEntries lists the builds of a build cache: none when nothing was built.
func cacheEntries(cache string) []string {
	dirs, _ := filepath.Glob(filepath.Join(cache, "builds", "*"))
	return dirs
}

// resultsOf reads a report directory's results.json as plain JSON (fields the model of
// this branch may not have yet included).
func resultsOf(dir string) map[string]any {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	Expect(err).NotTo(HaveOccurred())
	var m map[string]any
	Expect(json.Unmarshal(data, &m)).To(Succeed())
	return m
}

// syncBuffer is a buffer two goroutines may share: one command writes, a spec reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// badCase is one row of the corpus that a single command shows.
type badCase struct {
	// args is the command line after "skewtest", given the subject (changed by setup, if any)
	// and a fresh cache and report directory.
	args  func(s *tinySubject, cache, report string) []string
	setup func(s *tinySubject)
	code  int
	want  []string // key words of the message
	not   []string // words it must not say
	// before says nothing was built: the answer came before the work.
	before bool
}

// runCase runs one case on a fresh shell subject.
func runCase(ctx context.Context, c badCase) string {
	GinkgoHelper()
	s := newShellSubject()
	if c.setup != nil {
		c.setup(s)
	}
	cache, report := GinkgoT().TempDir(), GinkgoT().TempDir()
	code, out := cli(ctx, c.args(s, cache, report)...)
	Expect(code).To(Equal(c.code), out)
	for _, w := range c.want {
		Expect(out).To(ContainSubstring(w))
	}
	for _, w := range c.not {
		Expect(out).NotTo(ContainSubstring(w))
	}
	if c.before {
		Expect(cacheEntries(cache)).To(BeEmpty(), "the answer comes before the first build")
	}
	return out
}

// runWith is a run of the shell subject with a fresh cache and report directory, plus args.
func runWith(args ...string) func(s *tinySubject, cache, report string) []string {
	return func(s *tinySubject, cache, report string) []string {
		return append([]string{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report}, args...)
	}
}

// cmdWith is another command on the shell subject: args, then --repo.
func cmdWith(args ...string) func(s *tinySubject, cache, report string) []string {
	return func(s *tinySubject, cache, report string) []string {
		return append(append([]string{}, args...), "--repo", s.dir)
	}
}

// withJourney runs the shell subject on a journey file of that name and body.
func withJourney(name, body string) func(s *tinySubject, cache, report string) []string {
	return func(s *tinySubject, cache, report string) []string {
		return runWith("--journey", journeyFile(name, body))(s, cache, report)
	}
}

var _ = Describe("the bad-input corpus", func() {
	It("control: the shell subject passes, so every refusal below is the input's doing", func(ctx SpecContext) {
		s := newShellSubject()
		report := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir(), "--report-dir", report)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("4 pairings: 4 passed"))
		Expect(resultsOf(report)["pairings"]).To(HaveLen(4))
	})

	DescribeTable("answers each bad input with its exit code and a message that says what, where and how",
		func(ctx SpecContext, c badCase) { runCase(ctx, c) },

		// Repositories.
		Entry("B02: a plain directory, not a git repository", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				plain := GinkgoT().TempDir()
				Expect(os.WriteFile(filepath.Join(plain, "skewtest.yaml"), []byte(shellYAML), 0o644)).To(Succeed())
				Expect(os.MkdirAll(filepath.Join(plain, "journeys"), 0o755)).To(Succeed())
				Expect(os.WriteFile(filepath.Join(plain, "journeys", "one.txtar"), []byte(shellJourney), 0o644)).To(Succeed())
				return []string{"run", "--repo", plain, "--cache-dir", cache}
			},
			code: exitUsage, want: []string{"not a git repository"}, before: true}),
		Entry("B03: a git repository with no tags", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				for _, t := range []string{"v1.0.0", "v1.1.0"} {
					Expect(s.repo.DeleteTag(t)).To(Succeed())
				}
				return runWith()(s, cache, report)
			},
			code: exitUsage, want: []string{"no release tag matching vX.Y.Z", "a shallow clone has no tags", "git fetch --unshallow --tags", "fetch-depth: 0"},
			before: true}),
		Entry("B04: a shallow clone with only a pre-release tag", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				for _, t := range []string{"v1.0.0", "v1.1.0"} {
					Expect(s.repo.DeleteTag(t)).To(Succeed())
				}
				head, err := s.repo.Head()
				Expect(err).NotTo(HaveOccurred())
				s.tag("v1.2.0-rc.1", head.Hash())
				// What git clone --depth 1 leaves: the commits whose parents are missing.
				Expect(os.WriteFile(filepath.Join(s.dir, ".git", "shallow"), []byte(head.Hash().String()+"\n"), 0o644)).To(Succeed())
				return runWith()(s, cache, report)
			},
			code: exitUsage, want: []string{"(this checkout is a shallow clone)", "v1.2.0-rc.1", "fetch"}, before: true}),

		// Command lines.
		Entry("B05: run without --repo", badCase{args: func(*tinySubject, string, string) []string { return []string{"run"} },
			code: exitUsage, want: []string{"--repo is required"}}),
		Entry("B06: repro without --host", badCase{args: cmdWith("repro", "--client", "worktree"),
			code: exitUsage, want: []string{"repro needs --host and --client"}}),
		Entry("B32: --timeout banana", badCase{args: runWith("--timeout", "banana"),
			code: exitUsage, want: []string{`invalid value "banana" for flag -timeout`, "duration such as 30s"}, before: true}),
		Entry("B33: --timeout -5s", badCase{args: runWith("--timeout", "-5s"),
			code: exitUsage, want: []string{"-timeout", "want a positive duration"}, before: true}),
		Entry("B33b: --timeout 0 (was taken as the default)", badCase{args: runWith("--timeout", "0"),
			code: exitUsage, want: []string{`invalid value "0" for flag -timeout`, "want a positive duration", "leave the flag out for the default"}, before: true}),
		Entry("B35: --last -1 (ran with the newest tag)", badCase{args: runWith("--last", "-1"),
			code: exitUsage, want: []string{`invalid value "-1" for flag -last`, "1 or more"}, before: true}),
		Entry("B35b: --last 0 (ran as the default)", badCase{args: runWith("--last", "0"),
			code: exitUsage, want: []string{`invalid value "0" for flag -last`, "how many of the newest stable tags to pin, 1 or more"}, before: true}),
		Entry("-j 0", badCase{args: runWith("-j", "0"),
			code: exitUsage, want: []string{"-j", "how many pairings run at once, 1 or more"}, before: true}),
		Entry("--retries -1", badCase{args: runWith("--retries", "-1"),
			code: exitUsage, want: []string{"-retries", "0 or more"}, before: true}),
		Entry("B39: --runner bogus", badCase{args: runWith("--runner", "bogus"),
			code: exitUsage, want: []string{`--runner "bogus": want local or container`}, before: true}),
		Entry("B40: --seed xyz", badCase{args: runWith("--seed", "xyz"),
			code: exitUsage, want: []string{`invalid value "xyz" for flag -seed`}, before: true}),
		Entry("B41: pins --ignore '['", badCase{args: cmdWith("pins", "--ignore", "["),
			code: exitUsage, want: []string{`ignore pattern "[" is not a glob`}}),
		Entry("B42: a stray positional argument", badCase{args: runWith("extra-arg"),
			code: exitUsage, want: []string{`run: unexpected argument "extra-arg"`}, before: true}),
		Entry("B42b: run EX --pins … (flags after the repository) says --repo is needed", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				return []string{"run", s.dir, "--pins", "v1.0.0", "--cache-dir", cache}
			},
			code: exitUsage, want: []string{`unexpected argument "`, "the repository is given as --repo"}}),
		Entry("B55: repro --host v0.0.1, a ref the repository does not have", badCase{args: cmdWith("repro", "--host", "v0.0.1", "--client", "worktree"),
			code: exitUsage, want: []string{`unknown ref "v0.0.1"`}}),
		Entry("B56: --cache-dir is a file, whose content is kept", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				f := filepath.Join(GinkgoT().TempDir(), "afile")
				Expect(os.WriteFile(f, []byte("mine"), 0o644)).To(Succeed())
				DeferCleanup(func() { Expect(os.ReadFile(f)).To(Equal([]byte("mine"))) })
				return []string{"run", "--repo", s.dir, "--cache-dir", f, "--report-dir", report}
			},
			code: exitUsage, want: []string{"--cache-dir", "afile is a file, not a directory"}}),
		Entry("B58: cache prune --older-than banana", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				return []string{"cache", "prune", "--older-than", "banana", "--cache-dir", cache}
			},
			code: exitUsage, want: []string{`"banana" is not a duration like 36h, 7d or 2w`}, not: []string{"Usage:"}}),

		// skewtest.yaml.
		Entry("B07: a YAML syntax error", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string { return strings.Replace(y, "host: [./driver, host]", "host: [./driver, host", 1) })
			},
			// Line 6 holds the [ left open (it was reported at line 5).
			args: runWith(), code: exitUsage, want: []string{"skewtest.yaml:6: did not find expected ',' or ']'"}, before: true}),
		Entry("B08: an unknown key (prodcut)", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string { return strings.Replace(y, "product:", "prodcut:", 1) })
			},
			args: runWith(), code: exitUsage, want: []string{`skewtest.yaml:1: unknown key "prodcut" (known keys here: product,`}, before: true}),
		Entry("B09: steps: 42, a number where a list belongs", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string {
					return regexp.MustCompile(`(?m)^  steps: .*$`).ReplaceAllString(y, "  steps: 42")
				})
			},
			args: runWith(), code: exitUsage, want: []string{`skewtest.yaml:4: build.steps is a number ("42"), want a list of strings`},
			not: []string{"!!", "unmarshal", "[]string"}, before: true}),
		Entry("B10: drivers.host missing", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string { return strings.Replace(y, "  host: [./driver, host]\n", "", 1) })
			},
			args: runWith(), code: exitUsage, want: []string{"skewtest.yaml:5: drivers.host is missing or empty", "e.g."}, before: true}),
		Entry("B11: host: a string, not a list; the value shown whole", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string {
					return strings.Replace(y, "host: [./driver, host]", `host: "./driver host --and a long tail"`, 1)
				})
			},
			args: runWith(), code: exitUsage,
			want: []string{`skewtest.yaml:6: drivers.host is a string ("./driver host --and a long tail"), want a list of strings, the command's argv, such as ["./driver", "host"]`},
			not:  []string{"!!str", "...", "unmarshal"}, before: true}),
		Entry("B48: no skewtest.yaml", badCase{
			setup: func(s *tinySubject) { Expect(os.Remove(filepath.Join(s.dir, "skewtest.yaml"))).To(Succeed()) },
			args:  runWith(), code: exitUsage, want: []string{"skewtest.yaml: not found: a subject needs skewtest.yaml", "docs/subject.md"}, before: true}),
		Entry("N05: skewtest.yaml is a directory (was exit 3)", badCase{
			setup: func(s *tinySubject) {
				p := filepath.Join(s.dir, "skewtest.yaml")
				Expect(os.Remove(p)).To(Succeed())
				Expect(os.Mkdir(p, 0o755)).To(Succeed())
			},
			args: runWith(), code: exitUsage, want: []string{"shell/skewtest.yaml: is a directory, not a file"}, before: true}),
		Entry("N04: skewtest.yaml is a symbolic link to itself (was exit 3)", badCase{
			setup: func(s *tinySubject) {
				p := filepath.Join(s.dir, "skewtest.yaml")
				Expect(os.Remove(p)).To(Succeed())
				Expect(os.Symlink("skewtest.yaml", p)).To(Succeed())
			},
			args: runWith(), code: exitUsage, want: []string{"shell/skewtest.yaml: is a symbolic link that loops"}, before: true}),
		Entry("B49: an empty skewtest.yaml", badCase{
			setup: func(s *tinySubject) { s.write("skewtest.yaml", "") },
			args:  runWith(), code: exitUsage, want: []string{"skewtest.yaml:1: empty file: set product, contract, build.steps and drivers"}, before: true}),

		// Journeys.
		Entry("B16: an unknown verb (awiat)", badCase{args: withJourney("verb.txtar", "kind desktop\n-- script --\nstep a\nawiat client x\n"),
			code: exitUsage, want: []string{`verb.txtar:4: unknown verb "awiat" (want await, client`}, before: true}),
		Entry("B18: no kind line", badCase{args: withJourney("nokind.txtar", "-- script --\nstep a\nclient noop\n"),
			code: exitUsage, want: []string{"nokind.txtar:1: no kind line: say which client kind"}, before: true}),
		Entry("B19: timeout 10 seconds", badCase{args: withJourney("baddur.txtar", "kind desktop\ntimeout 10 seconds\n-- script --\nstep a\nclient noop\n"),
			code: exitUsage, want: []string{`baddur.txtar:2: timeout "10 seconds" is not a positive duration such as 10s`}, before: true}),
		Entry("B20: an unterminated quote", badCase{args: withJourney("quote.txtar", "kind desktop\n-- script --\nstep a\nclient noop x=\"abc\n"),
			code: exitUsage, want: []string{"quote.txtar:4: unterminated string"}, before: true}),
		Entry("B22: -- framez --", badCase{args: withJourney("section.txtar", "kind desktop\n-- script --\nstep a\nclient noop\n-- framez --\nH>C pong\n"),
			code: exitUsage, want: []string{`section.txtar:5: unknown section "framez" (want script or frames)`}, before: true}),
		Entry("B23: an empty journey file", badCase{args: withJourney("empty.txtar", ""),
			code: exitUsage, want: []string{"empty.txtar:1: no -- script -- section"}, before: true}),
		Entry("B24: --journey names a file that does not exist (was exit 3)", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				return runWith("--journey", filepath.Join(GinkgoT().TempDir(), "nope.txtar"))(s, cache, report)
			},
			code: exitUsage, want: []string{"nope.txtar: no such file or directory"}, before: true}),
		Entry("B24b: --journey names no journey of the subject (was exit 3)", badCase{args: runWith("--journey", "onee"),
			code: exitUsage, want: []string{`no journey "onee" in the subject's skewtest.yaml (it lists one)`, "--journey ./onee.txtar"}, before: true}),
		Entry("B26: a condition-name typo [fram:pong]", badCase{args: withJourney("cond2.txtar", "kind desktop\n-- script --\nstep a\n[fram:pong] client noop\n"),
			code: exitUsage, want: []string{"cond2.txtar:4: unknown condition [fram:pong] (want", "frame:NAME"}, before: true}),
		Entry("B26c: a command condition naming a command no contract declares", badCase{args: withJourney("cmdcond.txtar", "kind desktop\n-- script --\nstep a\n[command:review.strat@2] client noop\n"),
			code: exitUsage, want: []string{`cmdcond.txtar:4: command "review.strat" is in no contract of the builds`}, before: true}),
		Entry("N09: a journey that starts with a UTF-8 byte-order mark runs (was refused: unknown header line \"\\ufeff\")", badCase{
			args: withJourney("bom.txtar", "\ufeff"+shellJourney), code: exitOK, want: []string{"4 pairings: 4 passed"}, not: []string{"ufeff"}}),
		Entry("B28: a duplicate step name", badCase{args: withJourney("dupstep.txtar", "kind desktop\n-- script --\nstep a\nclient noop\nstep a\nhost noop\n"),
			code: exitUsage, want: []string{`dupstep.txtar:5: step "a" already defined at line 3`}, before: true}),

		// Lock file.
		Entry("B43: a corrupted skewtest.lock (line 2)", badCase{
			setup: func(s *tinySubject) { s.write("skewtest.lock", "# skewtest.lock\nv1.0.0 not-a-hash extra\n") },
			args:  runWith(), code: exitUsage, want: []string{`skewtest.lock:2: want "TAG COMMIT", got "v1.0.0 not-a-hash extra"`}, before: true}),
		Entry("B43b: binary garbage in skewtest.lock", badCase{
			setup: func(s *tinySubject) { s.write("skewtest.lock", "\x00\xff\xfegarbage\n") },
			args:  runWith(), code: exitUsage, want: []string{`skewtest.lock:1: want "TAG COMMIT", got "\x00\xff\xfegarbage"`}, before: true}),
		Entry("B43c: pins lock over a corrupted lock says what to do, and keeps it", badCase{
			setup: func(s *tinySubject) {
				s.write("skewtest.lock", "v1.0.0 not-a-hash extra\n")
				DeferCleanup(func() {
					Expect(readFile(filepath.Join(s.dir, "skewtest.lock"))).To(Equal("v1.0.0 not-a-hash extra\n"))
				})
			},
			args: cmdWith("pins", "lock"), code: exitUsage,
			want: []string{`skewtest.lock:1: want "TAG COMMIT"`, "fix line 1", "git checkout -- skewtest.lock", "delete it and run skewtest pins lock again"}}),

		// Builds and drivers.
		Entry("B14: a host driver that prints garbage instead of hello", badCase{
			setup: func(s *tinySubject) {
				s.write("driver.sh", "#!/bin/sh\necho '{not json'\nhead -c 64 /dev/urandom\necho\nexec cat\n")
			},
			args: runWith("--pins", "v1.0.0", "--journey", "one"), code: exitInfra,
			want: []string{"never got ready", `first message is not hello: "{not json"`}}),
		Entry("B46: the working tree does not build: the log and its last lines", badCase{
			setup: func(s *tinySubject) {
				s.edit("skewtest.yaml", func(y string) string {
					return regexp.MustCompile(`(?m)^  steps: .*$`).ReplaceAllString(y, `  steps: ['echo "main.go:184:1: syntax error: unexpected }" >&2; exit 1']`)
				})
			},
			args: runWith(), code: exitInfra,
			want: []string{"build worktree: failed", "build.log", "main.go:184:1: syntax error"}}),
		Entry("B53: example into a non-empty directory (was exit 3)", badCase{
			args: func(s *tinySubject, cache, report string) []string { return []string{"example", s.dir} },
			code: exitUsage, want: []string{"is not empty; give a new or empty directory"}}),
	)

	It("B53b: example over a repository with a local commit refuses and keeps the commit", func(ctx SpecContext) {
		s := newShellSubject()
		mine := s.commit("my local work")
		code, out := cli(ctx, "example", s.dir)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("is not empty"))
		head, err := s.repo.Head()
		Expect(err).NotTo(HaveOccurred())
		Expect(head.Hash()).To(Equal(mine))
	})

	Describe("B44: a tag moved after pins lock", func() {
		var s *tinySubject
		var cache string
		BeforeEach(func(ctx SpecContext) {
			s = newShellSubject()
			cache = GinkgoT().TempDir()
			code, out := cli(ctx, "pins", "lock", "--repo", s.dir)
			Expect(code).To(Equal(exitOK), out)
		})

		It("B44c: an unpinned tag that moved does not stop a run (control)", func(ctx SpecContext) {
			s.move("v1.0.0")
			code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", GinkgoT().TempDir())
			Expect(code).To(Equal(exitOK), out)
		})

		DescribeTable("a pinned tag that moved is refused, saying how to accept the move",
			func(ctx SpecContext, args func(dir string) []string) {
				moved := s.move("v1.1.0")
				code, out := cli(ctx, append(args(s.dir), "--cache-dir", cache)...)
				Expect(code).To(Equal(exitUsage), out)
				Expect(out).To(ContainSubstring("tag moved since it was locked: v1.1.0 points at " + moved.String()[:12]))
				Expect(out).To(ContainSubstring("skewtest.lock locked it at"))
				Expect(out).To(ContainSubstring("run `skewtest pins lock`"))
				Expect(cacheEntries(cache)).To(BeEmpty(), "refused before building")
			},
			Entry("B44: run --pins v1.1.0", func(dir string) []string { return []string{"run", "--repo", dir, "--pins", "v1.1.0"} }),
			Entry("B44b: run with the default pins", func(dir string) []string { return []string{"run", "--repo", dir} }),
			Entry("B44d: repro", func(dir string) []string {
				return []string{"repro", "--repo", dir, "--host", "v1.1.0", "--client", "worktree"}
			}),
			Entry("B44e: build", func(dir string) []string { return []string{"build", "--repo", dir} }),
		)
	})

	It("B25: the repro line of a custom journey file names the file, and reruns that journey", func(ctx SpecContext) {
		s := newShellSubject()
		cache := GinkgoT().TempDir()
		// Two steps where the subject's own journey has one; named cond like the trial's.
		custom := journeyFile("cond.txtar", "kind desktop\n-- script --\nstep one\nclient noop\nstep two\nhost noop\n")
		code, out := cli(ctx, "plan", "--repo", s.dir, "--cache-dir", cache, "--pins", "v1.0.0", "--journey", custom)
		Expect(code).To(Equal(exitOK), out)
		line := reproLineIn(out, "v1.0.0", "worktree")
		Expect(line).To(ContainSubstring("--journey " + custom))
		Expect(line).NotTo(MatchRegexp(`--journey cond\b`))

		report := GinkgoT().TempDir()
		code, out = cli(ctx, append(strings.Fields(strings.TrimPrefix(line, "skewtest ")), "--cache-dir", cache, "--report-dir", report)...)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).NotTo(ContainSubstring("no built-in journey"))
		for _, p := range resultsOf(report)["pairings"].([]any) {
			Expect(p.(map[string]any)["completedSteps"]).To(Equal([]any{"one", "two"}), "the custom journey ran, not the subject's")
		}
	})

	It("B57: a custom journey file named like the subject's journey: the repro line replays the file, not the subject's", func(ctx SpecContext) {
		s := newShellSubject()
		cache := GinkgoT().TempDir()
		// one.txtar is also the subject's journey (one step): this one has a step that fails.
		custom := journeyFile("one.txtar", "kind desktop\n-- script --\nstep one\nclient noop\nstep stuck\nawait client never-comes\n")
		report := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--pins", "v1.0.0",
			"--journey", custom, "--timeout", "1s", "-j", "4")
		Expect(code).NotTo(Equal(exitOK), out)
		var line string
		for _, p := range resultsOf(report)["pairings"].([]any) {
			if r, _ := p.(map[string]any)["repro"].(string); r != "" {
				line = r
			}
		}
		Expect(line).To(ContainSubstring("--journey " + custom))

		code2, out := cli(ctx, append(strings.Fields(strings.TrimPrefix(line, "skewtest ")), "--cache-dir", cache,
			"--report-dir", GinkgoT().TempDir(), "--timeout", "1s")...)
		Expect(code2).To(Equal(code), "the repro fails as the run did, not silently passing the subject's journey: %s", out)
	})

	It("B51: two runs on one cold cache build each key once, and agree", func(ctx SpecContext) {
		s := newShellSubject()
		gate := filepath.Join(GinkgoT().TempDir(), "gate")
		// Every build waits for the gate, so the second run meets the first one's builds.
		s.edit("skewtest.yaml", func(y string) string {
			return regexp.MustCompile(`(?m)^  steps: \[`).ReplaceAllString(y, `  steps: ['while [ ! -e `+gate+` ]; do sleep 0.05; done', `)
		})
		cache := GinkgoT().TempDir()
		start := func() (chan int, *syncBuffer) {
			out := &syncBuffer{}
			done := make(chan int, 1)
			go func() {
				defer GinkgoRecover()
				done <- exitCode(dispatch(ctx, []string{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", GinkgoT().TempDir(),
					"--pins", "v1.0.0", "--journey", "one", "-v"}, out, out), out)
			}()
			return done, out
		}
		first, out1 := start()
		Eventually(out1.String).Should(ContainSubstring("building"))
		second, out2 := start()
		Eventually(out2.String).Should(ContainSubstring("waiting for another build of"))
		Eventually(out2.String).Should(MatchRegexp(`waiting for another build of \w+, held by pid %d \(.+\) since [0-9:]+; lock %s`,
			os.Getpid(), regexp.QuoteMeta(filepath.Join(cache, "builds", ".lock-"))), "the wait names the run holding the lock")
		Expect(os.WriteFile(gate, nil, 0o644)).To(Succeed())
		var c1, c2 int
		Eventually(first).WithTimeout(time.Minute).Should(Receive(&c1))
		Eventually(second).WithTimeout(time.Minute).Should(Receive(&c2))
		Expect(c1).To(Equal(exitOK), out1.String())
		Expect(c2).To(Equal(c1), out2.String())
		building := strings.Count(out1.String(), ": building (") + strings.Count(out2.String(), ": building (")
		Expect(building).To(Equal(2), "one build per key (the working tree's and v1.0.0's)\n%s\n%s", out1, out2)
	})
})

// reproLineIn returns the repro line plan printed for the pairing host × client.
func reproLineIn(out, host, client string) string {
	GinkgoHelper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "host "+host+" × ") && strings.Contains(l, "client "+client+" ") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	Fail("no repro line for " + host + " × " + client + " in:\n" + out)
	return ""
}

// The rows whose fix is the other hardening track's (hard-a): answers before the work,
// the report directory's owner, skipped kinds, and messages that name what the user wrote.
// They state the behaviour issue 12 promises; until that track is merged they fail here.
var _ = Describe("the bad-input corpus (hard-a)", func() {
	DescribeTable("answers each bad input with its exit code and message, before building",
		func(ctx SpecContext, c badCase) { runCase(ctx, c) },
		Entry("B01: a --repo that does not exist is not called a git repository", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				return []string{"run", "--repo", filepath.Join(GinkgoT().TempDir(), "nope"), "--cache-dir", cache}
			},
			code: exitUsage, want: []string{"nope: does not exist"}, not: []string{"not a git repository"}, before: true}),
		Entry("B29: a journey of a kind no build has names its kind and the builds' kinds", badCase{
			args: withJourney("tablet.txtar", "kind tablet\n-- script --\nstep a\nclient noop\n"),
			code: exitUsage, want: []string{"nothing to run", "tablet", "desktop, mobile"}, not: []string{"kinds []"}, before: true}),
		Entry("B30: --kind tablet", badCase{args: runWith("--kind", "tablet"),
			code: exitUsage, want: []string{"tablet", "desktop, mobile"}, before: true}),
		Entry("B31: an unknown tag in a full clone gets no shallow-clone advice", badCase{args: runWith("--pins", "v9.9.9"),
			code: exitUsage, want: []string{`unknown ref "v9.9.9"`}, not: []string{"shallow"}, before: true}),
		Entry("B34, B36: --matrix bogus", badCase{args: runWith("--matrix", "bogus", "--pins", "v1.0.0"),
			code: exitUsage, want: []string{`unknown matrix "bogus" (want default or full)`}, before: true}),
		Entry("B36b: --kind tablet --pins v1.0.0, uncached", badCase{args: runWith("--kind", "tablet", "--pins", "v1.0.0"),
			code: exitUsage, want: []string{"tablet"}, before: true}),
		Entry("B54: --kind desktop with a journey that drives mobile only", badCase{
			setup: func(s *tinySubject) {
				s.write("journeys/mob.txtar", "kind mobile\n-- script --\nstep a\nclient noop\n")
			},
			args: runWith("--kind", "desktop", "--journey", "mob"),
			code: exitUsage, want: []string{"nothing to run", "mob", "mobile", "desktop"}, before: true}),
		Entry("B21: a frame name no contract knows, in a condition", badCase{
			args: withJourney("cond.txtar", "kind desktop\n-- script --\nstep a\n[frame:pnog] client noop\n"),
			code: exitUsage, want: []string{"cond.txtar:4:", `frame "pnog"`}, before: true}),
		Entry("control for B21: a frame only the working tree's contract knows is no typo in a run of two tags", badCase{
			setup: func(s *tinySubject) {
				s.edit("contract.json", func(c string) string {
					return strings.Replace(c, `{"type": "ping", "name": "ping", "direction": "C>H"},`,
						`{"type": "ping", "name": "ping", "direction": "C>H"}, {"type": "nudge", "name": "nudge", "direction": "C>H"},`, 1)
				})
				s.write("journeys/one.txtar", shellJourney+"[frame:nudge] client noop\n")
			},
			args: func(s *tinySubject, cache, report string) []string {
				return []string{"repro", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--host", "v1.1.0", "--client", "v1.0.0"}
			},
			code: exitOK, want: []string{"passed"}}),
		Entry("B27: a frame name no contract knows, in the frames section", badCase{
			args: withJourney("golden.txtar", "kind desktop\n-- script --\nstep a\nclient noop\n-- frames --\nC>H ping\nH>C pnog\n"),
			code: exitUsage, want: []string{"golden.txtar:7:", `frame "pnog"`}, not: []string{`frame "ping"`}, before: true}),
		Entry("B37: --report-dir is a file, whose content is kept", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				f := filepath.Join(GinkgoT().TempDir(), "afile")
				Expect(os.WriteFile(f, []byte("mine"), 0o644)).To(Succeed())
				DeferCleanup(func() { Expect(os.ReadFile(f)).To(Equal([]byte("mine"))) })
				return []string{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", f}
			},
			code: exitUsage, want: []string{"afile", "not a directory"}, before: true}),
		Entry("B38: --report-dir cannot be created (/proc/1/skewrep)", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				return []string{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", "/proc/1/skewrep"}
			},
			code: exitUsage, want: []string{"/proc/1/skewrep", "cannot be created"}, before: true}),
		Entry("B38b: --report-dir under a file", badCase{
			args: func(s *tinySubject, cache, report string) []string {
				f := filepath.Join(GinkgoT().TempDir(), "afile")
				Expect(os.WriteFile(f, []byte("mine"), 0o644)).To(Succeed())
				return []string{"run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", filepath.Join(f, "sub")}
			},
			code: exitUsage, want: []string{"afile/sub", "cannot be created: not a directory"}, before: true}),
		Entry("B45: invalid JSON in the working tree's contract names the user's file (was exit 3, the cache copy)", badCase{
			setup: func(s *tinySubject) {
				s.edit("contract.json", func(c string) string {
					lines := strings.SplitN(c, "\n", 4)
					lines[2] = `  "oops": ,`
					return strings.Join(lines, "\n")
				})
			},
			args: runWith("--pins", "v1.0.0"), code: exitUsage,
			want: []string{"shell/contract.json", "line 3"}, not: []string{"builds/", "build worktree: ok"}, before: true}),
		Entry("B47: the working tree's contract file is missing (was exit 3)", badCase{
			setup: func(s *tinySubject) { Expect(os.Remove(filepath.Join(s.dir, "contract.json"))).To(Succeed()) },
			args:  runWith("--pins", "v1.0.0"), code: exitUsage,
			want: []string{"shell/contract.json"}, not: []string{"builds/"}, before: true}),
	)

	It("B35c: plan builds nothing", func(ctx SpecContext) {
		s := newShellSubject()
		cache := GinkgoT().TempDir()
		code, out := cli(ctx, "plan", "--repo", s.dir, "--cache-dir", cache, "--last", "1000")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("v1.0.0"))
		Expect(cacheEntries(cache)).To(BeEmpty(), "plan builds nothing")
	})

	It("B17: an action the drivers do not announce is a usage error at its file:line, not a finding", func(ctx SpecContext) {
		s := newShellSubject()
		report := GinkgoT().TempDir()
		typo := journeyFile("typo.txtar", "kind desktop\n-- script --\nstep a\nclient nop\n")
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir(), "--report-dir", report, "--journey", typo)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(`typo.txtar:4: client action "nop"`))
		Expect(out).NotTo(ContainSubstring("driver-error"))
		Expect(filepath.Join(report, "results.json")).NotTo(BeAnExistingFile(), "no verdict on any pairing")
	})

	It("B12: a requested kind a build lacks is a notice and skipped entries, not lost coverage", func(ctx SpecContext) {
		s := newShellSubject()
		s.edit("skewtest.yaml", func(y string) string {
			return strings.Replace(y, "clients: {desktop: [./driver, client, desktop], mobile:", "clients: {mobile:", 1)
		})
		report := GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir(), "--report-dir", report,
			"--pins", "v1.0.0", "--kind", "desktop")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("skipped"))
		Expect(out).To(ContainSubstring("no desktop client driver"))
		run := resultsOf(report)
		Expect(run["pairings"]).To(HaveLen(2))
		Expect(run["skipped"]).To(HaveLen(2), "the worktree's reference and v1.0.0 × the worktree's desktop client")
	})

	It("B13: a missing driver binary is a configuration error (exit 2, was 3) named by its skewtest.yaml line, not its path in the build cache; the run stops", func(ctx SpecContext) {
		s := newShellSubject()
		s.edit("skewtest.yaml", func(y string) string {
			return strings.Replace(y, "host: [./driver, host]", "host: [./no-such-driver, host]", 1)
		})
		cache, report := GinkgoT().TempDir(), GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--pins", "v1.0.0")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(`worktree: the host driver "./no-such-driver" (` + filepath.Join(s.dir, "skewtest.yaml") + `:6) is not in the build's output: the recipe must write it to $SKEWTEST_OUT, or fix its argv there`))
		Expect(out).NotTo(ContainSubstring(filepath.Join(cache, "builds")))
		Expect(cacheEntries(cache)).NotTo(BeEmpty(), "found once built")
		Expect(filepath.Join(report, "results.json")).NotTo(BeAnExistingFile(), "the run stopped: no pairing ran")

		code, out = cli(ctx, "build", "--repo", s.dir, "--cache-dir", cache, "--pins", "v1.0.0")
		Expect(code).To(Equal(exitUsage), "skewtest build says it too: %s", out)
		Expect(out).To(ContainSubstring(`the host driver "./no-such-driver"`))
	})

	It("B15: a silent driver's error says what it waited for and how long", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		silent := &harness.Build{Label: "worktree", Revision: "worktree", Dir: dir, Host: []string{"sleep", "60"},
			Clients: map[string][]string{"desktop": {"sleep", "60"}}}
		j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep s\nclient noop\n"))
		Expect(err).NotTo(HaveOccurred())
		res, _ := harness.Run(ctx, harness.Pairing{Host: silent, Client: silent, Kind: "desktop", Journey: j},
			harness.Options{Dir: GinkgoT().TempDir(), ReadyTimeout: 300 * time.Millisecond})
		Expect(res.Status).To(Equal(results.StatusError))
		Expect(res.Error).To(ContainSubstring("never said hello within 300ms"))
		Expect(res.Error).NotTo(ContainSubstring("context deadline exceeded"))
	})

	It("B50: a reused report directory holds only the new run's pairings; the previous run is kept aside", func(ctx SpecContext) {
		s := newShellSubject()
		s.write("journeys/two.txtar", "kind mobile\n-- script --\nstep a\nclient noop\n")
		cache, report := GinkgoT().TempDir(), GinkgoT().TempDir()
		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--matrix", "full", "--last", "2")
		Expect(code).To(Equal(exitOK), out)
		Expect(os.WriteFile(filepath.Join(report, "notes.txt"), []byte("mine"), 0o644)).To(Succeed())
		first, err := os.ReadDir(filepath.Join(report, "pairings"))
		Expect(err).NotTo(HaveOccurred())
		Expect(len(first)).To(BeNumerically(">", 4), "control: the first run's pairings are there")

		code, out = cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--pins", "v1.1.0", "--journey", "one")
		Expect(code).To(Equal(exitOK), out)
		second, err := os.ReadDir(filepath.Join(report, "pairings"))
		Expect(err).NotTo(HaveOccurred())
		Expect(second).To(HaveLen(4), "only the new run's pairings")
		Expect(resultsOf(report)["pairings"]).To(HaveLen(4))
		Expect(filepath.Join(report, "previous", "results.json")).To(BeAnExistingFile(), "the previous run is kept aside")
		Expect(os.ReadFile(filepath.Join(report, "notes.txt"))).To(Equal([]byte("mine")), "a user's file stays")
	})

	It("B52: a second run into a report directory in use is refused, naming the first", func(ctx SpecContext) {
		s := newShellSubject()
		cache, report := GinkgoT().TempDir(), GinkgoT().TempDir()
		blocking := journeyFile("blocking.txtar", "kind desktop\n-- script --\nstep wait\nawait client nothing-ever-happens\n")
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		first := make(chan int, 1)
		go func() {
			defer GinkgoRecover()
			code, _ := cli(runCtx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--pins", "v1.0.0",
				"--journey", blocking, "-j", "1", "--timeout", "10m", "--quiet", "0")
			first <- code
		}()
		Eventually(func() []string {
			dirs, _ := filepath.Glob(filepath.Join(report, "pairings", "*"))
			return dirs
		}).WithTimeout(time.Minute).ShouldNot(BeEmpty())

		code, out := cli(ctx, "run", "--repo", s.dir, "--cache-dir", cache, "--report-dir", report, "--pins", "v1.0.0")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("in use by another skewtest run"))
		cancel()
		Eventually(first).WithTimeout(time.Minute).Should(Receive(Equal(exitInfra)))
		Expect(resultsOf(report)["interrupted"]).To(BeTrue(), "the first run's results.json, saying it was interrupted")
	})
})
