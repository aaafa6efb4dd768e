package main

import (
	"strings"

	"github.com/skewtest/skewtest/internal/declare/usage"
)

// suggest is the one of known that name is most likely a typo of: the one known name that
// name begins ("merge" for merge-reports), else the nearest by edit distance when that is 2
// or less (and less than name's length: "ab" is no typo of "tap"); "" when there is none,
// when name begins several ("rec": recheck or record?) or when two are nearest.
func suggest(name string, known []string) string {
	name = strings.ToLower(name)
	if name == "" {
		return ""
	}
	var prefixed []string
	for _, k := range known {
		if strings.HasPrefix(k, name) {
			prefixed = append(prefixed, k)
		}
	}
	switch len(prefixed) {
	case 0:
	case 1:
		return prefixed[0]
	default:
		return ""
	}
	best, bestD, ties := "", min(3, len(name)), 0
	for _, k := range known {
		switch d := usage.Distance(name, k); {
		case d < bestD:
			best, bestD, ties = k, d, 1
		case d == bestD && best != "":
			ties++
		}
	}
	if ties != 1 {
		return ""
	}
	return best
}

// didYouMean is the usage error for a command name that is none of known when one of them is
// near (suggest), and nil when none is: the caller then says what it wants instead. where,
// when not empty, is the command name was given to ("contract").
func didYouMean(where, name string, known []string) error {
	s := suggest(name, known)
	if s == "" {
		return nil
	}
	if where != "" {
		where += ": "
	}
	return usagef("%sunknown command %q; did you mean %q?", where, name, s)
}
