package matrix

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/results"
)

// Pair is one pairing a run names exactly (Config.Pairings), instead of a planned matrix:
// Host and Client are refs or "worktree", Kind a client kind, Journey a journey as
// --journey names it (a name the subject lists, or a file).
type Pair struct {
	Host, Client, Kind, Journey string
}

// String names the pair as every report names a pairing.
func (p Pair) String() string { return results.PairingLabel(p.Host, p.Kind, p.Client, p.Journey) }

// checkPairs refuses Pairings that cannot be read as one run: a pair missing a field, a pair
// listed twice, or settings that plan a matrix given with them.
func checkPairs(o *Config) error {
	if len(o.Pairings) == 0 {
		return nil
	}
	switch {
	case o.Host != "" || o.Client != "":
		return usage.Errorf("pairings and host/client both name the builds of the run: give one of them")
	case len(o.Kinds) > 0 || len(o.Journeys) > 0:
		return usage.Errorf("pairings name each pairing's kind and journey: narrowing them by kind or journey too is not supported")
	case o.Matrix != string(harness.MatrixDefault):
		return usage.Errorf("pairings name every pairing of the run: they take no matrix (%s)", o.Matrix)
	}
	seen := map[Pair]bool{}
	for i, p := range o.Pairings {
		switch {
		case p.Host == "" || p.Client == "" || p.Kind == "" || p.Journey == "":
			return usage.Errorf("pairing %d (%s): give host, client, kind and journey", i+1, p)
		case seen[p]:
			return usage.Errorf("pairing %s is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}

// resolvePairs adds the builds that Pairings name to out, each distinct ref resolved and
// described once, and maps every ref to its build's index (out.Refs).
func resolvePairs(ctx context.Context, s *subject.Subject, pairs []Pair, out *Sources) error {
	out.Refs = map[string]int{}
	for _, p := range pairs {
		for _, ref := range []string{p.Host, p.Client} {
			if _, ok := out.Refs[ref]; ok {
				continue
			}
			src, err := s.Source(ctx, ref)
			if err != nil {
				return fmt.Errorf("pairing %s: %w", p, err)
			}
			i := slices.Index(out.Srcs, src)
			if i < 0 {
				i = len(out.Srcs)
				out.Srcs = append(out.Srcs, src)
			}
			out.Refs[ref] = i
		}
	}
	return nil
}

// pairJourneys loads the journeys Pairings name, each once, in order of first mention. A
// journey the subject does not have is a usage error naming the first pair that names it.
func pairJourneys(s *subject.Subject, pairs []Pair) ([]*journeys.Journey, map[string]*journeys.Journey, error) {
	var js []*journeys.Journey
	byName := map[string]*journeys.Journey{}
	for _, p := range pairs {
		if _, ok := byName[p.Journey]; ok {
			continue
		}
		j, err := s.Journeys([]string{p.Journey})
		var unknown *journeys.UnknownError
		switch {
		case errors.As(err, &unknown):
			return nil, nil, usage.Errorf("pairing %s: %w", p, err)
		case err != nil:
			return nil, nil, fmt.Errorf("pairing %s: %w", p, err)
		}
		byName[p.Journey] = j[0]
		js = append(js, j[0])
	}
	return js, byName, nil
}

// planPairs makes the pairings Pairings name from the run's builds (bs, indexed by
// src.Refs), in the order given. A kind the journey does not drive, or that the client
// build has no driver of, is a usage error naming the pair. A build that failed has no
// drivers to look at: its pairings stay and become errors, as in a planned matrix.
func planPairs(pairs []Pair, bs []*harness.Build, src *Sources, js map[string]*journeys.Journey) ([]harness.Pairing, error) {
	var out []harness.Pairing
	for _, p := range pairs {
		host, client, j := bs[src.Refs[p.Host]], bs[src.Refs[p.Client]], js[p.Journey]
		if !j.Drives(p.Kind) {
			return nil, usage.Errorf("pairing %s: journey %s drives %s, not %s", p, j.Name, subject.OrNone(j.Kinds), p.Kind)
		}
		if _, ok := client.Clients[p.Kind]; !ok && client.Err == nil {
			return nil, usage.Errorf("pairing %s: build %s has no %s client driver in its %s (it has %s)",
				p, client.Label, p.Kind, builds.ConfigFile, subject.OrNone(harness.KindsOf(client)))
		}
		out = append(out, harness.Pairing{Host: host, Client: client, Kind: p.Kind, Journey: j})
	}
	return out, nil
}
