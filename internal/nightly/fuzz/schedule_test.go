package fuzz_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/nightly/fuzz"
)

var _ = Describe("schedules", func() {
	It("are drawn from the seed and the case alone, and leave the case's events as they were", func() {
		g := mustParse(gen)
		perturbed, unsettled, lagged := 0, 0, 0
		for i := 1; i <= 200; i++ {
			s := fuzz.DrawSchedule(7, i)
			Expect(fuzz.DrawSchedule(7, i)).To(Equal(s))
			if s.Zero() {
				continue
			}
			perturbed++
			if s.Settle == fuzz.SettleNone {
				unsettled++
			}
			if s.Lag != [2]fuzz.Lag{} {
				lagged++
			}
			with := draw(g, 7, i, fuzz.Options{Schedules: true})
			without := draw(g, 7, i, fuzz.Options{})
			Expect(with.Schedule).To(Equal(s))
			Expect(without.Schedule.Zero()).To(BeTrue())
			Expect(with.EventNames()).To(Equal(without.EventNames()))
		}
		// About half the cases keep the campaign's timing; the others vary both ways.
		Expect(perturbed).To(BeNumerically("~", 100, 30))
		Expect(unsettled).To(BeNumerically(">", 20))
		Expect(lagged).To(BeNumerically(">", 20))
	})

	It("are written into the case's journey: settle none in the header, the tap's delays before anything crosses", func() {
		g := mustParse(gen)
		c := draw(g, 7, 1, fuzz.Options{})
		c.Schedule = fuzz.Schedule{Settle: fuzz.SettleNone, Lag: [2]fuzz.Lag{{}, {D: 25e6, Jitter: 25e6}}}
		Expect(c.Schedule.String()).To(Equal("settle none, H>C 25ms±25ms"))
		text := string(c.Text())
		Expect(text).To(ContainSubstring("# schedule: settle none, H>C 25ms±25ms\nsettle none\n"))
		Expect(text).To(ContainSubstring("-- script --\nstep setup\ntap delay H>C 25ms jitter=25ms\nclient open"))
		Expect(strings.Count(text, "tap delay")).To(Equal(1))
		j, err := c.Journey("case.txtar")
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Unsettled).To(BeTrue())

		// Control: the campaign's own timing writes nothing of the kind.
		c.Schedule = fuzz.Schedule{}
		Expect(c.Schedule.String()).To(Equal("settled"))
		Expect(string(c.Text())).NotTo(Or(ContainSubstring("settle"), ContainSubstring("tap delay")))
	})

	It("opens a whole journey's first step, and a pack keeps its first case's", func() {
		g := mustParse("kind desktop\nevents 0..0\npack 1\n-- setup --\nstep open\nclient open\nstep close\nclient close\n")
		c := draw(g, 3, 1, fuzz.Options{})
		Expect(c.Events).To(BeEmpty())
		c.Schedule = fuzz.Schedule{Lag: [2]fuzz.Lag{{D: 1e6}, {}}}
		Expect(string(c.Text())).To(ContainSubstring("-- script --\nstep open\ntap delay C>H 1ms\nclient open\nstep close\nclient close\n"))
		Expect(fuzz.Pack("p", []*fuzz.Case{c, c}).Schedule).To(Equal(c.Schedule))
		// Without events, a case's delays have nowhere to start but the first step: only
		// cases delayed alike share its pack.
		Expect(fuzz.PackSchedule(c)).To(Equal(c.Schedule))
	})

	It("lets cases that settle alike and delay differently share a pack, each case's delays from its first event", func() {
		g := mustParse(gen)
		a, b, c := draw(g, 7, 1, fuzz.Options{}), draw(g, 7, 2, fuzz.Options{}), draw(g, 7, 3, fuzz.Options{})
		a.Schedule = fuzz.Schedule{Settle: fuzz.SettleNone, Lag: [2]fuzz.Lag{{}, {D: 25e6, Jitter: 25e6}}}
		b.Schedule = fuzz.Schedule{Settle: fuzz.SettleNone, Lag: [2]fuzz.Lag{{D: 1e6}, {}}}
		c.Schedule = fuzz.Schedule{Settle: fuzz.SettleNone}
		for _, x := range []*fuzz.Case{a, b, c} {
			Expect(fuzz.PackSchedule(x)).To(Equal(fuzz.Schedule{Settle: fuzz.SettleNone}))
		}
		p := fuzz.Pack("p", []*fuzz.Case{a, b, c})
		Expect(p.Schedule).To(Equal(fuzz.Schedule{Settle: fuzz.SettleNone}))
		text := string(p.Text())
		Expect(text).To(ContainSubstring("settle none\n"))
		Expect(text).To(ContainSubstring("step c1-e1-" + a.Events[0].Section.Name + "\ntap delay H>C 25ms jitter=25ms\n"))
		Expect(text).To(ContainSubstring("step c2-e1-" + b.Events[0].Section.Name + "\ntap delay C>H 1ms\ntap delay H>C 0s\n"))
		Expect(text).To(ContainSubstring("step c3-e1-" + c.Events[0].Section.Name + "\ntap delay C>H 0s\n"))
		Expect(strings.Count(text, "tap delay")).To(Equal(4), "only where the delays change")
		Expect(text).NotTo(ContainSubstring("step setup\ntap"), "the shared setup runs undelayed")
		j, err := p.Journey("p.txtar")
		Expect(err).NotTo(HaveOccurred(), text)
		Expect(j.Unsettled).To(BeTrue())
		// A shrinker's copy keeps each event's delays.
		Expect(string(p.Clone().Text())).To(Equal(text))

		// Control: cases delayed alike pack as before, the delays once in the first step.
		b.Schedule, c.Schedule = a.Schedule, a.Schedule
		same := string(fuzz.Pack("p", []*fuzz.Case{a, b, c}).Text())
		Expect(same).To(ContainSubstring("-- script --\nstep setup\ntap delay H>C 25ms jitter=25ms\n"))
		Expect(strings.Count(same, "tap delay")).To(Equal(1))
	})

	It("refuses events 0..0 with event sections, and no event sections without it", func() {
		_, err := fuzz.Parse("g.txtar", []byte("kind desktop\nevents 0..0\n-- setup --\nclient open\n-- event e --\nclient x\n"))
		Expect(err).To(MatchError(ContainSubstring("events 0..0 draws no event")))
		_, err = fuzz.Parse("g.txtar", []byte("kind desktop\n-- setup --\nclient open\n"))
		Expect(err).To(MatchError(ContainSubstring("or events 0..0")))
	})
})

var _ = Describe("a case's lateness", func() {
	It("counts each event at its delays' means, both directions, and a packed case each case's own delays", func() {
		g := mustParse(gen)
		c := draw(g, 7, 1, fuzz.Options{})
		Expect(c.Lateness()).To(BeZero(), "no schedule, no delay (negative control)")
		c.Schedule.Lag = [2]fuzz.Lag{{D: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}, {D: time.Millisecond}}
		Expect(c.Lateness()).To(Equal(time.Duration(len(c.Events)) * 8500 * time.Microsecond))
		late, early := draw(g, 7, 2, fuzz.Options{}), draw(g, 7, 3, fuzz.Options{})
		late.Schedule.Lag = [2]fuzz.Lag{{}, {D: 25 * time.Millisecond, Jitter: 25 * time.Millisecond}}
		early.Schedule.Lag = [2]fuzz.Lag{{D: time.Millisecond}}
		p := fuzz.Pack("p", []*fuzz.Case{late, early})
		Expect(p.Lateness()).To(Equal(late.Lateness() + early.Lateness()))
		Expect(p.Lateness()).To(BeNumerically(">", 0))
	})
})
