package fuzz

import (
	"context"
)

// Predicate runs a candidate case and reports whether it still fails the same way (the
// same finding kind on the same pairing). An error means the run itself broke: shrinking
// stops and keeps the smallest case found so far.
type Predicate func(ctx context.Context, c *Case) (bool, error)

// DefaultShrinkTries bounds how many candidates a shrink runs.
const DefaultShrinkTries = 120

// Shrink minimises a failing case: delta debugging over its events (drop halves, then
// quarters … then single events while the case still fails), then each event value's size
// (a binary search toward its smallest allowed number), then its bytes (made plain). It
// returns the smallest failing case found and how many candidates it ran; c itself is not
// changed. tries <= 0 means DefaultShrinkTries.
func Shrink(ctx context.Context, c *Case, fails Predicate, tries int) (*Case, int, error) {
	if tries <= 0 {
		tries = DefaultShrinkTries
	}
	s := &shrinker{fails: fails, budget: tries}
	best := c.Clone()
	best, err := s.events(ctx, best)
	if err != nil {
		return best, s.ran, err
	}
	best, err = s.values(ctx, best)
	return best, s.ran, err
}

type shrinker struct {
	fails  Predicate
	budget int
	ran    int
}

// try runs a candidate within the budget; false when the budget is spent.
func (s *shrinker) try(ctx context.Context, c *Case) (bool, error) {
	if s.ran >= s.budget || ctx.Err() != nil {
		return false, ctx.Err()
	}
	s.ran++
	return s.fails(ctx, c)
}

// events is ddmin over the event list, removing complements of n chunks.
func (s *shrinker) events(ctx context.Context, best *Case) (*Case, error) {
	n := 2
	for len(best.Events) >= 1 {
		if n > len(best.Events) {
			n = len(best.Events)
		}
		reduced := false
		for i := 0; i < n; i++ {
			lo, hi := i*len(best.Events)/n, (i+1)*len(best.Events)/n
			cand := best.Clone()
			cand.Events = append(append([]*Instance{}, best.Events[:lo]...), best.Events[hi:]...)
			if len(cand.Events) == len(best.Events) {
				continue
			}
			ok, err := s.try(ctx, cand)
			if err != nil {
				return best, err
			}
			if ok {
				best, reduced = cand, true
				n = max(n-1, 2)
				break
			}
		}
		if s.ran >= s.budget {
			return best, nil
		}
		if !reduced {
			if n >= len(best.Events) {
				return best, nil
			}
			n = min(2*n, len(best.Events))
		}
	}
	return best, nil
}

// values shrinks each event value's number toward its target, then makes its bytes plain.
func (s *shrinker) values(ctx context.Context, best *Case) (*Case, error) {
	for ei := range best.Events {
		for vi := range best.Events[ei].Values {
			v := best.Events[ei].Values[vi]
			switch v.Call.Name {
			case "fresh", "tail", "one":
				continue
			}
			// Binary search for the smallest N (toward the target) that still fails.
			target, cur := v.shrinkTarget(), v.N
			lo, hi := target, cur
			if cur < target {
				lo, hi = cur, target // shrink upward toward the target: search the other way
			}
			for lo != hi && s.ran < s.budget {
				var mid int
				if cur >= target {
					mid = lo + (hi-lo)/2
				} else {
					mid = hi - (hi-lo)/2
				}
				cand := best.Clone()
				cand.Events[ei].Values[vi].N = mid
				ok, err := s.try(ctx, cand)
				if err != nil {
					return best, err
				}
				switch {
				case ok:
					best = cand
					if cur >= target {
						hi = mid
					} else {
						lo = mid
					}
				case cur >= target:
					lo = mid + 1
				default:
					hi = mid - 1
				}
			}
			if v.Call.gen.text && !best.Events[ei].Values[vi].Plain && s.ran < s.budget {
				cand := best.Clone()
				cand.Events[ei].Values[vi].Plain = true
				ok, err := s.try(ctx, cand)
				if err != nil {
					return best, err
				}
				if ok {
					best = cand
				}
			}
		}
	}
	return best, nil
}
