package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// completionScript is what skewtest completion prints for shell.
func completionScript(shell string) string {
	GinkgoHelper()
	var out bytes.Buffer
	Expect(dispatch(context.Background(), []string{"completion", shell}, &out, io.Discard)).To(Succeed())
	return out.String()
}

// commandPaths are every command that is not hidden and every subcommand: "run",
// "contract diff".
func commandPaths() []string {
	var paths []string
	for _, name := range visibleCommands() {
		paths = append(paths, name)
		for _, sub := range subcommands(name) {
			paths = append(paths, name+" "+sub)
		}
	}
	return paths
}

// helpFlags are the flags skewtest PATH -h lists, as the usage text writes them.
func helpFlags(path string) []string {
	GinkgoHelper()
	var out bytes.Buffer
	err := dispatch(context.Background(), append(strings.Fields(path), "-h"), &out, &out)
	Expect(exitCode(err, io.Discard)).To(Equal(exitOK), "%s -h: %s", path, out.String())
	var opts []string
	for _, m := range regexp.MustCompile(`(?m)^  -(\S+)`).FindAllStringSubmatch(out.String(), -1) {
		opts = append(opts, compFlag{Name: m[1]}.Option())
	}
	return opts
}

// section is the part of script from the line that opens function fn to the next line
// that is only "}".
func section(script, fn string) string {
	GinkgoHelper()
	i := strings.Index(script, "\n"+fn+"() {\n")
	Expect(i).NotTo(BeNumerically("<", 0), "the script defines %s", fn)
	rest := script[i+1:]
	return rest[:strings.Index(rest, "\n}\n")]
}

// scriptReader reads back from one shell's script what it completes: the commands, a
// command's subcommands, and a command's flags.
type scriptReader struct {
	commands func(script string) []string
	subs     func(script, name string) []string
	flags    func(script, path string) []string
}

func firstGroup(re, s string) []string {
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	return strings.Fields(m[1])
}

var readers = map[string]scriptReader{
	"bash": {
		commands: func(s string) []string { return firstGroup(`__skewtest_commands='([^']*)'`, s) },
		subs: func(s, name string) []string {
			return firstGroup(`(?m)^\t'`+regexp.QuoteMeta(name)+`'\) echo '([^']*)' ;;$`, section(s, "__skewtest_subcommands"))
		},
		flags: func(s, path string) []string {
			return firstGroup(`(?m)^\t'`+regexp.QuoteMeta(path)+`'\) echo '([^']*)' ;;$`, section(s, "__skewtest_flags"))
		},
	},
	"zsh": {
		commands: func(s string) []string { return firstGroup(`__skewtest_commands=\(([^)]*)\)`, s) },
		subs: func(s, name string) []string {
			return firstGroup(`(?m)^\t\('`+regexp.QuoteMeta(name)+`'\) reply=\(([^)]*)\) ;;$`, section(s, "__skewtest_subcommands"))
		},
		flags: func(s, path string) []string {
			m := regexp.MustCompile(`(?s)\t\('` + regexp.QuoteMeta(path) + `'\) reply=\(\n(.*?)\n\t\) ;;`).FindStringSubmatch(section(s, "__skewtest_flags"))
			if m == nil {
				return nil
			}
			var opts []string
			for _, l := range strings.Split(m[1], "\n") {
				opt, _, _ := strings.Cut(strings.TrimLeft(l, "\t'"), ":")
				opts = append(opts, opt)
			}
			return opts
		},
	},
	"fish": {
		commands: func(s string) []string { return firstGroup(`-n __skewtest_needs_command -a '([^']*)'`, s) },
		subs: func(s, name string) []string {
			return firstGroup(`-n '__skewtest_needs_sub `+regexp.QuoteMeta(fishWord(name))+`' -a '([^']*)'`, s)
		},
		flags: func(s, path string) []string {
			var opts []string
			re := regexp.MustCompile(`(?m)^complete -c skewtest -n '__skewtest_at ` + regexp.QuoteMeta(fishWord(path)) + `' -(l|s) (\S+)`)
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				opts = append(opts, map[string]string{"l": "--", "s": "-"}[m[1]]+m[2])
			}
			return opts
		},
	},
}

