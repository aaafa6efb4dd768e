package main

import (
	"fmt"
	"strings"
)

// bashScript is the bash completion script of the commands in tree.
func bashScript(tree []compCommand) string {
	var b strings.Builder
	b.WriteString(`# bash completion for skewtest, made by "skewtest completion bash" from its own flags.
# Load it in this shell:  source <(skewtest completion bash)
# For every new shell:    skewtest completion bash > ~/.local/share/bash-completion/completions/skewtest
# Journeys, client kinds, refs and generators are asked of skewtest itself (skewtest
# __complete), from the subject --repo names on the line, else the current directory's.

`)
	fmt.Fprintf(&b, "__skewtest_commands=%s\n\n", shellQuote(strings.Join(commandNames(tree), " ")))
	b.WriteString("# __skewtest_subcommands prints the subcommands of command $1.\n__skewtest_subcommands() {\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if len(c.Subs) > 0 {
			fmt.Fprintf(&b, "\t%s) echo %s ;;\n", shellQuote(c.Path), shellQuote(strings.Join(c.Subs, " ")))
		}
	}
	b.WriteString("\tesac\n}\n\n# __skewtest_flags prints the flags of command $1 (\"run\", \"contract diff\").\n__skewtest_flags() {\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if len(c.Flags) > 0 {
			var opts []string
			for _, f := range c.Flags {
				opts = append(opts, f.Option())
			}
			fmt.Fprintf(&b, "\t%s) echo %s ;;\n", shellQuote(c.Path), shellQuote(strings.Join(opts, " ")))
		}
	}
	b.WriteString(`	esac
}

# __skewtest_value prints what the value of flag $2 (-repo or --repo) of command $1
# completes to: none, file, dir, "ask WHAT" or "choice WORD...", after "list " for a
# comma-separated list; nothing for a flag that takes no value or that $1 does not have.
__skewtest_value() {
	local flag="${2#-}"
	flag="${flag#-}"
	case "$1 $flag" in
`)
	for _, g := range bySpec(tree) {
		fmt.Fprintf(&b, "\t%s) echo %s ;;\n", casePatterns(g.keys), shellQuote(g.spec))
	}
	b.WriteString("\tesac\n}\n\n# __skewtest_args prints what the arguments of command $1 complete to.\n__skewtest_args() {\n\tcase \"$1\" in\n")
	for _, c := range tree {
		if s := c.Args.Spec(); s != pathFile.Spec() {
			fmt.Fprintf(&b, "\t%s) echo %s ;;\n", shellQuote(c.Path), shellQuote(s))
		}
	}
	b.WriteString(bashFunctions)
	return b.String()
}

