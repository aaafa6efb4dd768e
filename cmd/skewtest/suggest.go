package main

import "strings"

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
		switch d := editDistance(name, k); {
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

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
