package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/results"
)

// MemoryDir is the coverage memory's directory in a corpus: every campaign given a corpus
// adds one file to it, and reads the others first (docs/explore.md).
const MemoryDir = "coverage"

// memoryVersion is the memory file's schema version.
const memoryVersion = 1

// memoryFile is one campaign's part of a coverage memory. Each campaign writes a file of its
// own and never rewrites another's, so shards that ran on copies of one corpus merge by
// copying their files into one directory.
type memoryFile struct {
	SchemaVersion int           `json:"schemaVersion"`
	Name          string        `json:"name"`
	Seed          int64         `json:"seed"`
	Started       time.Time     `json:"started"`
	Duration      time.Duration `json:"durationNs"`
	Cases         int           `json:"cases"`
	// Items are the parts the campaign reached, each with how many pairings reached it.
	Items []results.CoverageItem `json:"items"`
	// By counts, per event, the pairings that reached each part (by CoverageItem.Key) in
	// one of the event's steps.
	By map[string]map[string]int `json:"by,omitempty"`
	// Pairs are the event pairs the campaign drew ("generator/a>b", "^" before the first).
	Pairs []string `json:"pairs,omitempty"`

	file string // where it was read from
}

// memory is a coverage memory as read: its campaigns, oldest first, and their sums.
type memory struct {
	files []memoryFile
	seen  map[string]int // part key → pairings that reached it, every campaign together
	by    map[string]map[string]int
	pairs map[string]bool
}

// newMemory returns an empty coverage memory.
func newMemory() *memory {
	return &memory{seen: map[string]int{}, by: map[string]map[string]int{}, pairs: map[string]bool{}}
}

// loadMemory reads every campaign file of a coverage memory directory (none there: an empty
// memory). A file that is not one is a usage error naming it.
func loadMemory(dir string) (*memory, error) {
	m := newMemory()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f memoryFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, usage.Errorf("%s: not a coverage memory file: %w (remove it, or the directory, to start the memory afresh)", p, err)
		}
		if f.SchemaVersion != memoryVersion {
			return nil, usage.Errorf("%s: coverage memory schema version %d; this skewtest reads %d", p, f.SchemaVersion, memoryVersion)
		}
		f.file = p
		m.files = append(m.files, f)
	}
	slices.SortStableFunc(m.files, func(a, b memoryFile) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.file, b.file)
	})
	for _, f := range m.files {
		m.add(f)
	}
	return m, nil
}

// add sums one campaign into the memory.
func (m *memory) add(f memoryFile) {
	for _, it := range f.Items {
		m.seen[it.Key()] += it.Seen
	}
	for e, parts := range f.By {
		if m.by[e] == nil {
			m.by[e] = map[string]int{}
		}
		for k, n := range parts {
			m.by[e][k] += n
		}
	}
	for _, p := range f.Pairs {
		m.pairs[p] = true
	}
}

// history lists the memory's campaigns and then self: what each reached, and how much of
// it no earlier one had.
func (m *memory) history(self memoryFile) []results.CoverageNight {
	ever := map[string]bool{}
	var out []results.CoverageNight
	for _, f := range append(slices.Clip(m.files), self) {
		n := results.CoverageNight{Name: f.Name, Seed: f.Seed, Started: f.Started, Duration: f.Duration, Cases: f.Cases}
		for _, it := range f.Items {
			if it.Seen == 0 {
				continue
			}
			n.Reached++
			if !ever[it.Key()] {
				ever[it.Key()] = true
				n.New++
			}
		}
		n.Ever = len(ever)
		out = append(out, n)
	}
	return out
}

// neverReached lists the parts of cov (a run's coverage: the universe its builds owe) that
// neither the run nor the memory reached.
func (m *memory) neverReached(cov *results.Coverage) []results.CoverageItem {
	var out []results.CoverageItem
	for _, it := range cov.Items {
		if it.Seen == 0 && m.seen[it.Key()] == 0 {
			out = append(out, it)
		}
	}
	return out
}

// write adds the campaign's file to the memory directory (written aside and renamed, so a
// reader never sees half of it).
func (f *memoryFile) write(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f.SchemaVersion = memoryVersion
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-%s-seed%d.json", f.Started.UTC().Format("20060102T150405Z"), f.Name, f.Seed)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}

// guideCandidates is how many cases a guided campaign draws for each one it runs.
const guideCandidates = 4

// guide picks, of a few drawn candidates, the case most likely to reach something new. It
// reads only what does not depend on timing, so the same seed and the same memory give the
// same cases: the event pairs drawn before (by the memory's campaigns and this one), and
// the memory's account of which events reached rarely reached parts.
type guide struct {
	pairs  map[string]bool
	events map[string]bool
	rarity map[string]float64 // event → Σ 1/(1+reached) over the parts its steps reached
}

func newGuide(m *memory) *guide {
	g := &guide{pairs: map[string]bool{}, events: map[string]bool{}, rarity: map[string]float64{}}
	for p := range m.pairs {
		g.pairs[p] = true
	}
	for e, parts := range m.by {
		g.events[e] = true
		for k := range parts {
			g.rarity[e] += 1 / float64(1+m.seen[k])
		}
	}
	return g
}

// score is what a case is worth: an event pair or event never drawn counts 1 each, and
// each of its events adds its rarity.
func (g *guide) score(c *fuzz.Case) float64 {
	s := 0.0
	for _, p := range eventPairs(c) {
		if !g.pairs[p] {
			s++
		}
	}
	counted := map[string]bool{}
	for _, e := range c.EventNames() {
		if counted[e] {
			continue
		}
		counted[e] = true
		if !g.events[e] {
			s++
		}
		s += g.rarity[e]
	}
	return s
}

// take records a case that runs: its pairs and events are drawn from now on.
func (g *guide) take(c *fuzz.Case) {
	for _, p := range eventPairs(c) {
		g.pairs[p] = true
	}
	for _, e := range c.EventNames() {
		g.events[e] = true
	}
}

// pick draws case slot (1-based) of a guided campaign: of guideCandidates cases (drawn at
// indexes (slot-1)*guideCandidates+1 …), the first with the best score.
func (g *guide) pick(gens []*fuzz.Generator, seed int64, slot int, opts fuzz.Options) (*fuzz.Case, error) {
	var best *fuzz.Case
	bestScore := -1.0
	for k := range guideCandidates {
		c, err := fuzz.Draw(gens, seed, (slot-1)*guideCandidates+k+1, opts)
		if err != nil {
			return nil, err
		}
		if s := g.score(c); s > bestScore {
			best, bestScore = c, s
		}
	}
	g.take(best)
	return best, nil
}

// eventPairs lists a case's event pairs, "generator/a>b", with "^" before the first event.
func eventPairs(c *fuzz.Case) []string {
	ev := append([]string{"^"}, c.EventNames()...)
	out := make([]string, 0, len(ev)-1)
	for i := 1; i < len(ev); i++ {
		out = append(out, c.Gen.Name+"/"+ev[i-1]+">"+ev[i])
	}
	return out
}
