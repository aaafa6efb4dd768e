package main

import (
	"fmt"
	"strings"
)

// fishScript is the fish completion script of the commands in tree: a complete line per
// command, subcommand and flag.
func fishScript(tree []compCommand) string {
	var b strings.Builder
	b.WriteString(`# fish completion for skewtest, made by "skewtest completion fish" from its own flags.
# Load it in this shell:  skewtest completion fish | source
# For every new shell:    skewtest completion fish > ~/.config/fish/completions/skewtest.fish
# Journeys, client kinds, refs and generators are asked of skewtest itself (skewtest
# __complete), from the subject --repo names on the line, else the current directory's.

complete -c skewtest -e
complete -c skewtest -f

# __skewtest_subcommands prints the subcommands of command $argv[1], one a line.
function __skewtest_subcommands
    switch $argv[1]
`)
	for _, c := range tree {
		if len(c.Subs) > 0 {
			fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", fishQuote(c.Path), strings.Join(c.Subs, " "))
		}
	}
	b.WriteString("    end\nend\n")
	b.WriteString(fishFunctions)
	fmt.Fprintf(&b, "\ncomplete -c skewtest -n __skewtest_needs_command -a %s\n", fishQuote(strings.Join(commandNames(tree), " ")))
	b.WriteString("complete -c skewtest -n __skewtest_needs_command -l help -d 'print the commands'\n")
	b.WriteString("complete -c skewtest -n __skewtest_needs_command -l version -d 'print the version'\n")
	for _, c := range tree {
		at := fishQuote("__skewtest_at " + fishWord(c.Path))
		fmt.Fprintf(&b, "\n# skewtest %s\n", c.Path)
		if len(c.Subs) > 0 {
			fmt.Fprintf(&b, "complete -c skewtest -n %s -a %s\n", fishQuote("__skewtest_needs_sub "+fishWord(c.Path)), fishQuote(strings.Join(c.Subs, " ")))
		} else if args := fishArgs(c.Args); args != "" {
			fmt.Fprintf(&b, "complete -c skewtest -n %s %s\n", at, args)
		}
		for _, f := range c.Flags {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			line := fmt.Sprintf("complete -c skewtest -n %s %s -d %s", at, opt, fishQuote(f.About))
			if !f.Bool {
				line += " " + fishValues(f.Values)
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// fishValues are the options of a complete line that complete a value as c says.
func fishValues(c completer) string {
	switch {
	case len(c.Choices) > 0:
		q := make([]string, len(c.Choices))
		for i, ch := range c.Choices {
			q[i] = fishWord(ch)
		}
		return "-x -a " + fishQuote(strings.Join(q, " "))
	case c.Ask != "" && c.List:
		return "-x -a " + fishQuote("(__skewtest_ask "+c.Ask+" list)")
	case c.Ask != "":
		return "-x -a " + fishQuote("(__skewtest_ask "+c.Ask+")")
	case c.Path == "dir":
		return "-x -a '(__fish_complete_directories (commandline -ct))'"
	case c.Path == "file":
		return "-r -F"
	}
	return "-x"
}

// fishArgs are the options of a complete line that complete positional arguments as c
// says; "" for none.
func fishArgs(c completer) string {
	switch v := fishValues(c); {
	case c.Spec() == noValue.Spec():
		return ""
	case c.Path == "file":
		return "-F"
	default:
		return strings.TrimPrefix(v, "-x ")
	}
}

// fishWord is s as one word of a fish command line: as it is when it holds nothing fish
// reads specially, else in double quotes.
func fishWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == "" {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`).Replace(s) + `"`
}

// fishQuote quotes s for fish, in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishFunctions are the script's functions that read the command line.
const fishFunctions = `
# __skewtest_path prints the command being completed: run, contract diff…
function __skewtest_path
    set -l words (commandline -opc)
    test (count $words) -ge 2; or return 1
    set -l path $words[2]
    if test (count $words) -ge 3; and contains -- $words[3] (__skewtest_subcommands $path)
        set path "$path $words[3]"
    end
    echo $path
end

# __skewtest_at says whether the command being completed is $argv[1].
function __skewtest_at
    set -l path (__skewtest_path)
    test "$path" = "$argv[1]"
end

function __skewtest_needs_command
    test (count (commandline -opc)) -eq 1
end

# __skewtest_needs_sub says whether the line is command $argv[1], its subcommand next.
function __skewtest_needs_sub
    set -l words (commandline -opc)
    test (count $words) -eq 2; and test "$words[2]" = "$argv[1]"
end

# __skewtest_ask prints what skewtest __complete lists for $argv[1], of the subject --repo
# names on the line; after the items already typed when $argv[2] is list.
function __skewtest_ask
    set -l words (commandline -opc)
    set -l repo
    for i in (seq 2 (count $words))
        switch $words[$i]
            case --repo -repo
                set -l j (math $i + 1)
                if test $j -le (count $words)
                    set repo $words[$j]
                end
            case '--repo=*' '-repo=*'
                set repo (string replace -r '^[^=]*=' '' -- $words[$i])
        end
    end
    set -l head
    if test "$argv[2]" = list
        set head (commandline -ct | string replace -r '^-[^=]*=' '' | string match -r '^.*,')
    end
    for name in ($words[1] __complete --repo "$repo" $argv[1] 2>/dev/null)
        echo "$head$name"
    end
end
`
