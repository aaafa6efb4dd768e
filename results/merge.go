package results

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Errors of Merge: the shards given do not make up one run.
var (
	// ErrSeedConflict: the shards were planned from different seeds.
	ErrSeedConflict = errors.New("shards disagree on the seed")
	// ErrBuildConflict: one build label stands for two revisions.
	ErrBuildConflict = errors.New("shards disagree on a build's revision")
	// ErrShardConflict: the shards overlap (a pairing or shard given twice), are of
	// different splits, or one is missing.
	ErrShardConflict = errors.New("shards do not make up one plan")
	// ErrNoIndex: a pairing without its plan position (Pairing.Index) cannot be ordered.
	ErrNoIndex = errors.New("pairing without a plan index")
)

// Merge joins the runs of the shards of one plan (skewtest run --shard k/n) into the run a
// single machine would have made, timings aside: pairings in plan order (Pairing.Index),
// the skewtest version of the shards (each distinct one, comma-separated, when they differ),
// builds merged by label (a label with two revisions is an error), skipped pairings
// listed once, one seed (else an error), no shard. A build's status is the worst any shard saw (error, then built, then
// cached). Started is the earliest, Finished the latest. Pairings are shared with the
// shards, not copied.
//
// Every shard k of n must be present once; runs without a shard field are accepted as
// they are (their pairings must still not overlap).
func Merge(shards ...*Run) (*Run, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shard given", ErrShardConflict)
	}
	first := shards[0]
	out := &Run{SchemaVersion: SchemaVersion, Tool: first.Tool, Seed: first.Seed, Repo: first.Repo,
		Started: first.Started, Finished: first.Finished, Pairings: []*Pairing{}}
	if err := checkShards(shards); err != nil {
		return nil, err
	}
	seen := map[int]string{}
	for _, s := range shards {
		name := s.Shard
		if name == "" {
			name = "a run without --shard"
		}
		if s.Seed != out.Seed {
			return nil, fmt.Errorf("%w: shard %s has seed %d, shard %s has %d", ErrSeedConflict, shardName(first), first.Seed, name, s.Seed)
		}
		if out.Tool == "" {
			out.Tool = s.Tool
		}
		out.ToolVersion = joinDistinct(out.ToolVersion, s.ToolVersion)
		if out.Repo == "" {
			out.Repo = s.Repo
		}
		if !s.Started.IsZero() && (out.Started.IsZero() || s.Started.Before(out.Started)) {
			out.Started = s.Started
		}
		if s.Finished.After(out.Finished) {
			out.Finished = s.Finished
		}
		out.Interrupted = out.Interrupted || s.Interrupted
		out.NotRun += s.NotRun
		var err error
		if out.Builds, err = mergeBuilds(out.Builds, s.Builds, name); err != nil {
			return nil, err
		}
		// Skips are the plan's, so each shard may list all of them: keep each once.
		for _, sk := range s.Skipped {
			if !slices.Contains(out.Skipped, sk) {
				out.Skipped = append(out.Skipped, sk)
			}
		}
		// The contract check is the whole run's: every shard makes the same one.
		for _, f := range s.Findings {
			if !slices.ContainsFunc(out.Findings, func(g Finding) bool { return g.Message == f.Message && g.Detail == f.Detail }) {
				out.Findings = append(out.Findings, f)
			}
		}
		// So is the fixture tier: keep the first shard's.
		if out.Fixtures == nil {
			out.Fixtures = s.Fixtures
		}
		for _, p := range s.Pairings {
			if p.Index <= 0 {
				return nil, fmt.Errorf("%w: %s in %s (results.json written before skewtest recorded plan positions?)", ErrNoIndex, p.Label(), name)
			}
			key := p.Index
			if p.Future { // a pairing's future-peer run shares its index
				key = -key
			}
			if other, dup := seen[key]; dup {
				return nil, fmt.Errorf("%w: pairing %d (%s) is in %s and in %s", ErrShardConflict, p.Index, p.Label(), other, name)
			}
			seen[key] = name
			out.Pairings = append(out.Pairings, p)
		}
	}
	var covs []*Coverage
	for _, s := range shards {
		covs = append(covs, s.Coverage)
	}
	out.Coverage = MergeCoverage(covs...)
	// Plan order, then the future-peer runs in plan order (as Execute records them).
	slices.SortStableFunc(out.Pairings, func(a, b *Pairing) int {
		if a.Future != b.Future {
			if a.Future {
				return 1
			}
			return -1
		}
		return a.Index - b.Index
	})
	return out, nil
}

func shardName(r *Run) string {
	if r.Shard == "" {
		return "(whole plan)"
	}
	return r.Shard
}

// checkShards verifies that shards marked k/n are all of one n, each k once, none missing.
func checkShards(shards []*Run) error {
	total, have := 0, map[int]bool{}
	for _, s := range shards {
		if s.Shard == "" {
			continue
		}
		k, n, err := ParseShard(s.Shard)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrShardConflict, err)
		}
		if total != 0 && n != total {
			return fmt.Errorf("%w: shard %s is of a split in %d, another of a split in %d", ErrShardConflict, s.Shard, n, total)
		}
		total = n
		if have[k] {
			return fmt.Errorf("%w: shard %s given twice", ErrShardConflict, s.Shard)
		}
		have[k] = true
	}
	var missing []string
	for k := 1; k <= total; k++ {
		if !have[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, total))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: shard %s missing", ErrShardConflict, strings.Join(missing, ", "))
	}
	return nil
}

// ParseShard reads "k/n" (1 ≤ k ≤ n).
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || k < 1 || n < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q: want k/n with 1 ≤ k ≤ n", s)
	}
	return k, n, nil
}

// buildRank orders build statuses: the merged status is the highest any shard saw.
var buildRank = map[string]int{"cached": 1, "built": 2, "ok": 2, "error": 3}

// mergeBuilds adds add's builds to have by label, keeping the order of both lists: a
// build new to have goes right after the build that precedes it in add.
func mergeBuilds(have, add []Build, shard string) ([]Build, error) {
	at := -1
	for _, b := range add {
		i := slices.IndexFunc(have, func(h Build) bool { return h.Label == b.Label })
		if i < 0 {
			at++
			have = slices.Insert(have, at, b)
			continue
		}
		h := &have[i]
		if h.Revision != b.Revision {
			return nil, fmt.Errorf("%w: build %s is %s in one shard and %s in %s", ErrBuildConflict, b.Label, h.Revision, b.Revision, shard)
		}
		if buildRank[b.Status] > buildRank[h.Status] {
			*h = b
		}
		at = i
	}
	return have, nil
}

// joinDistinct adds v to the comma-separated list, unless it is empty or listed already.
func joinDistinct(list, v string) string {
	switch {
	case v == "" || slices.Contains(strings.Split(list, ", "), v):
		return list
	case list == "":
		return v
	}
	return list + ", " + v
}