// bashFunctions are the script's functions that read the tables above it.
const bashFunctions = `	*) echo file ;;
	esac
}

# __skewtest_repo prints the --repo given on the line, if any.
__skewtest_repo() {
	local i
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		case "${COMP_WORDS[i]}" in
		--repo | -repo)
			if [[ ${COMP_WORDS[i + 1]} == "=" ]]; then
				echo "${COMP_WORDS[i + 2]}"
			else
				echo "${COMP_WORDS[i + 1]}"
			fi
			return
			;;
		--repo=* | -repo=*)
			echo "${COMP_WORDS[i]#*=}"
			return
			;;
		esac
	done
}

# __skewtest_reply adds to COMPREPLY each word after $1 and $2 that begins with $1, after
# the prefix $2, quoted for the shell.
__skewtest_reply() {
	local cur="$1" keep="$2" w
	shift 2
	for w in "$@"; do
		if [[ $w == "$cur"* ]]; then
			COMPREPLY+=("$keep$(printf '%q' "$w")")
		fi
	done
}

# __skewtest_complete completes the value $2 by spec $1 (see __skewtest_value), keeping $3
# before it.
__skewtest_complete() {
	local spec="$1" cur="$2" keep="$3" w
	local -a words
	if [[ $spec == "list "* ]]; then
		spec="${spec#list }"
		if [[ $cur == *,* ]]; then
			keep="$keep${cur%,*},"
			cur="${cur##*,}"
		fi
	fi
	case "$spec" in
	dir | file)
		compopt -o filenames 2>/dev/null
		if [[ $spec == dir ]]; then
			mapfile -t words < <(compgen -d -- "$cur")
		else
			mapfile -t words < <(compgen -f -- "$cur")
		fi
		for w in "${words[@]}"; do
			COMPREPLY+=("$keep$w")
		done
		;;
	"ask "*)
		mapfile -t words < <("${COMP_WORDS[0]}" __complete --repo "$(__skewtest_repo)" "${spec#ask }" 2>/dev/null)
		__skewtest_reply "$cur" "$keep" "${words[@]}"
		;;
	"choice "*)
		read -r -a words <<<"${spec#choice }"
		__skewtest_reply "$cur" "$keep" "${words[@]}"
		;;
	esac
}

_skewtest() {
	local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path subs flag="" keep="" spec
	COMPREPLY=()
	if ((COMP_CWORD > 0)); then
		prev="${COMP_WORDS[COMP_CWORD - 1]}"
	fi
	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			__skewtest_reply "$cur" "" --help --version
		else
			__skewtest_reply "$cur" "" $__skewtest_commands
		fi
		return 0
	fi
	path="${COMP_WORDS[1]}"
	subs="$(__skewtest_subcommands "$path")"
	if [[ -n $subs ]]; then
		if ((COMP_CWORD == 2)) && [[ $cur != -* ]]; then
			__skewtest_reply "$cur" "" $subs
			return 0
		fi
		if [[ " $subs " == *" ${COMP_WORDS[2]} "* ]]; then
			path="$path ${COMP_WORDS[2]}"
		fi
	fi
	# The flag whose value this is: --flag VALUE, or --flag=VALUE ("=" is a word of its own
	# when COMP_WORDBREAKS holds it, as it does by default).
	if [[ $cur == "=" && $prev == -* ]]; then
		flag="$prev"
		cur=""
	elif [[ $prev == "=" ]] && ((COMP_CWORD > 2)); then
		flag="${COMP_WORDS[COMP_CWORD - 2]}"
	elif [[ $cur == -*=* ]]; then
		flag="${cur%%=*}"
		keep="$flag="
		cur="${cur#*=}"
	elif [[ $prev == -* ]]; then
		flag="$prev"
	fi
	if [[ -n $flag ]]; then
		spec="$(__skewtest_value "$path" "$flag")"
		if [[ -n $spec ]]; then
			if [[ $spec != none ]]; then
				__skewtest_complete "$spec" "$cur" "$keep"
			fi
			return 0
		fi
	fi
	spec="$(__skewtest_args "$path")"
	if [[ $cur == -* || $spec == none ]]; then
		__skewtest_reply "$cur" "" $(__skewtest_flags "$path")
		return 0
	fi
	__skewtest_complete "$spec" "$cur" ""
}

complete -F _skewtest skewtest
`

// shellQuote quotes s for a POSIX shell (and zsh), in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// casePatterns joins keys as the alternatives of one case pattern.
func casePatterns(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = shellQuote(k)
	}
	return strings.Join(q, " | ")
}

// commandNames are the names of tree's top-level commands.
func commandNames(tree []compCommand) []string {
	var names []string
	for _, c := range tree {
		if !strings.Contains(c.Path, " ") {
			names = append(names, c.Path)
		}
	}
	return names
}

// specGroup is the flags whose values complete alike: keys "COMMAND FLAG".
type specGroup struct {
	spec string
	keys []string
}

// bySpec groups the value flags of tree by what their values complete to, in the order
// each spec first appears.
func bySpec(tree []compCommand) []specGroup {
	var out []specGroup
	at := map[string]int{}
	for _, c := range tree {
		for _, f := range c.Flags {
			if f.Bool {
				continue
			}
			s := f.Values.Spec()
			i, ok := at[s]
			if !ok {
				i = len(out)
				at[s] = i
				out = append(out, specGroup{spec: s})
			}
			out[i].keys = append(out[i].keys, c.Path+" "+f.Name)
		}
	}
	return out
}
