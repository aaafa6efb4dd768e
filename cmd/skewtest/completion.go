package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// The completion scripts (skewtest completion bash|zsh|fish) are made from the commands'
// own flag sets, read by asking each command for its help (flagsOf): a new command, or a new
// flag of one, is completed with no more work. What a flag's value completes to is its
// kind's (flagValues, else its type: numbers and durations complete to nothing, anything
// else to a path); lists a subject holds are asked of the binary itself when completing
// (skewtest __complete, complete.go).

// cmdCompletion prints the completion script of a shell.
func cmdCompletion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", stderr, "completion bash|zsh|fish\n\n"+
		"Prints a script that completes skewtest's commands, their flags and the flags' values\n"+
		"(journeys, client kinds and refs of the subject --repo names, else of the current\n"+
		"directory). docs/reference.md, Shell completions, says how to load it.")
	pos, err := parse(fs, args, exactly(1))
	if err != nil {
		return err
	}
	script, ok := completionScripts()[pos[0]]
	if !ok {
		return usagef("completion: unknown shell %q (want %s)", pos[0], strings.Join(shells(), ", "))
	}
	fmt.Fprint(stdout, script(completionTree(ctx)))
	return nil
}

// completionScripts are the script writers, by shell.
func completionScripts() map[string]func([]compCommand) string {
	return map[string]func([]compCommand) string{"bash": bashScript, "zsh": zshScript, "fish": fishScript}
}

// shells are the shells completion writes a script for.
func shells() []string { return slices.Sorted(maps.Keys(completionScripts())) }

// compCommand is a command as a completion script knows it.
type compCommand struct {
	Path  string   // its words after skewtest: "run", "contract diff"
	Subs  []string // the subcommands it takes
	Flags []compFlag
	Args  completer // its positional arguments
}

// compFlag is a flag of a command.
type compFlag struct {
	Name   string
	Bool   bool
	About  string // its help, cut to a line
	Values completer
}

// Option is the flag as the usage text writes it: -v, -j, --repo.
func (f compFlag) Option() string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// completer says what a value completes to: a fixed list (Choices), a list the binary gives
// when asked (Ask: skewtest __complete ASK), a path (Path: file or dir), or nothing.
type completer struct {
	Choices []string
	Ask     string
	Path    string
	List    bool // a comma-separated list: each item completes
}

// Spec is the completer in a word or few, as the scripts read it: none, file, dir,
// ask refs, choice default full; a list's starts with "list ".
func (c completer) Spec() string {
	var s string
	switch {
	case len(c.Choices) > 0:
		s = "choice " + strings.Join(c.Choices, " ")
	case c.Ask != "":
		s = "ask " + c.Ask
	case c.Path != "":
		s = c.Path
	default:
		return "none"
	}
	if c.List {
		s = "list " + s
	}
	return s
}

var (
	pathFile = completer{Path: "file"}
	pathDir  = completer{Path: "dir"}
	noValue  = completer{}
)

// flagValues are the flags whose values complete to something other than their type says
// (flagValue), by name, or by "COMMAND --NAME" where one command's flag differs.
func flagValues() map[string]completer {
	refs := completer{Ask: askRefs}
	return map[string]completer{
		"repo": pathDir, "report-dir": pathDir, "cache-dir": pathDir, "corpus": pathDir,
		"source": pathDir, "log-dir": pathDir, "out": pathDir, "record": pathDir,
		"driver check --dir": pathDir,
		"journey":            {Ask: askJourneys},
		"kind":               {Ask: askKinds},
		"generator":          {Ask: askGenerators},
		"pins":               refs, "host": refs, "client": refs, "good": refs, "bad": refs,
		"since": refs, "against": refs, "build": refs, "as": refs,
		"contract infer --against": pathFile,
		"matrix":                   {Choices: []string{string(harness.MatrixDefault), string(harness.MatrixFull)}},
		"runner":                   {Choices: []string{runnerLocal, runnerContainer}},
		"side":                     {Choices: []string{contract.RoleHost, contract.RoleClient}},
		"role":                     {Choices: []string{contract.RoleHost, contract.RoleClient}},
		"transport":                {Choices: builds.Transports},
		"framing":                  {Choices: framing.Names},
		"subject":                  {Choices: example.Subjects()},
		"contract decode --dir":    {Choices: []string{contract.HostToClient, contract.ClientToHost}},
		// Free text: names, patterns, addresses, URL paths, JSON pointers.
		"shard": noValue, "ignore": noValue, "exclude": noValue, "prove": noValue, "product": noValue,
		"path": noValue, "label": noValue, "listen": noValue, "upstream": noValue,
		"adopted-at": noValue, "older-than": noValue, "init --kind": noValue, "module": noValue,
	}
}

