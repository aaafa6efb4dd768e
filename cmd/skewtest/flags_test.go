package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("flags", func() {
	It("parses run", func() {
		o, err := parseRun([]string{"--repo", "/r", "--pins", "v1, v2", "--matrix", "full", "--kind", "desktop",
			"--journey", "terminal", "--timeout", "3s", "--seed", "7", "--report-dir", "out"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Repo).To(Equal("/r"))
		Expect(o.Pins).To(Equal([]string{"v1", "v2"}))
		Expect(o.Matrix).To(Equal("full"))
		Expect(o.Kinds).To(Equal([]string{"desktop"}))
		Expect(o.Journeys).To(Equal([]string{"terminal"}))
		Expect(o.Timeout.String()).To(Equal("3s"))
		Expect(o.Seed).To(Equal(int64(7)))
		Expect(o.ReportDir).To(Equal("out"))
	})

	It("parses --future-peers for run and repro, off by default", func() {
		o, err := parseRun([]string{"--repo", "/r"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeFalse())
		o, err = parseRun([]string{"--repo", "/r", "--future-peers"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeTrue())
		o, err = parseRepro([]string{"--repo", "/r", "--host", "v1", "--client", "worktree", "--future-peers"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeTrue())
	})

	It("takes --shard with a seed; plan previews a shard without one", func() {
		o, err := parseRun([]string{"--repo", "/r", "--shard", "2/3", "--seed", "9"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Shard).To(Equal("2/3"))
		Expect(o.Seed).To(Equal(int64(9)))
		_, err = parseRunAs("plan", []string{"--repo", "/r", "--shard", "2/3"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
	})

	It("names --shard where the library names Shard, at parse time (control for the root package's Config spec)", func() {
		_, err := parseRun([]string{"--repo", "/r", "--shard", "3/2", "--seed", "1"}, io.Discard)
		Expect(err).To(MatchError(`--shard "3/2": want K/N with 1 <= K <= N, such as 2/3`))
		Expect(exitCode(err, io.Discard)).To(Equal(exitUsage))
		_, err = parseRun([]string{"--repo", "/r", "--matrix", "bogus"}, io.Discard)
		Expect(err).To(MatchError(`--matrix: unknown matrix "bogus" (want default or full)`))
	})

	DescribeTable("names the flag where the library names the Config field it checks, with exit code 2",
		func(ctx SpecContext, args func() []string, want string, field string) {
			var stderr bytes.Buffer
			Expect(exitCode(dispatch(ctx, args(), io.Discard, io.Discard), &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
			Expect(stderr.String()).NotTo(ContainSubstring(field), "the Go caller's name")
		},
		Entry("run --shard 3/2", func() []string { return []string{"run", "--repo", "x", "--shard", "3/2", "--seed", "1"} },
			`skewtest: --shard "3/2": want K/N with 1 <= K <= N, such as 2/3`, `Shard "3/2"`),
		Entry("run --matrix bogus (checked before the repository is opened, as --shard is)", func() []string { return []string{"run", "--repo", "x", "--matrix", "bogus"} },
			`skewtest: --matrix: unknown matrix "bogus" (want default or full)`, "Matrix:"),
		Entry("tap without --record", func() []string { return []string{"tap", "--upstream", "ws://127.0.0.1:1"} },
			"skewtest: tap: give --record DIR, where the transcript goes", "give Dir"),
		Entry("tap --framing packets without the contract that says where packets end", func() []string {
			return []string{"tap", "--upstream", "tcp://127.0.0.1:1", "--record", GinkgoT().TempDir(), "--framing", "packets"}
		}, "skewtest: tap: --framing packets cuts where a contract's stream codec says each packet ends: give that contract", "Stream.Framing"),
		Entry("tap --length-offset on a varint", func() []string {
			return []string{"tap", "--upstream", "tcp://127.0.0.1:1", "--record", GinkgoT().TempDir(), "--framing", "varint", "--length-offset", "2"}
		}, "skewtest: tap: --length-offset a length inside a header needs a fixed-width length framing", "Stream.Length"),
		Entry("init --transport quic", func() []string { return []string{"init", "--repo", GinkgoT().TempDir(), "--transport", "quic"} },
			`skewtest: init: --transport "quic": want ws, wss, tcp, tls`, "Transport"),
		Entry("example --adopted-at a tag the history has not", func() []string {
			return []string{"example", "--adopted-at", "v9.9.9", filepath.Join(GinkgoT().TempDir(), "ex")}
		}, `: --adopted-at v9.9.9: no release is tagged so`, "AdoptedAt"),
		Entry("bisect whose good end defaults to the working tree", func() []string {
			return []string{"bisect", "--repo", "x", "--host", "v1.0.0", "--client", "worktree", "--kind", "desktop", "--journey", "j", "--side", "host"}
		}, "skewtest: --good defaults to the fixed side's build, the working tree: the walk goes from a commit to a later one", "Good"),
	)

	It("adds up a list flag given twice, as --pins always did", func() {
		o, err := parseRun([]string{"--repo", "/r", "--kind", "desktop", "--kind", "mobile,session", "--pins", "v1", "--pins", "v2"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Kinds).To(Equal([]string{"desktop", "mobile", "session"}))
		Expect(o.Pins).To(Equal([]string{"v1", "v2"}))
		o, err = parseRun([]string{"--repo", "/r"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Kinds).To(BeNil(), "left out: the default")
	})

	It("draws a seed when none is given", func() {
		o, err := parseRun([]string{"--repo", "/r"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Seed).NotTo(BeZero())
	})

	It("parses repro", func() {
		o, err := parseRepro([]string{"--repo", "/r", "--host", "v1.4.190", "--client", "worktree", "--kind", "mobile"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Host).To(Equal("v1.4.190"))
		Expect(o.Client).To(Equal("worktree"))
		Expect(o.Kinds).To(Equal([]string{"mobile"}))
	})

	DescribeTable("refuses bad command lines with exit code 2",
		func(args []string, want string) {
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args, io.Discard, io.Discard)
			Expect(err).To(HaveOccurred())
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
		},
		Entry("no command", []string{}, "no command"),
		Entry("unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`),
		Entry("run without repo", []string{"run"}, "--repo is required"),
		Entry("unknown flag", []string{"run", "--repo", "x", "--bogus"}, "flag provided but not defined: -bogus"),
		Entry("stray argument", []string{"run", "--repo", "x", "extra"}, `unexpected argument "extra"`),
		Entry("repro without client", []string{"repro", "--repo", "x", "--host", "v1"}, "repro needs --host and --client"),
		Entry("example without dir", []string{"example"}, "want 1 argument(s), got 0"),
		Entry("not a repository", []string{"pins", "--repo", "/"}, "not a git repository"),
		Entry("--timeout 0", []string{"run", "--repo", "x", "--timeout", "0"}, `invalid value "0" for flag -timeout: want a positive duration`),
		Entry("--timeout -5s", []string{"run", "--repo", "x", "--timeout", "-5s"}, `want a positive duration`),
		Entry("--last 0", []string{"run", "--repo", "x", "--last", "0"}, `-last: 0 is too small: give how many of the newest stable tags to pin, 1 or more`),
		Entry("--last -1", []string{"plan", "--repo", "x", "--last", "-1"}, `-last: -1 is too small`),
		Entry("--last x", []string{"pins", "--repo", "x", "--last", "x"}, `-last: want a whole number`),
		Entry("-j 0", []string{"run", "--repo", "x", "-j", "0"}, `-j: 0 is too small: give how many pairings run at once, 1 or more`),
		Entry("--pins '' (R4, N15: was the default pins)", []string{"run", "--repo", "x", "--pins", ""}, `invalid value "" for flag -pins: an empty list: give one or more, comma-separated, or leave the flag out for the default`),
		Entry("--kind '' (R4, N29: was every kind)", []string{"run", "--repo", "x", "--kind", ""}, `flag -kind: an empty list: give one or more, comma-separated, or leave the flag out for the default`),
		Entry("--journey ' , ' (was every journey)", []string{"plan", "--repo", "x", "--journey", " , "}, `flag -journey: an empty list`),
		Entry("repro --kind ''", []string{"repro", "--repo", "x", "--host", "v1", "--client", "v2", "--kind", ""}, `flag -kind: an empty list`),
		Entry("pins --ignore ''", []string{"pins", "--repo", "x", "--ignore", ""}, `flag -ignore: an empty list`),
		Entry("fuzz --generator ''", []string{"fuzz", "--repo", "x", "--generator", ""}, `flag -generator: an empty list`),
		Entry("fuzz --exclude ''", []string{"fuzz", "--repo", "x", "--exclude", ""}, `flag -exclude: an empty list`),
		Entry("fuzz --kind ''", []string{"fuzz", "--repo", "x", "--kind", ""}, `flag -kind: an empty list`),
		Entry("contract check --pins ''", []string{"contract", "check", "--repo", "x", "--pins", ""}, `flag -pins: an empty list`),
		Entry("--shard without --seed (was refused only by merge-reports, after the work)", []string{"run", "--repo", "x", "--shard", "2/3"},
			"--shard 2/3: give --seed: every shard of one plan must use the same seed"),
		Entry("--shard with --seed 0, which draws a seed", []string{"run", "--repo", "x", "--shard", "1/2", "--seed", "0"},
			"--shard 1/2: give --seed"),
		Entry("fuzz --cases 0 (R3, N22: was accepted, and built)", []string{"fuzz", "--repo", "x", "--cases", "0"}, `-cases: 0 is too small: give how many cases to run, 1 or more`),
		Entry("--retries -1", []string{"repro", "--repo", "x", "--retries", "-1"}, `flag provided but not defined: -retries`),
		Entry("--retries -1", []string{"run", "--repo", "x", "--retries", "-1"}, `-retries: -1 is too small`),
		Entry("--quiet -1s", []string{"run", "--repo", "x", "--quiet", "-1s"}, `-quiet: want a positive duration`),
		Entry("--settle -1s", []string{"run", "--repo", "x", "--settle", "-1s"}, `-settle: want a positive duration such as 50ms, or 0 to turn the quiet period off`),
		Entry("--settle x", []string{"repro", "--repo", "x", "--settle", "x"}, `-settle: want a duration such as 50ms`),
		Entry("--older-than banana", []string{"cache", "prune", "--older-than", "banana"}, `"banana" is not a duration like 36h, 7d or 2w`),
		Entry("contract verify --timeout 0", []string{"contract", "verify", "--repo", "x", "--timeout", "0"}, `-timeout: want a positive duration`),
		Entry("contract verify without skewtest.yaml (was a nil-pointer panic)", []string{"contract", "verify", "--repo", "."}, `skewtest.yaml: not found: a subject needs skewtest.yaml`), // this repository has none at its root
		Entry("version with an argument", []string{"version", "x"}, `unexpected argument "x"`),
		Entry("build with a flag of run", []string{"build", "--repo", "x", "--report-dir", "r"}, `flag provided but not defined: -report-dir`),
	)

	It("prints a bad flag's error once, with no usage dump (B58)", func() {
		var stderr bytes.Buffer
		err := dispatch(context.Background(), []string{"cache", "prune", "--older-than", "banana"}, io.Discard, &stderr)
		Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
		Expect(strings.Count(stderr.String(), "banana")).To(Equal(2), stderr.String()) // `"banana" ... "banana" is not ...`
		Expect(strings.Count(stderr.String(), "\n")).To(Equal(1), stderr.String())
		Expect(stderr.String()).NotTo(ContainSubstring("Usage:"))
	})

	DescribeTable("heads every command's help with its own name and lists only its flags",
		func(args []string, head string, has, hasNot []string) {
			var stdout, stderr bytes.Buffer
			err := dispatch(context.Background(), args, &stdout, &stderr)
			Expect(exitCode(err, io.Discard)).To(Equal(exitOK))
			help := stdout.String() + stderr.String()
			Expect(help).To(HavePrefix(head))
			for _, f := range has {
				Expect(help).To(MatchRegexp(`(?m)^  -`+f+`\b`), "lists -%s", f)
			}
			for _, f := range hasNot {
				Expect(help).NotTo(MatchRegexp(`(?m)^  -`+f+`\b`), "does not list -%s", f)
			}
		},
		Entry("run", []string{"run", "--help"}, "Usage: skewtest run ", []string{"report-dir", "timeout", "seed", "matrix", "j", "settle"}, nil),
		Entry("plan (was headed run)", []string{"plan", "--help"}, "Usage: skewtest plan ", []string{"matrix", "pins"}, nil),
		Entry("repro", []string{"repro", "-h"}, "Usage: skewtest repro ", []string{"host", "client"}, []string{"matrix"}),
		Entry("build (listed flags it ignores)", []string{"build", "--help"}, "Usage: skewtest build ", []string{"repo", "pins", "runner", "cache-dir"},
			[]string{"report-dir", "seed", "timeout", "quiet", "settle"}),
		Entry("pins", []string{"pins", "--help"}, "Usage: skewtest pins ", []string{"last"}, []string{"report-dir"}),
		Entry("pins lock", []string{"pins", "lock", "--help"}, "Usage: skewtest pins lock ", []string{"last"}, nil),
		Entry("cache (was an error)", []string{"cache", "--help"}, "Usage:\n  skewtest cache ls", nil, nil),
		Entry("cache prune", []string{"cache", "prune", "-h"}, "Usage: skewtest cache prune ", []string{"older-than", "all"}, nil),
		Entry("cache ls", []string{"cache", "ls", "-h"}, "Usage: skewtest cache ls ", []string{"cache-dir"}, []string{"all"}),
		Entry("contract diff", []string{"contract", "diff", "-h"}, "Usage: skewtest contract diff ", []string{"allow"}, nil),
		Entry("merge-reports", []string{"merge-reports", "-h"}, "Usage: skewtest merge-reports ", []string{"report-dir"}, nil),
		Entry("example", []string{"example", "-h"}, "Usage: skewtest example ", []string{"subject"}, nil),
		Entry("demo", []string{"demo", "-h"}, "Usage: skewtest demo ", []string{"subject"}, nil),
	)

	It("prints the version, the Go version and the platform for --version and version, exit 0", func() {
		for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
			var stdout bytes.Buffer
			Expect(dispatch(context.Background(), args, &stdout, io.Discard)).To(Succeed())
			Expect(stdout.String()).To(Equal(versionLine(version.String(), runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)+"\n"), "%v", args)
			Expect(stdout.String()).To(MatchRegexp(`^skewtest \S.* go1\.\S+ [a-z0-9]+/[a-z0-9]+ \(driver protocol 1, contract 2, results schema 1\)\n$`), "%v", args)
		}
	})

	It("says the version it is given, then Go's and the platform", func() {
		Expect(versionLine("v1.2.0-3-gabc1234-dirty", "go1.26.8", "darwin/arm64")).To(
			HavePrefix("skewtest v1.2.0-3-gabc1234-dirty go1.26.8 darwin/arm64 (driver protocol 1, "))
		Expect(versionLine("(devel)", "go1.26.8", "linux/amd64")).To(HavePrefix("skewtest (devel) go1.26.8 linux/amd64 ("))
		Expect(versionLine("(devel)", "go1.26.8", "linux/amd64")).NotTo(ContainSubstring("v1.2.0"), "control")
	})

	DescribeTable("maps errors to exit codes",
		func(err error, code int) {
			Expect(exitCode(err, io.Discard)).To(Equal(code))
		},
		Entry("nil", nil, exitOK),
		Entry("findings", &exitError{exitFindings}, exitFindings),
		Entry("config", fmt.Errorf("load: %w", &builds.ConfigError{File: "skewtest.yaml", Line: 3, Msg: "x"}), exitUsage),
		Entry("journey", &journeys.SyntaxError{File: "j.txtar", Line: 1, Msg: "x"}, exitUsage),
		Entry("no tags", fmt.Errorf("x: %w", pins.ErrNoStableTag), exitUsage),
		Entry("other", fmt.Errorf("disk full"), exitInfra),
	)

	It("prints help and exits 0", func() {
		var out bytes.Buffer
		Expect(dispatch(context.Background(), []string{"help"}, &out, io.Discard)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("skewtest repro"))
		err := dispatch(context.Background(), []string{"run", "-h"}, io.Discard, io.Discard)
		Expect(exitCode(err, io.Discard)).To(Equal(exitOK))
	})
})
