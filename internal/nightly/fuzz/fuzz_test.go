package fuzz_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
)

const gen = `# a generator
kind desktop
timeout 5s
events 2..5
-- setup --
client open path=/p id=s1
await client ready
-- event small weight=3 --
host emit id=s1 text={ascii 1..40 as=out} n={int 3..9}
await client view text={tail out 8}
-- event big --
host emit id=s1 text={size 1000 ±2 as=run} raw={len run 0..8}
await client view text="end"+{fresh m}
-- event pick --
client mode value={one a b c} obj={"k":{int 1..2}}
-- event wide --
host emit id=s1 text={utf8 10..900}
-- finish --
client close id=s1
-- frames --
ignore C>H Ping
`

func mustParse(text string) *fuzz.Generator {
	g, err := fuzz.Parse("gen.txtar", []byte(text))
	Expect(err).NotTo(HaveOccurred())
	return g
}

func draw(g *fuzz.Generator, seed int64, i int, opts fuzz.Options) *fuzz.Case {
	c, err := fuzz.Draw([]*fuzz.Generator{g}, seed, i, opts)
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = Describe("generator files", func() {
	It("reads the header, the sections and the weights", func() {
		g := mustParse(gen)
		Expect(g.Kinds).To(Equal("desktop"))
		Expect(g.MinEvents).To(Equal(2))
		Expect(g.MaxEvents).To(Equal(5))
		Expect(g.Events).To(HaveLen(4))
		Expect(g.Events[0].Name).To(Equal("small"))
		Expect(g.Events[0].Weight).To(Equal(3))
		Expect(g.Events[1].Weight).To(Equal(1))
		Expect(g.Frames).To(Equal("ignore C>H Ping\n"))
		Expect(g.Pack).To(BeZero(), "no pack line: the campaign's default")
		Expect(mustParse("kind d\npack 32\n-- event e --\nclient x\n").Pack).To(Equal(32))
	})

	DescribeTable("errors say file, line and what is wrong",
		func(text, want string) {
			_, err := fuzz.Parse("gen.txtar", []byte(text))
			Expect(err).To(HaveOccurred())
			var se *fuzz.SyntaxError
			Expect(errors.As(err, &se)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("no event", "kind d\n-- setup --\nclient x\n", "gen.txtar:1: no -- event NAME -- section"),
		Entry("no kind", "-- event e --\nclient x\n", "gen.txtar:1: no kind line"),
		Entry("unknown header", "kind d\ncolour red\n-- event e --\nclient x\n", "gen.txtar:2: unknown header line \"colour\""),
		Entry("bad events range", "kind d\nevents 5..2\n-- event e --\nclient x\n", "gen.txtar:2: events \"5..2\""),
		Entry("bad pack", "kind d\npack 0\n-- event e --\nclient x\n", "gen.txtar:2: pack \"0\": want how many cases share a journey"),
		Entry("bad weight", "kind d\n-- event e weight=0 --\nclient x\n", "gen.txtar:2: event option \"weight=0\""),
		Entry("event twice", "kind d\n-- event e --\nclient x\n-- event e --\nclient y\n", "gen.txtar:4: event \"e\" already defined at line 2"),
		Entry("unknown section", "kind d\n-- events --\nclient x\n", "gen.txtar:2: unknown section \"events\""),
		Entry("a step line in an event", "kind d\n-- event e --\nstep s\n", "gen.txtar:3: an event's steps are named after it"),
		Entry("bad range", "kind d\n-- event e --\nclient x n={int 9..1}\n", "gen.txtar:3: {int 9..1}: 9..1: the first bound is larger"),
		Entry("not a number", "kind d\n-- event e --\nclient x n={ascii a..b}\n", "gen.txtar:3: {ascii a..b}"),
		Entry("unbound tail", "kind d\n-- event e --\nclient x t={tail out 4}\n", "gen.txtar:3: {tail out …}: no value bound as=out"),
		Entry("binding from another event", "kind d\n-- event a --\nclient x t={ascii 1..2 as=out}\n-- event b --\nclient y t={len out}\n", "gen.txtar:5: {len out …}"),
		Entry("size spread too wide", "kind d\n-- event e --\nclient x t={size 4 ±4}\n", "gen.txtar:3: {size 4 ±4}: the spread"),
		Entry("unclosed generator", "kind d\n-- event e --\nclient x t={int 1..2\n", "gen.txtar:3: unclosed generator"),
		Entry("empty one", "kind d\n-- event e --\nclient x t={one}\n", "gen.txtar:3: {one} needs at least one word"),
	)
})

var _ = Describe("drawing cases", func() {
	It("writes a case as a journey: setup, one step per event, finish, frames; values Go-quoted", func() {
		g := mustParse(gen)
		c := draw(g, 7, 1, fuzz.Options{})
		j, err := c.Journey("case.txtar")
		Expect(err).NotTo(HaveOccurred())
		names := j.StepNames()
		Expect(names[0]).To(Equal("setup"))
		Expect(names[len(names)-1]).To(Equal("finish"))
		Expect(len(names)).To(BeNumerically(">=", 2+2))
		Expect(len(names)).To(BeNumerically("<=", 2+5))
		for i, e := range c.EventNames() {
			Expect(names[i+1]).To(HaveSuffix("-" + e))
		}
		Expect(j.Ignore).To(HaveLen(1))
		Expect(j.Kinds).To(Equal([]string{"desktop"}))
	})

	It("draws the same cases from the same seed, and different ones from another", func() {
		g := mustParse(gen)
		for i := 1; i <= 20; i++ {
			Expect(draw(g, 3, i, fuzz.Options{}).Text()).To(Equal(draw(g, 3, i, fuzz.Options{}).Text()))
		}
		same := 0
		for i := 1; i <= 20; i++ {
			if string(draw(g, 3, i, fuzz.Options{}).Text()) == string(draw(g, 4, i, fuzz.Options{}).Text()) {
				same++
			}
		}
		Expect(same).To(BeNumerically("<", 5))
	})

	It("keeps bound values: a tail is the end of what was sent, a len its length plus the offset", func() {
		g := mustParse("kind d\n-- event e --\nhost emit text={ascii 20..30 as=out} raw={len out 5..5}\nawait client view text={tail out 4}\n")
		for i := 1; i <= 10; i++ {
			j, err := draw(g, 1, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps[:len(j.Steps)] {
				for k := 0; k+1 < len(s.Commands); k += 2 {
					sent, _ := s.Commands[k].Get("text")
					raw, _ := s.Commands[k].Get("raw")
					tail, _ := s.Commands[k+1].Get("text")
					Expect(len(sent)).To(BeNumerically(">=", 20))
					Expect(raw).To(Equal(itoa(len(sent) + 5)))
					Expect(sent).To(HaveSuffix(tail))
					Expect(tail).To(HaveLen(4))
				}
			}
		}
	})

	It("keeps a len at or above its floor", func() {
		g := mustParse("kind d\nevents 4..4\n-- event e --\nhost emit text={ascii 1..3 as=out} raw={len out -10..-10 min=1}\n")
		for i := 1; i <= 10; i++ {
			j, err := draw(g, 1, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps {
				for _, c := range s.Commands {
					raw, _ := c.Get("raw")
					Expect(raw).To(Equal("1"))
				}
			}
		}
	})

	It("straddles the size and its multiples, a code point across the boundary at times", func() {
		g := mustParse("kind d\n-- event e --\nhost emit text={size 1000 ±3}\n")
		straddled := false
		for i := 1; i <= 40; i++ {
			j, err := draw(g, 5, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps {
				for _, c := range s.Commands {
					text, _ := c.Get("text")
					n := len(text)
					k := (n + 500) / 1000
					Expect(n - k*1000).To(BeNumerically("~", 0, 3))
					if len(text) > 1000 && !isBoundary(text, 1000) {
						straddled = true
					}
				}
			}
		}
		Expect(straddled).To(BeTrue())
	})

	It("draws edge lengths next to the range's ends and each limit, in every UTF-8 width, a code point across the limit", func() {
		g := mustParse("kind d\nevents 3..3\n-- event e --\nhost emit text={edge 0..200 48}\n")
		lengths, widths := map[int]bool{}, map[int]bool{}
		for i := 1; i <= 80; i++ {
			j, err := draw(g, 3, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps {
				for _, c := range s.Commands {
					text, _ := c.Get("text")
					Expect(isUTF8(text)).To(BeTrue())
					lengths[len(text)] = true
					if len(text) > 48 {
						w := len(string([]rune(text)[1]))
						widths[w] = true
						if w > 1 {
							Expect(isBoundary(text, 48)).To(BeFalse(), "a %d-byte code point across byte 48 of %q", w, text)
						}
					}
				}
			}
		}
		for _, n := range []int{0, 1, 199, 200, 47, 48, 49, 95, 96, 97} {
			Expect(lengths).To(HaveKey(n))
		}
		Expect(lengths).To(HaveLen(10))
		Expect(widths).To(HaveLen(4))
	})

	It("writes multi-byte UTF-8 and sometimes invalid bytes, exactly as drawn", func() {
		g := mustParse("kind d\nevents 3..3\n-- event e --\nhost emit text={utf8 100..200}\n")
		multi, invalid := false, false
		for i := 1; i <= 30; i++ {
			j, err := draw(g, 9, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps {
				for _, c := range s.Commands {
					text, _ := c.Get("text")
					Expect(len(text)).To(BeNumerically(">=", 100))
					Expect(len(text)).To(BeNumerically("<=", 200))
					multi = multi || strings.ContainsAny(text, "€😀é中")
					invalid = invalid || !isUTF8(text)
				}
			}
		}
		Expect(multi).To(BeTrue())
		Expect(invalid).To(BeTrue())
	})

	It("writes only valid UTF-8 when asked to", func() {
		g := mustParse("kind d\nevents 3..3\n-- event e --\nhost emit text={utf8 100..200 valid}\n")
		for i := 1; i <= 30; i++ {
			j, err := draw(g, 9, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, s := range j.Steps {
				for _, c := range s.Commands {
					text, _ := c.Get("text")
					Expect(isUTF8(text)).To(BeTrue())
				}
			}
		}
	})

	It("writes megabytes as a short line (a repeated unit)", func() {
		g := mustParse("kind d\nevents 1..1\n-- event e --\nhost emit text={ascii 2000000..2000000}\n")
		c := draw(g, 1, 1, fuzz.Options{})
		Expect(len(c.Text())).To(BeNumerically("<", 2000))
		j, err := c.Journey("c.txtar")
		Expect(err).NotTo(HaveOccurred())
		text, _ := j.Steps[0].Commands[0].Get("text")
		Expect(text).To(HaveLen(2000000))
	})

	It("marks a case that draws a differential event, and only such a case", func() {
		g := mustParse("kind d\nevents 1..1\n-- event plain --\nclient x\n-- event quiet weight=2 differential --\nidle for=6s\n")
		Expect(g.Events[0].Differential).To(BeFalse())
		Expect(g.Events[1].Differential).To(BeTrue())
		Expect(g.Events[1].Weight).To(Equal(2))
		seen := map[bool]bool{}
		for i := 1; i <= 30; i++ {
			c := draw(g, 1, i, fuzz.Options{})
			Expect(c.Differential()).To(Equal(c.EventNames()[0] == "quiet"), "case %d", i)
			// The journey carries the marking (a corpus replay reads it), only where it holds.
			Expect(fuzz.MarkedDifferential(c.Text())).To(Equal(c.Differential()), "case %d:\n%s", i, c.Text())
			seen[c.Differential()] = true
		}
		Expect(seen).To(HaveLen(2), "both kinds of case drawn")
		_, err := fuzz.Parse("gen.txtar", []byte("kind d\n-- event e differentially --\nclient x\n"))
		Expect(err).To(MatchError(ContainSubstring("or differential")))
	})

	It("leaves excluded events out, and says so when nothing is left", func() {
		g := mustParse(gen)
		for i := 1; i <= 20; i++ {
			Expect(draw(g, 1, i, fuzz.Options{Exclude: []string{"small", "big"}}).EventNames()).NotTo(ContainElements("small", "big"))
		}
		_, err := fuzz.Draw([]*fuzz.Generator{g}, 1, 1, fuzz.Options{Exclude: []string{"small", "big", "pick", "wide"}})
		Expect(err).To(MatchError(ContainSubstring("every event is excluded")))
		// A pattern excludes every event it matches.
		for i := 1; i <= 20; i++ {
			Expect(draw(g, 1, i, fuzz.Options{Exclude: []string{"*i*"}}).EventNames()).To(HaveEach("small"))
		}
	})

	It("leaves JSON values alone and fills generators inside them", func() {
		g := mustParse("kind d\n-- event e --\nclient mode obj={\"k\":{int 4..4}} v={one x}\n")
		j, err := draw(g, 1, 1, fuzz.Options{}).Journey("c.txtar")
		Expect(err).NotTo(HaveOccurred())
		obj, _ := j.Steps[1].Commands[0].Get("obj")
		Expect(obj).To(Equal(`{"k":4}`))
		g = mustParse("kind d\n-- event e --\nclient call input={\"message\":\"{fresh m-}\"}\n")
		j, err = draw(g, 1, 1, fuzz.Options{}).Journey("c.txtar")
		Expect(err).NotTo(HaveOccurred())
		in, _ := j.Steps[1].Commands[0].Get("input")
		Expect(in).To(MatchRegexp(`^\{"message":"m-[0-9]+"\}$`))
	})
})

var _ = Describe("packing", func() {
	It("runs several cases' events in one journey: the setup and finish once, steps named by case", func() {
		g := mustParse(gen)
		a, b := draw(g, 1, 1, fuzz.Options{}), draw(g, 1, 2, fuzz.Options{})
		p := fuzz.Pack("pack", []*fuzz.Case{a, b})
		j, err := p.Journey("pack.txtar")
		Expect(err).NotTo(HaveOccurred())
		names := j.StepNames()
		Expect(names).To(HaveLen(2 + len(a.Events) + len(b.Events)))
		Expect(names[0]).To(Equal("setup"))
		Expect(names[1]).To(HavePrefix("c1-e1-"))
		Expect(names[1+len(a.Events)]).To(HavePrefix("c2-e1-"))
		Expect(names[len(names)-1]).To(Equal("finish"))
		Expect(p.EventNames()).To(Equal(append(a.EventNames(), b.EventNames()...)))
		Expect(fuzz.EventOfStep(names[1])).To(Equal(a.EventNames()[0]))
		single, err := a.Journey("a.txtar")
		Expect(err).NotTo(HaveOccurred())
		Expect(fuzz.EventOfStep(single.StepNames()[1])).To(Equal(a.EventNames()[0]))
		for _, step := range []string{"setup", "finish", "e-x", "ex-y", "cx-e1-y", "c1-x"} {
			Expect(fuzz.EventOfStep(step)).To(BeEmpty(), step)
		}
		Expect(fuzz.EventOfStep("c12-e3-host-emit-output-edge")).To(Equal("host-emit-output-edge"))
	})
})

var _ = Describe("an event in steps of its own", func() {
	const twoSteps = "kind d\nevents 2..2\n-- setup --\nclient open\n-- event resize-then-emit --\nclient resize cols={int 20..200}\nstep\nhost emit text={ascii 1..3}\nawait client shown\n-- event plain --\nhost emit text={ascii 1..3}\n"

	It("goes on in a step of its own at a bare step line, once the step before has ended, named after the event's", func() {
		g := mustParse(twoSteps)
		Expect(g.Events[0].Lines[1].Step).To(Equal(fuzz.NextStep))
		seen := false
		for i := 1; i <= 20; i++ {
			c := draw(g, 1, i, fuzz.Options{})
			j, err := c.Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred(), "%s", c.Text())
			steps := 0
			for k, e := range c.EventNames() {
				name := fmt.Sprintf("e%d-%s", k+1, e)
				Expect(j.StepNames()).To(ContainElement(name))
				if e != "resize-then-emit" {
					Expect(j.StepNames()).NotTo(ContainElement(name+".2"), "an event without a bare step line is one step (negative control)")
					steps++
					continue
				}
				seen = true
				steps += 2
				// The action alone in the event's step; the feeding action and its await in the next.
				at := slices.Index(j.StepNames(), name)
				Expect(j.StepNames()[at+1]).To(Equal(name + ".2"))
				Expect(j.Steps[at].Commands).To(HaveLen(1))
				Expect(j.Steps[at].Commands[0].Positional()[0]).To(Equal("resize"))
				Expect(j.Steps[at+1].Commands).To(HaveLen(2))
				Expect(j.Steps[at+1].Commands[0].Positional()[0]).To(Equal("emit"))
				// Both steps are the event's, for coverage, alone or packed.
				Expect(fuzz.EventOfStep(name + ".2")).To(Equal("resize-then-emit"))
				Expect(fuzz.EventOfStep("c3-" + name + ".2")).To(Equal("resize-then-emit"))
			}
			Expect(j.StepNames()).To(HaveLen(1 + steps))
		}
		Expect(seen).To(BeTrue())
		p := fuzz.Pack("pack", []*fuzz.Case{draw(g, 1, 1, fuzz.Options{}), draw(g, 1, 2, fuzz.Options{}), draw(g, 1, 3, fuzz.Options{})})
		_, err := p.Journey("pack.txtar")
		Expect(err).NotTo(HaveOccurred(), "packed, every step name is still unique:\n%s", p.Text())
	})

	It("refuses a bare step line in setup or as an event's first line, and a named one in an event", func() {
		_, err := fuzz.Parse("gen.txtar", []byte("kind d\n-- setup --\nstep\nclient open\n-- event e --\nclient x\n"))
		Expect(err).To(MatchError(ContainSubstring("gen.txtar:3: step needs a name in setup and finish")))
		_, err = fuzz.Parse("gen.txtar", []byte("kind d\n-- event e --\nstep\nclient x\n"))
		Expect(err).To(MatchError(ContainSubstring("gen.txtar:3: a bare step line goes on with the event in a step of its own: it needs a line before it")))
		_, err = fuzz.Parse("gen.txtar", []byte("kind d\n-- event e --\nclient x\nstep two\nclient y\n"))
		Expect(err).To(MatchError(ContainSubstring("gen.txtar:4: an event's steps are named after it")))
	})
})

var _ = Describe("shrinking", func() {
	// fails says a case fails when it has a big event whose size is over 1000 and whose
	// bytes are not all plain: the shrinker must find exactly one big event just over it.
	bigOver := func(limit int) fuzz.Predicate {
		return func(_ context.Context, c *fuzz.Case) (bool, error) {
			j, err := c.Journey("c.txtar")
			if err != nil {
				return false, err
			}
			for _, s := range j.Steps {
				if !strings.HasSuffix(s.Name, "-big") {
					continue
				}
				text, _ := s.Commands[0].Get("text")
				if len(text) > limit {
					return true, nil
				}
			}
			return false, nil
		}
	}

	It("drops every event it can, then shrinks the value to the smallest size that still fails", func(ctx SpecContext) {
		g := mustParse(gen)
		var c *fuzz.Case
		for i := 1; c == nil; i++ {
			d := draw(g, 11, i, fuzz.Options{})
			if ok, _ := bigOver(1000)(ctx, d); ok && len(d.Events) >= 3 {
				c = d
			}
		}
		small, runs, err := fuzz.Shrink(ctx, c, bigOver(1000), 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(runs).To(BeNumerically("<=", fuzz.DefaultShrinkTries))
		Expect(small.EventNames()).To(Equal([]string{"big"}))
		j, err := small.Journey("c.txtar")
		Expect(err).NotTo(HaveOccurred())
		text, _ := j.Steps[1].Commands[0].Get("text")
		Expect(text).To(HaveLen(1001))
		Expect(text).To(Equal(strings.Repeat("x", 1001)), "the bytes made plain")
		Expect(len(c.Events)).To(BeNumerically(">=", 3), "the case given is not changed")
	})

	It("keeps a case that no smaller candidate reproduces, and stops at the budget", func(ctx SpecContext) {
		g := mustParse(gen)
		c := draw(g, 11, 2, fuzz.Options{})
		never := func(context.Context, *fuzz.Case) (bool, error) { return false, nil }
		small, runs, err := fuzz.Shrink(ctx, c, never, 5)
		Expect(err).NotTo(HaveOccurred())
		Expect(runs).To(Equal(5))
		Expect(small.Text()).To(Equal(c.Text()))
	})

	It("stops on a run that broke and keeps the smallest case so far", func(ctx SpecContext) {
		g := mustParse(gen)
		c := draw(g, 11, 3, fuzz.Options{})
		broke := errors.New("driver never got ready")
		_, runs, err := fuzz.Shrink(ctx, c, func(context.Context, *fuzz.Case) (bool, error) { return false, broke }, 0)
		Expect(err).To(MatchError(broke))
		Expect(runs).To(Equal(1))
	})
})

func itoa(n int) string { return strconv.Itoa(n) }

func isBoundary(s string, size int) bool {
	for b := size; b < len(s); b += size {
		if c := s[b]; c&0xC0 == 0x80 {
			return false
		}
	}
	return true
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

var _ = Describe("a generator's largest value", func() {
	one := func(event string) string {
		return "kind desktop\n-- event e --\n" + event + "\n"
	}
	DescribeTable("is read from its text",
		func(event string, want int) {
			Expect(mustParse(one(event)).Largest()).To(Equal(want))
		},
		Entry("a length range's upper bound", "host emit text={ascii 1..4000}", 4000),
		Entry("utf8", "host emit text={utf8 0..4096 valid}", 4096),
		Entry("bytes", "host emit text={bytes 3..70000}", 70000),
		Entry("an edge's range, not its limits", "host emit text={edge 0..1048576 49152}", 1048576),
		Entry("a size's three times and its spread", "host emit text={size 49152 ±4}", 3*49152+4),
		Entry("a tail's length", "host emit text={ascii 1..10 as=o}\nawait client view text={tail o 64}", 64),
		Entry("a literal string expression", `host emit text="ab"*40000+"c"`, 80001),
		Entry("a word's parts added up", `host emit text="HEAD"+{ascii 1..100}+"x"*10`, 114),
		Entry("a drawn idle moves nothing", "idle for={one 100ms 2s}", len("100ms 2s")+20),
		Entry("numbers and picks are a few bytes", "client resize cols={int 1..65535} rows={one 24 50}", len("1..65535")+20),
	)

	It("bounds every value its cases draw", func() {
		text := one(`host emit text={edge 0..70000 49152 as=e} raw={len e 0..8}
-- event b --
host emit text={size 1000 ±2 as=out} n={int 1..9}
await client view text={tail out 8}
-- event c --
client input text="x"*300+{utf8 1..900}`)
		g := mustParse(text)
		most := g.Largest()
		Expect(most).To(Equal(70000))
		seen := 0
		for i := range 200 {
			j, err := draw(g, 7, i, fuzz.Options{}).Journey("c.txtar")
			Expect(err).NotTo(HaveOccurred())
			for _, st := range j.Steps {
				for _, c := range st.Commands {
					for _, a := range c.Args {
						Expect(len(a.Value)).To(BeNumerically("<=", most), "case %d: %s %s", i, c.Verb, a.Key)
						seen = max(seen, len(a.Value))
					}
				}
			}
		}
		Expect(seen).To(Equal(70000), "the edge's upper bound is drawn (a fifth of the edges are the range's ends)")
	})
})