// flagValue is what the value of flag f of command path completes to.
func flagValue(path string, f *flag.Flag) completer {
	table := flagValues()
	c, ok := table[path+" --"+f.Name]
	if !ok {
		c, ok = table[f.Name]
	}
	if !ok {
		c = valueOfType(f.Value)
	}
	if _, list := f.Value.(listFlag); list && c.Spec() != "none" {
		c.List = true
	}
	return c
}

// valueOfType is what a value of v's type completes to: numbers, durations, and the
// command's own flag types of either, complete to nothing; anything else to a file.
func valueOfType(v flag.Value) completer {
	switch v.(type) {
	case countFlag, positiveDuration, offFlag, envFlag, allowFlag:
		return noValue
	}
	if g, ok := v.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64, float64, time.Duration:
			return noValue
		}
	}
	return pathFile
}

// argValues is what the positional arguments of a command that takes want of them complete
// to.
func argValues(path string, want nargs) completer {
	switch {
	case path == "completion":
		return completer{Choices: shells()}
	case want.max == 0:
		return noValue
	}
	return pathFile
}

// completionTree is every command that is not hidden, each followed by its subcommands,
// with their flags.
func completionTree(ctx context.Context) []compCommand {
	cmds := commands()
	var out []compCommand
	for _, name := range visibleCommands() {
		out = append(out, describeCommand(ctx, name, cmds[name], nil))
		for _, sub := range subcommands(name) {
			out = append(out, describeCommand(ctx, name+" "+sub, cmds[name], []string{sub}))
		}
	}
	return out
}

func describeCommand(ctx context.Context, path string, f command, args []string) compCommand {
	c := compCommand{Path: path, Subs: subcommands(path), Args: pathFile}
	fs, want := flagsOf(ctx, f, args)
	if fs == nil {
		return c
	}
	c.Args = argValues(path, want)
	fs.VisitAll(func(fl *flag.Flag) {
		cf := compFlag{Name: fl.Name, About: about(fl)}
		if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			cf.Bool = true
		} else {
			cf.Values = flagValue(path, fl)
		}
		c.Flags = append(c.Flags, cf)
	})
	return c
}

// flagsOf is the flag set command f makes when given args (a subcommand, or none), and the
// positional arguments it takes; nil when it makes none (a command of subcommands). It asks
// the command for its help: every command parses its flags first, and -h returns once it
// has printed them. The context is cancelled, so a command that did anything before
// parsing would stop.
func flagsOf(ctx context.Context, f command, args []string) (*flag.FlagSet, nargs) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	sets := &flagSets{}
	_ = f(ctx, append(slices.Clone(args), "-h"), io.Discard, sets)
	if len(sets.made) == 0 {
		return nil, nargs{}
	}
	return sets.made[len(sets.made)-1], sets.want
}

// about is a flag's help cut to its first clause, at most a line: what zsh and fish show
// beside it.
func about(f *flag.Flag) string {
	_, s := flag.UnquoteUsage(f)
	s = strings.Join(strings.Fields(s), " ")
	for _, stop := range []string{" (", "; ", ": "} {
		if i := strings.Index(s, stop); i > 0 {
			s = s[:i]
		}
	}
	if r := []rune(s); len(r) > 60 {
		s = strings.TrimSpace(string(r[:59])) + "…"
	}
	return s
}
