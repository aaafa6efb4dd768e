// Package shell writes command lines for a POSIX shell: every command skewtest prints for
// a person to paste (a repro line, a holder's command line) is made of words quoted here,
// so that pasting it runs exactly those words and nothing else, whatever a ref, a label or
// a path holds ($(…), backticks, #, quotes, newlines).
package shell

import "strings"

// Quote returns s as one shell word: unchanged when it is not empty, every byte is a letter,
// a digit or one of - _ . / : = , + @ % and it does not begin with = (which zsh expands);
// else in single quotes, where nothing is special but the quote itself: a quote in s ends
// the quoted part, is written escaped (\') and a new quoted part begins.
func Quote(s string) string {
	if plain(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plain reports whether s is a word no shell splits, expands or globs.
func plain(s string) bool {
	if s == "" || s[0] == '=' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(safe, s[i]) < 0 {
			return false
		}
	}
	return true
}

// Join quotes each word of argv and joins them with spaces.
func Join(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = Quote(w)
	}
	return strings.Join(words, " ")
}

// safe are the bytes a plain word may hold.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%"
