package usage

import "strings"

// Nearest is the one of names closest to name by edit distance, case aside, when it is close
// enough to be a typo of it (a third of its letters, plus one, at most: a swap of two
// letters counts two); "" otherwise. A "did you mean" of a usage error names it.
func Nearest(name string, names []string) string {
	best, bestD := "", len(name)/3+2
	for _, n := range names {
		if d := Distance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
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
