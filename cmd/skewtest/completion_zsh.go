package main

import (
	"fmt"
	"strings"
)

// zshScript is the zsh completion script of the commands in tree: the tables of the bash
// script, with each flag's help beside it.
func zshScript(tree []compCommand) string {
	var b strings.Builder
	b.WriteString(`#compdef skewtest
# zsh completion for skewtest, made by "skewtest completion zsh" from its own flags.
# Load it in this shell (after compinit):  source <(skewtest completion zsh)
# For every new shell:  skewtest completion zsh > "${fpath[1]}/_skewtest"  (then compinit)
# Journeys, client kinds, refs and generators are asked of skewtest itself (skewtest
# __complete), from the subject --repo names on the line, else the current directory's.

`)
	fmt.Fprintf(&b, "__skewtest_commands=(%s)\n\n", strings.Join(commandNames(tree), " "))
	b.WriteString("# __skewtest_subcommands sets reply to the subcommands of command $1.\n__skewtest_subcommands() {\n\treply=()\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if len(c.Subs) > 0 {
			fmt.Fprintf(&b, "\t(%s) reply=(%s) ;;\n", shellQuote(c.Path), strings.Join(c.Subs, " "))
		}
	}
	b.WriteString("\tesac\n}\n\n# __skewtest_flags sets reply to the flags of command $1, each as FLAG:HELP.\n__skewtest_flags() {\n\treply=()\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if len(c.Flags) > 0 {
			var opts []string
			for _, f := range c.Flags {
				opts = append(opts, shellQuote(f.Option()+":"+strings.ReplaceAll(f.About, ":", `\:`)))
			}
			fmt.Fprintf(&b, "\t(%s) reply=(\n\t\t%s\n\t) ;;\n", shellQuote(c.Path), strings.Join(opts, "\n\t\t"))
		}
	}
	b.WriteString(`	esac
}

# __skewtest_value sets REPLY to what the value of flag $2 (-repo or --repo) of command $1
# completes to: none, file, dir, "ask WHAT" or "choice WORD...", after "list " for a
# comma-separated list; empty for a flag that takes no value or that $1 does not have.
__skewtest_value() {
	local flag="${2#-}"
	flag="${flag#-}"
	REPLY=""
	case "$1 $flag" in
`)
	for _, g := range bySpec(tree) {
		fmt.Fprintf(&b, "\t(%s) REPLY=%s ;;\n", casePatterns(g.keys), shellQuote(g.spec))
	}
	b.WriteString("\tesac\n}\n\n# __skewtest_args sets REPLY to what the arguments of command $1 complete to.\n__skewtest_args() {\n\tREPLY=file\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if s := c.Args.Spec(); s != pathFile.Spec() {
			fmt.Fprintf(&b, "\t(%s) REPLY=%s ;;\n", shellQuote(c.Path), shellQuote(s))
		}
	}
	b.WriteString(zshFunctions)
	return b.String()
}

// zshFunctions are the script's functions that read the tables above it.
const zshFunctions = `	esac
}

# __skewtest_repo sets REPLY to the --repo given on the line, if any.
__skewtest_repo() {
	local i
	REPLY=""
	for ((i = 2; i <= $#words; i++)); do
		case "${words[i]}" in
		(--repo|-repo) REPLY="${(Q)words[i+1]}"; return ;;
		(--repo=*|-repo=*) REPLY="${(Q)${words[i]#*=}}"; return ;;
		esac
	done
}

# __skewtest_complete completes the current word's value by spec $1 (see __skewtest_value).
__skewtest_complete() {
	local spec="$1" REPLY
	local -a items
	if [[ $spec == "list "* ]]; then
		spec="${spec#list }"
		compset -P '*,'
	fi
	case "$spec" in
	(dir) _files -/ ;;
	(file) _files ;;
	("ask "*)
		__skewtest_repo
		items=("${(@f)$("${words[1]}" __complete --repo "$REPLY" "${spec#ask }" 2>/dev/null)}")
		items=(${items:#})
		compadd -a items
		;;
	("choice "*)
		items=(${=${spec#choice }})
		compadd -a items
		;;
	esac
}

_skewtest() {
	local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}" cmdpath flag="" REPLY
	local -a reply opts
	if ((CURRENT == 2)); then
		if [[ $cur == -* ]]; then
			compadd -- --help --version
		else
			compadd -a __skewtest_commands
		fi
		return
	fi
	cmdpath="${words[2]}"
	__skewtest_subcommands "$cmdpath"
	if (($#reply)); then
		if ((CURRENT == 3)) && [[ $cur != -* ]]; then
			compadd -a reply
			return
		fi
		if ((${reply[(Ie)${words[3]}]})); then
			cmdpath="$cmdpath ${words[3]}"
		fi
	fi
	if [[ $cur == -*=* ]]; then
		flag="${cur%%=*}"
		compset -P '*='
	elif [[ $prev == -* ]]; then
		flag="$prev"
	fi
	if [[ -n $flag ]]; then
		__skewtest_value "$cmdpath" "$flag"
		if [[ -n $REPLY ]]; then
			[[ $REPLY == none ]] || __skewtest_complete "$REPLY"
			return
		fi
	fi
	__skewtest_args "$cmdpath"
	if [[ $cur == -* || $REPLY == none ]]; then
		__skewtest_flags "$cmdpath"
		opts=("${reply[@]}")
		_describe -t options 'skewtest flag' opts
		return
	fi
	__skewtest_complete "$REPLY"
}

if [[ "${funcstack[1]}" == _skewtest ]]; then
	_skewtest "$@"
else
	compdef _skewtest skewtest
fi
`
