package main

import (
	"bytes"
	"context"
	"flag"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("one flag-parsing path for every command", func() {
	Describe("the helper, parse", func() {
		// a flag set with a string, a bool and a repository flag.
		flags := func() (fs *flag.FlagSet, repo *string, v *bool) {
			fs = newFlagSet("t", io.Discard, "t")
			return fs, fs.String("repo", "", "r"), fs.Bool("v", false, "v")
		}

		type parseCase struct {
			args []string
			want nargs
			pos  []string
			repo string
			v    bool
		}
		DescribeTable("takes flags before, between and after positional arguments",
			func(c parseCase) {
				fs, repo, v := flags()
				pos, err := parse(fs, c.args, c.want)
				Expect(err).NotTo(HaveOccurred())
				Expect(pos).To(Equal(c.pos))
				Expect(*repo).To(Equal(c.repo))
				Expect(*v).To(Equal(c.v))
			},
			Entry("flags after a positional argument", parseCase{args: []string{"a", "--repo", "r", "-v"}, want: exactly(1), pos: []string{"a"}, repo: "r", v: true}),
			Entry("flags between positional arguments", parseCase{args: []string{"a", "-v", "b", "--repo=r", "c"}, want: anyArgs, pos: []string{"a", "b", "c"}, repo: "r", v: true}),
			Entry("a flag's value that looks like a positional argument binds to its flag", parseCase{args: []string{"--repo", "D", "a"}, want: exactly(1), pos: []string{"a"}, repo: "D"}),
			Entry(`"--" ends the flags: what follows is positional, verbatim`, parseCase{args: []string{"a", "--", "-v", "--repo", "r"}, want: anyArgs, pos: []string{"a", "-v", "--repo", "r"}}),
			Entry(`"--" after a bool flag`, parseCase{args: []string{"-v", "--", "-v"}, want: anyArgs, pos: []string{"-v"}, v: true}),
			Entry(`"--" as a flag's value is no terminator`, parseCase{args: []string{"--repo", "--", "a", "-v"}, want: anyArgs, pos: []string{"a"}, repo: "--", v: true}),
			Entry(`a lone "-" (standard input) is positional`, parseCase{args: []string{"c", "-", "-v"}, want: anyArgs, pos: []string{"c", "-"}, v: true}),
			Entry("a command line is positional from its first word on", parseCase{args: []string{"-v", "cmd", "-v", "--repo", "r"}, want: commandLine, pos: []string{"cmd", "-v", "--repo", "r"}, v: true}),
			Entry("no positional arguments", parseCase{args: []string{"-v"}, want: exactly(0), v: true}),
		)

		DescribeTable("refuses a count of positional arguments outside what the command takes",
			func(args []string, want nargs, msg string) {
				fs, _, _ := flags()
				_, err := parse(fs, args, want)
				Expect(exitCode(err, io.Discard)).To(Equal(exitUsage))
				Expect(err).To(MatchError(msg))
			},
			Entry("one too many", []string{"a", "--repo", "r", "b"}, exactly(1), "t: want 1 argument(s), got 2"),
			Entry("none of one", []string{"-v"}, exactly(1), "t: want 1 argument(s), got 0"),
			Entry("a stray one, the repository unset (run EX --pins v1)", []string{"EX", "-v"}, exactly(0), `t: unexpected argument "EX" (the repository is given as --repo EX)`),
			Entry("a stray one, the repository set", []string{"--repo", "r", "x"}, exactly(0), `t: unexpected argument "x"`),
			Entry("at least one", []string{}, nargs{min: 1, max: -1}, "t: want at least 1 argument(s), got 0"),
			Entry("one or two", []string{"a", "b", "c"}, nargs{min: 1, max: 2}, "t: want 1 to 2 arguments, got 3"),
		)

		It("says a bad flag after a positional argument once, with a pointer to -h", func() {
			fs, _, _ := flags()
			_, err := parse(fs, []string{"a", "--bogus"}, exactly(1))
			Expect(err).To(MatchError("t: flag provided but not defined: -bogus (skewtest t -h lists its flags)"))
		})
	})

	Describe("flags after positional arguments, command by command", func() {
		It("replay REPORT --report-dir D: D is the report directory, REPORT the saved report", func() {
			c, err := parseReplay([]string{"saved", "--report-dir", "D", "--last", "2", "--repo", "R"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Saved).To(Equal("saved"))
			Expect(c.ReportDir).To(Equal("D"))
			Expect(c.Repo).To(Equal("R"))
			Expect(c.Pins.Last).To(Equal(2))
		})

		It("recheck and record", func() {
			rc, err := parseRecheck([]string{"saved", "--report-dir", "D", "--repo", "R"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{rc.Saved, rc.ReportDir, rc.Repo}).To(Equal([]string{"saved", "D", "R"}))
			rec, err := parseRecord([]string{"saved", "--as", "v1.2.0", "--build", "worktree"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{rec.Saved, rec.As, rec.Build}).To(Equal([]string{"saved", "v1.2.0", "worktree"}))
		})

		It("transcript", func() {
			o, err := parseTranscript([]string{"pairings/003", "--json"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(*o).To(Equal(transcriptOptions{JSON: true, Path: "pairings/003"}))
		})

		It("contract diff and contract decode", func() {
			d, err := parseContractDiff([]string{"v1", "--allow", "frame-removed", "worktree", "--repo", "R"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{d.Old, d.New, d.Repo}).To(Equal([]string{"v1", "worktree", "R"}))
			Expect(d.Allow).To(HaveLen(1))
			dec, err := parseContractDecode([]string{"c.json", "-", "--json", "--dir", "H>C"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{dec.Contract, dec.From, dec.Defaults.Dir}).To(Equal([]string{"c.json", "-", "H>C"}))
			Expect(dec.JSON).To(BeTrue())
			dec, err = parseContractDecode([]string{"c.json", "--kind", "desktop"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{dec.From, dec.Kind}).To(Equal([]string{"-", "desktop"}), "no file: standard input")
		})

		It("merge-reports", func() {
			o, err := parseMerge([]string{"a", "b", "--report-dir", "out"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(o.ReportDir).To(Equal("out"))
			Expect(o.Dirs).To(Equal([]string{"a", "b"}))
		})

		It("example", func() {
			o, err := parseExample([]string{"dir", "--subject", "remoteterm", "--adopted-at", "v1.0.0"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect([]string{o.Dir, o.Subject, o.AdoptedAt}).To(Equal([]string{"dir", "remoteterm", "v1.0.0"}))
		})

		It("driver check keeps what follows -- for the driver, -v and --kind included", func() {
			c, err := parseDriverCheck([]string{"--kind", "desktop", "--", "node", "driver.js", "-v", "--kind", "x"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Kind).To(Equal("desktop"))
			Expect(c.Role).To(Equal("client"))
			Expect(c.Argv).To(Equal([]string{"node", "driver.js", "-v", "--kind", "x"}))
			c, err = parseDriverCheck([]string{"--timeout", "2s", "./driver", "-v"}, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Argv).To(Equal([]string{"./driver", "-v"}), "without --, the driver's command line starts at its first word")
			Expect(c.ReadyTimeout.String()).To(Equal("2s"))
		})
	})

	// Every command and subcommand, and the flags its help must list.
	DescribeTable("-h on every command prints its synopsis and its flags, exit 0",
		func(args []string, head string, flags []string) {
			var stdout, stderr bytes.Buffer
			err := dispatch(context.Background(), args, &stdout, &stderr)
			Expect(exitCode(err, io.Discard)).To(Equal(exitOK))
			help := stdout.String() + stderr.String()
			Expect(help).To(HavePrefix(head))
			for _, f := range flags {
				Expect(help).To(MatchRegexp(`(?m)^  -`+f+`\b`), "lists -%s", f)
			}
		},
		Entry("run", []string{"run", "-h"}, "Usage: skewtest run ", []string{"cache-dir", "env", "future-peers", "ignore", "j", "journey", "kind", "last", "last-failed", "matrix", "pins", "quiet", "repo", "report-dir", "retries", "runner", "seed", "settle", "shard", "timeout", "v", "window"}),
		Entry("plan", []string{"plan", "-h"}, "Usage: skewtest plan ", []string{"matrix", "pins", "shard", "kind", "journey"}),
		Entry("repro", []string{"repro", "-h"}, "Usage: skewtest repro ", []string{"cache-dir", "client", "env", "future-peers", "host", "j", "journey", "kind", "quiet", "repo", "report-dir", "runner", "seed", "settle", "timeout", "v"}),
		Entry("bisect", []string{"bisect", "-h"}, "Usage: skewtest bisect ", []string{"against", "bad", "client", "contract", "good", "host", "journey", "kind", "repo", "side"}),
		Entry("recheck", []string{"recheck", "-h"}, "Usage: skewtest recheck ", []string{"repo", "report-dir"}),
		Entry("replay", []string{"replay", "-h"}, "Usage: skewtest replay ", []string{"cache-dir", "ignore", "j", "last", "pins", "repo", "report-dir", "runner", "window"}),
		Entry("record", []string{"record", "-h"}, "Usage: skewtest record ", []string{"as", "build", "repo"}),
		Entry("driver", []string{"driver", "-h"}, "Usage:\n  skewtest driver check ", nil),
		Entry("driver check", []string{"driver", "check", "-h"}, "Usage: skewtest driver check ", []string{"dir", "kind", "log-dir", "role", "timeout"}),
		Entry("doctor", []string{"doctor", "-h"}, "Usage: skewtest doctor ", []string{"cache-dir", "repo", "report-dir", "runner"}),
		Entry("init", []string{"init", "-h"}, "Usage: skewtest init ", []string{"kind", "path", "product", "repo", "transport"}),
		Entry("compat", []string{"compat", "-h"}, "Usage: skewtest compat ", []string{"cache-dir", "prove", "repo", "report-dir", "runner"}),
		Entry("tap", []string{"tap", "-h"}, "Usage: skewtest tap ", []string{"contract", "for", "framing", "header-length", "label", "length-includes-header", "length-offset", "listen", "path", "record", "text", "upstream"}),
		Entry("fuzz", []string{"fuzz", "-h"}, "Usage: skewtest fuzz ", []string{"batch", "budget", "cases", "client", "corpus", "exclude", "generator", "host", "pack", "shrink-tries"}),
		Entry("explore", []string{"explore", "-h"}, "Usage: skewtest explore ", []string{"cases", "budget", "drawn-only"}),
		Entry("pins", []string{"pins", "-h"}, "Usage: skewtest pins ", []string{"ignore", "last", "pins", "repo", "window"}),
		Entry("pins lock", []string{"pins", "lock", "-h"}, "Usage: skewtest pins lock ", []string{"ignore", "last", "pins", "repo", "window"}),
		Entry("build", []string{"build", "--help"}, "Usage: skewtest build ", []string{"cache-dir", "ignore", "last", "pins", "repo", "runner", "v", "window"}),
		Entry("cache", []string{"cache", "-h"}, "Usage:\n  skewtest cache ls", nil),
		Entry("cache ls", []string{"cache", "ls", "-h"}, "Usage: skewtest cache ls ", []string{"cache-dir"}),
		Entry("cache prune", []string{"cache", "prune", "-h"}, "Usage: skewtest cache prune ", []string{"all", "cache-dir", "older-than"}),
		Entry("contract", []string{"contract", "-h"}, "Usage:\n  skewtest contract diff ", nil),
		Entry("contract diff", []string{"contract", "diff", "-h"}, "Usage: skewtest contract diff ", []string{"allow", "repo"}),
		Entry("contract check", []string{"contract", "check", "-h"}, "Usage: skewtest contract check ", []string{"allow", "ignore", "last", "pins", "repo", "since", "window"}),
		Entry("contract verify", []string{"contract", "verify", "-h"}, "Usage: skewtest contract verify ", []string{"cache-dir", "repo", "runner", "timeout"}),
		Entry("contract decode", []string{"contract", "decode", "-h"}, "Usage: skewtest contract decode ", []string{"dir", "json", "kind", "path", "repo"}),
		Entry("contract infer", []string{"contract", "infer", "-h"}, "Usage: skewtest contract infer ", []string{"against", "o", "out", "repo"}),
		Entry("merge-reports", []string{"merge-reports", "-h"}, "Usage: skewtest merge-reports ", []string{"report-dir"}),
		Entry("transcript", []string{"transcript", "-h"}, "Usage: skewtest transcript ", []string{"json"}),
		Entry("example", []string{"example", "-h"}, "Usage: skewtest example ", []string{"adopted-at", "source", "subject"}),
		Entry("demo", []string{"demo", "-h"}, "Usage: skewtest demo ", []string{"adopted-at", "cache-dir", "known-bugs", "report-dir", "source", "subject", "v"}),
		Entry("version", []string{"version", "-h"}, "Usage: skewtest version", nil),
		Entry("help after a positional argument", []string{"replay", "saved", "-h"}, "Usage: skewtest replay ", []string{"report-dir"}),
	)

	DescribeTable("an unknown command suggests the nearest, only when it is near, exit 2",
		func(args []string, want string) {
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args, io.Discard, io.Discard)
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(Equal("skewtest: " + want + "\n"))
		},
		Entry("two letters swapped", []string{"repaly"}, `unknown command "repaly"; did you mean "replay"?`),
		Entry("a unique prefix", []string{"merge", "a", "b"}, `unknown command "merge"; did you mean "merge-reports"?`),
		Entry("contract's", []string{"contract", "dif", "a", "b"}, `contract: unknown command "dif"; did you mean "diff"?`),
		Entry("cache's", []string{"cache", "lss"}, `cache: unknown command "lss"; did you mean "ls"?`),
		Entry("driver's", []string{"driver", "chek", "--", "true"}, `driver: unknown command "chek"; did you mean "check"?`),
		Entry("pins'", []string{"pins", "lok", "--repo", "r"}, `pins: unknown command "lok"; did you mean "lock"?`),
		Entry("no suggestion for a far-off name", []string{"frobnicate"}, `unknown command "frobnicate"`),
		Entry("no suggestion for a short name nothing begins with", []string{"ab"}, `unknown command "ab"`),
		Entry("no suggestion for a prefix of two (recheck, record)", []string{"rec"}, `unknown command "rec"`),
		Entry("no suggestion from contract for a far-off name", []string{"contract", "frobnicate"}, `contract: unknown command "frobnicate" (want diff, check, verify, decode, infer or descriptor)`),
	)

	DescribeTable("suggest",
		func(name string, known []string, want string) {
			Expect(suggest(name, known)).To(Equal(want))
		},
		Entry("within 2", "pln", []string{"plan", "run"}, "plan"),
		Entry("case", "Replay", []string{"replay", "repro"}, "replay"),
		Entry("two nearest is no suggestion", "xbc", []string{"abc", "bbc"}, ""),
		Entry("the start of two is no suggestion", "ab", []string{"abc", "abd"}, ""),
		Entry("the start of one", "con", []string{"contract", "compat"}, "contract"),
		Entry("too far", "xyzzy", []string{"replay"}, ""),
		Entry("the known name itself is not asked for", "", []string{"run"}, ""),
	)
})