var _ = Describe("completion", func() {
	It("writes a script for each shell it names, and refuses another", func() {
		Expect(shells()).To(Equal([]string{"bash", "fish", "zsh"}))
		for _, sh := range shells() {
			Expect(completionScript(sh)).To(ContainSubstring("skewtest completion " + sh))
		}
		var stderr bytes.Buffer
		err := dispatch(context.Background(), []string{"completion", "powershell"}, io.Discard, io.Discard)
		Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
		Expect(stderr.String()).To(ContainSubstring(`completion: unknown shell "powershell" (want bash, fish, zsh)`))
	})

	It("lists in the usage text every command it completes, and not the hidden one", func() {
		var documented []string
		for _, m := range regexp.MustCompile(`(?m)^  skewtest (\S+)`).FindAllStringSubmatch(usageText, -1) {
			if !slices.Contains(documented, m[1]) {
				documented = append(documented, m[1])
			}
		}
		slices.Sort(documented)
		Expect(documented).To(Equal(visibleCommands()))
		Expect(visibleCommands()).NotTo(ContainElement(completeCommand))
		Expect(commands()).To(HaveKey(completeCommand), "control: the hidden command is a command")
		Expect(usageText).NotTo(ContainSubstring(completeCommand))
	})

	It("takes each command's subcommands from the table its dispatch reads", func() {
		for _, name := range visibleCommands() {
			for _, sub := range subcommands(name) {
				var out bytes.Buffer
				err := dispatch(context.Background(), []string{name, sub, "-h"}, &out, &out)
				Expect(exitCode(err, io.Discard)).To(Equal(exitOK), "%s %s -h", name, sub)
				Expect(out.String()).To(HavePrefix("Usage: skewtest "+name+" "+sub), "%s %s -h", name, sub)
			}
			if subcommands(name) != nil {
				err := dispatch(context.Background(), []string{name, "bogus-sub"}, io.Discard, io.Discard)
				Expect(exitCode(err, io.Discard)).To(Equal(exitUsage), "control: %s bogus-sub", name)
			}
		}
	})

	DescribeTable("names every command, subcommand and flag in the script",
		func(shell string) {
			script, read := completionScript(shell), readers[shell]
			Expect(read.commands(script)).To(ConsistOf(visibleCommands()))
			for _, name := range visibleCommands() {
				Expect(read.subs(script, name)).To(ConsistOf(subcommands(name)), "the subcommands of %s", name)
			}
			for _, path := range commandPaths() {
				Expect(read.flags(script, path)).To(ConsistOf(helpFlags(path)), "the flags of %s", path)
			}
			// Controls: a flag of another command, and a command that does not exist.
			Expect(read.flags(script, "build")).To(ContainElement("--repo"))
			Expect(read.flags(script, "build")).NotTo(ContainElement("--matrix"))
			Expect(read.commands(script)).NotTo(ContainElement("frobnicate"))
		},
		Entry("bash", "bash"),
		Entry("zsh", "zsh"),
		Entry("fish", "fish"),
	)

	DescribeTable("completes a flag's value by its kind",
		func(path, name, want string) {
			var found *compFlag
			for _, c := range completionTree(context.Background()) {
				if c.Path == path {
					i := slices.IndexFunc(c.Flags, func(f compFlag) bool { return f.Name == name })
					Expect(i).NotTo(BeNumerically("<", 0), "%s has --%s", path, name)
					found = &c.Flags[i]
				}
			}
			Expect(found).NotTo(BeNil(), "a command %q", path)
			if want == "bool" {
				Expect(found.Bool).To(BeTrue())
				return
			}
			Expect(found.Bool).To(BeFalse())
			Expect(found.Values.Spec()).To(Equal(want))
		},
		Entry("a repository: a directory", "run", "repo", "dir"),
		Entry("journeys, a list, from the subject", "run", "journey", "list ask journeys"),
		Entry("one journey (bisect)", "bisect", "journey", "ask journeys"),
		Entry("client kinds", "repro", "kind", "list ask kinds"),
		Entry("refs", "run", "pins", "list ask refs"),
		Entry("one ref", "repro", "host", "ask refs"),
		Entry("a contract file where another command's --against is a ref", "contract infer", "against", "file"),
		Entry("a ref", "bisect", "against", "ask refs"),
		Entry("a fixed list the library checks", "run", "matrix", "choice default full"),
		Entry("directions", "contract decode", "dir", "choice H>C C>H"),
		Entry("a number: nothing", "run", "seed", "none"),
		Entry("a duration: nothing", "run", "timeout", "none"),
		Entry("a switch takes no value", "run", "window", "bool"),
	)

	It("completes the value of a flag no table names by its type: a file, or nothing for a number", func() {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("brand-new", "", "")
		fs.Int("count", 0, "")
		fs.Duration("wait", 0, "")
		Expect(flagValue("run", fs.Lookup("brand-new")).Spec()).To(Equal("file"))
		Expect(flagValue("run", fs.Lookup("count")).Spec()).To(Equal("none"))
		Expect(flagValue("run", fs.Lookup("wait")).Spec()).To(Equal("none"))
	})

	It("offers the shells as completion's argument, and no file where a command takes no argument", func() {
		tree := completionTree(context.Background())
		args := map[string]string{}
		for _, c := range tree {
			args[c.Path] = c.Args.Spec()
		}
		Expect(args).To(HaveKeyWithValue("completion", "choice bash fish zsh"))
		Expect(args).To(HaveKeyWithValue("run", "none"))
		Expect(args).To(HaveKeyWithValue("recheck", "file"), "control: REPORT_DIR")
	})
})
