package bisect

import "github.com/skewtest/skewtest/results"

// search finds the first bad position among idx (positions on the line, in order), the
// first known good and the last known bad. It tests the middle position first; a position
// that cannot be judged (skipped or flaky) is set aside, as git bisect skip does, and the
// untested position nearest the middle is tried instead (the earlier one on a tie). It
// returns the last good and first bad positions it found, and the positions between them
// that could not be judged: when there are any, the first bad is one of them or the one
// returned. test's errors stop the search.
func search(idx []int, test func(pos int) (string, error)) (lastGood, firstBad int, unjudged []int, err error) {
	lo, hi := 0, len(idx)-1 // indexes into idx: idx[lo] good, idx[hi] bad
	set := map[int]bool{}   // indexes into idx set aside
	for {
		m, ok := pick(lo, hi, set)
		if !ok {
			break
		}
		v, err := test(idx[m])
		if err != nil {
			return 0, 0, nil, err
		}
		switch v {
		case results.VerdictGood:
			lo = m
		case results.VerdictBad:
			hi = m
		default:
			set[m] = true
		}
	}
	for k := lo + 1; k < hi; k++ {
		unjudged = append(unjudged, idx[k])
	}
	return idx[lo], idx[hi], unjudged, nil
}

// pick is the index strictly between lo and hi to test next: the middle, or the one nearest
// it not set aside (the earlier on a tie); false when none is left.
func pick(lo, hi int, set map[int]bool) (int, bool) {
	mid := lo + (hi-lo)/2
	for d := 0; mid-d > lo || mid+d < hi; d++ {
		for _, k := range []int{mid - d, mid + d} {
			if k > lo && k < hi && !set[k] {
				return k, true
			}
		}
	}
	return 0, false
}
