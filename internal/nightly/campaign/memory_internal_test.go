package campaign

import (
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/results"
)

const guideGen = `# six events, a case draws one or two
kind desktop
events 1..2
-- setup --
client open
-- event a --
client a
-- event b --
client b
-- event c --
client c
-- event d --
client d
-- event e --
client e
-- event f --
client f
-- finish --
client close
`

func item(cat, name string, seen int) results.CoverageItem {
	return results.CoverageItem{Category: cat, Item: name, Seen: seen}
}

var _ = Describe("coverage memory", func() {
	It("merges the files shards wrote into one history, and says what none of them reached", func() {
		dir := filepath.Join(GinkgoT().TempDir(), MemoryDir)
		t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
		// Two shards of one night and a later night, written in no particular order.
		later := memoryFile{Name: "explore", Seed: 3, Started: t0.Add(24 * time.Hour), Cases: 5,
			Items: []results.CoverageItem{item("frame", "H>C A", 1), item("frame", "H>C C", 4)}, Pairs: []string{"g/^>b"}}
		shard1 := memoryFile{Name: "explore", Seed: 1, Started: t0, Cases: 10,
			Items: []results.CoverageItem{item("frame", "H>C A", 2)}, By: map[string]map[string]int{"a": {"frame\x00H>C A": 2}}, Pairs: []string{"g/^>a"}}
		shard2 := memoryFile{Name: "explore", Seed: 2, Started: t0, Cases: 7,
			Items: []results.CoverageItem{item("frame", "H>C A", 1), item("frame", "H>C B", 1)}, By: map[string]map[string]int{"a": {"frame\x00H>C A": 1}}}
		for _, f := range []memoryFile{later, shard2, shard1} {
			_, err := f.write(dir)
			Expect(err).NotTo(HaveOccurred())
		}
		m, err := loadMemory(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.seen).To(Equal(map[string]int{"frame\x00H>C A": 4, "frame\x00H>C B": 1, "frame\x00H>C C": 4}))
		Expect(m.by["a"]).To(Equal(map[string]int{"frame\x00H>C A": 3}))
		Expect(m.pairs).To(Equal(map[string]bool{"g/^>a": true, "g/^>b": true}))

		self := memoryFile{Name: "explore", Seed: 4, Started: t0.Add(48 * time.Hour), Cases: 3,
			Items: []results.CoverageItem{item("frame", "H>C A", 1), item("frame", "H>C D", 1)}}
		h := m.history(self)
		Expect(h).To(HaveLen(4))
		Expect([]int64{h[0].Seed, h[1].Seed, h[2].Seed, h[3].Seed}).To(Equal([]int64{1, 2, 3, 4}), "oldest first, this campaign last")
		Expect([]int{h[0].New, h[1].New, h[2].New, h[3].New}).To(Equal([]int{1, 1, 1, 1}))
		Expect([]int{h[0].Ever, h[1].Ever, h[2].Ever, h[3].Ever}).To(Equal([]int{1, 2, 3, 4}))

		cov := &results.Coverage{Items: []results.CoverageItem{item("frame", "H>C A", 0), item("frame", "H>C D", 1), item("frame", "H>C E", 0)}}
		Expect(m.neverReached(cov)).To(Equal([]results.CoverageItem{item("frame", "H>C E", 0)}), "A was reached on an earlier night, D by this run")
	})

	It("refuses a file that is not a memory file, naming it", func() {
		dir := GinkgoT().TempDir()
		bad := filepath.Join(dir, "x.json")
		Expect(os.WriteFile(bad, []byte("{not json"), 0o644)).To(Succeed())
		_, err := loadMemory(dir)
		var ue *usage.Error
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError(ContainSubstring(bad)))
		Expect(os.WriteFile(bad, []byte(`{"schemaVersion":99}`), 0o644)).To(Succeed())
		_, err = loadMemory(dir)
		Expect(err).To(MatchError(ContainSubstring("schema version 99")))
	})
})

var _ = Describe("guided draws", func() {
	gens := func() []*fuzz.Generator {
		g, err := fuzz.Parse("g.txtar", []byte(guideGen))
		Expect(err).NotTo(HaveOccurred())
		return []*fuzz.Generator{g}
	}
	pairsOf := func(cs []*fuzz.Case) map[string]bool {
		out := map[string]bool{}
		for _, c := range cs {
			for _, p := range eventPairs(c) {
				out[p] = true
			}
		}
		return out
	}

	It("draws the same cases for the same seed and memory, and reaches more event pairs than uniform draws", func() {
		gs := gens()
		guided := func() []*fuzz.Case {
			g := newGuide(newMemory())
			var out []*fuzz.Case
			for slot := 1; slot <= 12; slot++ {
				c, err := g.pick(gs, 7, slot, fuzz.Options{})
				Expect(err).NotTo(HaveOccurred())
				out = append(out, c)
			}
			return out
		}
		a, b := guided(), guided()
		for i := range a {
			Expect(a[i].Name).To(Equal(b[i].Name))
			Expect(a[i].Text()).To(Equal(b[i].Text()))
		}
		var uniform []*fuzz.Case
		for slot := 1; slot <= 12; slot++ {
			c, err := fuzz.Draw(gs, 7, slot, fuzz.Options{})
			Expect(err).NotTo(HaveOccurred())
			uniform = append(uniform, c)
		}
		Expect(len(pairsOf(a))).To(BeNumerically(">", len(pairsOf(uniform))))
	})

	It("prefers the events the memory says reached rarely reached parts", func() {
		m := newMemory()
		// Every pair was drawn before; only event f ever reached the rare part.
		for _, x := range []string{"^", "a", "b", "c", "d", "e", "f"} {
			for _, y := range []string{"a", "b", "c", "d", "e", "f"} {
				m.pairs["g/"+x+">"+y] = true
			}
		}
		m.seen["frame\x00common"], m.seen["frame\x00rare"] = 500, 1
		for _, e := range []string{"a", "b", "c", "d", "e", "f"} {
			m.by[e] = map[string]int{"frame\x00common": 80}
		}
		m.by["f"]["frame\x00rare"] = 1
		g := newGuide(m)
		withF := 0
		for slot := 1; slot <= 20; slot++ {
			c, err := g.pick(gens(), 7, slot, fuzz.Options{})
			Expect(err).NotTo(HaveOccurred())
			for _, e := range c.EventNames() {
				if e == "f" {
					withF++
					break
				}
			}
		}
		// Uniform draws put f in about 2 cases of 7; the guide in every case a candidate has it.
		Expect(withF).To(BeNumerically(">=", 12))
	})
})
