package explore_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/explore"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
)

var (
	terminal = driver.Param{Name: "terminal", Type: "id", Example: "t1"}
	host     = explore.Driver{Role: "host", Actions: []string{"emit", "stop", "beep"},
		Params: map[string][]driver.Param{
			"emit": {terminal, {Name: "text", Type: "text", Limits: []int{48}, Feeds: "screen"}},
			"beep": {{Name: "level", Type: "int", Min: 1, Max: 9}, {Name: "mode", Type: "enum", Values: []string{"a", "b"}}},
		}}
	desktop = explore.Driver{Role: "client", Kind: "desktop", Actions: []string{"type", "resize", "stop"},
		Params: map[string][]driver.Param{
			"type":   {terminal, {Name: "text", Type: "text", Max: 100, Feeds: "input"}},
			"resize": {terminal, {Name: "cols", Type: "int", Min: 20, Max: 200}},
		}}
	mobile = explore.Driver{Role: "client", Kind: "mobile", Actions: []string{"type", "stop"},
		Params: map[string][]driver.Param{"type": {terminal, {Name: "text", Type: "text", Max: 100, Feeds: "input"}}}}
	streams = []contract.StreamSpec{
		{Name: "screen", Sent: contract.Endpoint{Role: "host", Observations: []string{"out"}}, Delivered: contract.Endpoint{Role: "client", Observations: []string{"shown"}}, Compare: "cumulative"},
		{Name: "input", Sent: contract.Endpoint{Role: "client", Actions: []string{"type"}}, Delivered: contract.Endpoint{Role: "host", Observations: []string{"typed"}}, Compare: "bytes"},
	}
	base = explore.Base{Name: "term", Kinds: "desktop,mobile", Header: []string{"kind desktop,mobile", "timeout 10s"},
		Setup:  []string{"client open terminal=t7 cols=80", "await client opened"},
		Finish: []string{"client close terminal=t7"}, Frames: "ignore C>H Ack\n"}
)

// parse reads a drawn generator back, as the campaign does.
func parse(text []byte) *fuzz.Generator {
	g, err := fuzz.Parse("explore-term.txtar", text)
	Expect(err).NotTo(HaveOccurred(), "%s", text)
	return g
}

func events(g *fuzz.Generator) []string {
	var out []string
	for _, e := range g.Events {
		out = append(out, e.Name)
	}
	return out
}

var _ = Describe("drafting generators from the described vocabulary", func() {
	It("draws every described action, at random and at its edges, held, delayed and fragmented directions, with the base's setup, finish and frames", func() {
		g := parse(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 0))
		Expect(events(g)).To(ConsistOf("client-resize", "client-resize-edge", "client-type", "client-type-edge",
			"host-beep", "host-beep-edge", "host-emit", "host-emit-edge",
			"held-HC-type", "held-CH-type", "held-HC-emit", "held-CH-emit",
			"delayed-HC-type", "delayed-CH-type", "delayed-HC-emit", "delayed-CH-emit",
			"fragmented-HC-type", "fragmented-CH-type", "fragmented-HC-emit", "fragmented-CH-emit",
			"client-resize-then-type", "client-resize-then-emit", "host-beep-then-type", "host-beep-then-emit",
			"client-resize-settled-then-type", "client-resize-settled-then-emit", "host-beep-settled-then-type", "host-beep-settled-then-emit"))
		Expect(g.Kinds).To(Equal("desktop,mobile"))
		Expect(g.Header).To(Equal([]string{"kind desktop,mobile", "timeout 10s"}))
		Expect(g.Frames).To(Equal("ignore C>H Ack\n"))
		Expect(g.Setup.Lines).To(HaveLen(2))
		Expect(g.Finish.Lines).To(HaveLen(1))
		Expect(g.Pack).To(BeZero(), "no pack line: the campaign's default")

		packed := base
		packed.Pack = 64
		Expect(parse(explore.Text(packed, []explore.Driver{host, desktop, mobile}, streams, 0)).Pack).To(Equal(64), "the base's pack line")
	})

	It("writes ids from the setup, bounds and limits as generators, edges as boundaries", func() {
		text := string(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 0))
		Expect(text).To(ContainSubstring("host emit terminal=t7 text={utf8 0..4096}\n"))
		Expect(text).To(ContainSubstring("host emit terminal=t7 text={edge 0..1048576 48}\n"))
		Expect(text).To(ContainSubstring("host beep level={int 1..9} mode={one a b}\n"))
		Expect(text).To(ContainSubstring("host beep level={one 1 2 8 9} mode={one a b}\n"))
		Expect(text).To(ContainSubstring("client type terminal=t7 text={edge 0..100}\n"))
		// resize is described by the desktop driver only: its lines say so.
		Expect(text).To(ContainSubstring("[kind:desktop] client resize terminal=t7 cols={int 20..200}\n"))
		Expect(text).NotTo(ContainSubstring("[kind:mobile] client resize"))
	})

	It("ends every event on a fresh marker of each stream a described text feeds, awaited where it is delivered", func() {
		text := string(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 0))
		sync := "client type terminal=t7 text={fresh explore- as=mk1}\nawait host input text={tail mk1 64}\n" +
			"host emit terminal=t7 text={fresh explore- as=mk2}\nawait client screen text={tail mk2 64}\n"
		Expect(strings.Count(text, sync)).To(Equal(12+4+4+4+4), text)
		// An action that feeds no stream is followed, in an event of its own, by a feeding
		// action at its edges before the markers: the first output after it is the smallest
		// or the largest, not a marker.
		Expect(text).To(ContainSubstring("-- event client-resize-then-emit weight=1 --\n[kind:desktop] client resize terminal=t7 cols={int 20..200}\n" +
			"host emit terminal=t7 text={edge 0..1048576 48}\n" + sync))
		// And in a step of its own once the action's step has ended: its output comes after
		// all the action caused, on every such case.
		Expect(text).To(ContainSubstring("-- event client-resize-settled-then-emit weight=1 --\n[kind:desktop] client resize terminal=t7 cols={int 20..200}\n" +
			"step\nhost emit terminal=t7 text={edge 0..1048576 48}\n" + sync))
		Expect(text).To(ContainSubstring("-- event delayed-CH-emit weight=1 --\ntap delay C>H {one 2ms 20ms 100ms} jitter={one 0s 10ms 50ms}\n" +
			"host emit terminal=t7 text={utf8 0..4096}\n" + sync + "tap delay C>H 0s\n"))
		Expect(text).To(ContainSubstring("tap hold H>C\nhost emit terminal=t7 text={edge 0..1048576 48}\ntap release H>C\n" + sync))
	})

	It("leaves out an action whose id the setup never opens, and writes nothing when none is left", func() {
		session := explore.Base{Name: "session", Kinds: "session", Header: []string{"kind session"}, Setup: []string{"client hello"}}
		sess := explore.Driver{Role: "client", Kind: "session", Actions: []string{"stop"}}
		Expect(explore.Text(session, []explore.Driver{host, sess}, streams, 0)).To(ContainSubstring("host-beep"))
		noBeep := host
		noBeep.Params = map[string][]driver.Param{"emit": host.Params["emit"]}
		Expect(explore.Text(session, []explore.Driver{noBeep, sess}, streams, 0)).To(BeNil())
	})

	It("leaves the connections quiet for half and most of the quiet period the contract declares, and past it, then settles", func() {
		text := string(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 3*time.Second))
		sync := "client type terminal=t7 text={fresh explore- as=mk1}\nawait host input text={tail mk1 64}\n" +
			"host emit terminal=t7 text={fresh explore- as=mk2}\nawait client screen text={tail mk2 64}\n"
		Expect(text).To(ContainSubstring("-- event idle weight=1 --\nidle for={one 1.5s 2.7s}\n" + sync))
		// Past it, judged against the references alone: either peer may close the
		// connections now.
		Expect(text).To(ContainSubstring("-- event idle-past-quiet weight=1 differential --\nidle for={one 4.5s 6s}\n" + sync))
		g, err := fuzz.Parse("explore-terminal.txtar", []byte(text))
		Expect(err).NotTo(HaveOccurred())
		for _, e := range g.Events {
			Expect(e.Differential).To(Equal(e.Name == "idle-past-quiet"), e.Name)
		}
		Expect(string(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 0))).NotTo(ContainSubstring("idle"))
	})

	It("draws only what a driver both announces and describes", func() {
		h := host
		h.Actions = []string{"emit", "stop"}
		text := string(explore.Text(base, []explore.Driver{h}, streams, 0))
		Expect(text).NotTo(ContainSubstring("beep"))
		Expect(text).To(ContainSubstring("host-emit"))
	})

	It("draws journeys the vocabulary accepts, with values at each limit", func() {
		g := parse(explore.Text(base, []explore.Driver{host, desktop, mobile}, streams, 0))
		lengths := map[int]bool{}
		for i := 1; i <= 60; i++ {
			c, err := fuzz.Draw([]*fuzz.Generator{g}, 5, i, fuzz.Options{})
			Expect(err).NotTo(HaveOccurred())
			j, err := c.Journey("case.txtar")
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(j)).To(Succeed())
			for _, s := range j.Steps {
				for _, cmd := range s.Commands {
					if cmd.Verb == "host" && cmd.Positional()[0] == "emit" {
						t, _ := cmd.Get("text")
						lengths[len(t)] = true
					}
				}
			}
		}
		Expect(lengths).To(HaveKey(47))
		Expect(lengths).To(HaveKey(48))
		Expect(lengths).To(HaveKey(49))
	})
})

var _ = Describe("bases", func() {
	It("takes a journey's header and first step as the setup", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "notes.txtar")
		Expect(os.WriteFile(path, []byte("# notes\nkind *\ntimeout 7s\n\n-- script --\nstep open\nclient open\n# a comment\n[window] await client opened\n\nstep put\nclient put id=n1\n-- frames --\nH>C opened\nignore H>C keepalive\nignore C>H ping\n"), 0o644)).To(Succeed())
		j, err := journeys.Load(path)
		Expect(err).NotTo(HaveOccurred())
		b, err := explore.BaseOfJourney(j)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Kinds).To(Equal("*"))
		Expect(b.Header).To(Equal([]string{"kind *", "timeout 7s"}))
		Expect(b.Setup).To(Equal([]string{"client open", "[window] await client opened"}))
		Expect(b.Frames).To(Equal("ignore H>C keepalive\nignore C>H ping\n"), "the ignore lines, not the golden frame list")
	})

	It("takes a generator's header, setup, finish and frames", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "term.txtar")
		Expect(os.WriteFile(path, []byte("kind desktop\ntimeout 9s\nevents 1..3\npack 16\n-- setup --\nclient open terminal=t1\n-- event e --\nhost emit terminal=t1 text={ascii 1..3}\n-- finish --\nclient close terminal=t1\n-- frames --\nignore C>H Ack\n"), 0o644)).To(Succeed())
		g, err := fuzz.Load(path)
		Expect(err).NotTo(HaveOccurred())
		b, err := explore.BaseOfGenerator(g)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(Equal(explore.Base{Name: "term", Kinds: "desktop", Header: []string{"kind desktop", "timeout 9s"},
			Setup: []string{"client open terminal=t1"}, Finish: []string{"client close terminal=t1"}, Frames: "ignore C>H Ack\n", Pack: 16}))
	})
})

var _ = Describe("whole journeys", func() {
	// Every journey of the example subjects, run whole under a drawn schedule: the case is
	// the journey, step for step, with the schedule's lines and nothing else added.
	files, _ := filepath.Glob("../../../examples/*/journeys/*.txtar")
	It("finds the example subjects' journeys", func() { Expect(len(files)).To(BeNumerically(">=", 5)) })
	for _, file := range files {
		It("runs "+file+" whole as a case, the schedule apart", func() {
			j, err := journeys.Load(file)
			Expect(err).NotTo(HaveOccurred())
			text, err := explore.WholeJourney(j)
			Expect(err).NotTo(HaveOccurred())
			g, err := fuzz.Parse("explore-"+j.Name+".txtar", text)
			Expect(err).NotTo(HaveOccurred(), "%s", text)
			c, err := fuzz.Draw([]*fuzz.Generator{g}, 5, 1, fuzz.Options{})
			Expect(err).NotTo(HaveOccurred())
			c.Schedule = fuzz.Schedule{Settle: fuzz.SettleNone, Lag: [2]fuzz.Lag{{}, {D: time.Millisecond}}}
			got, err := c.Journey("case.txtar")
			Expect(err).NotTo(HaveOccurred(), "%s", c.Text())
			Expect(got.Unsettled).To(BeTrue())
			Expect(got.Kinds).To(Equal(j.Kinds))
			Expect(lines(got.Frames)).To(Equal(lines(j.Frames)))
			Expect(lines(got.Ignore)).To(Equal(lines(j.Ignore)))
			Expect(got.Steps).To(HaveLen(len(j.Steps)))
			for i, s := range j.Steps {
				Expect(got.Steps[i].Name).To(Equal(s.Name))
				cmds := got.Steps[i].Commands
				if i == 0 {
					Expect(cmds[0].Verb).To(Equal("tap"), "the schedule's delay opens the first step")
					cmds = cmds[1:]
				}
				Expect(cmds).To(HaveLen(len(s.Commands)))
				for k := range s.Commands {
					Expect(cmds[k].Verb).To(Equal(s.Commands[k].Verb))
					Expect(cmds[k].Args).To(Equal(s.Commands[k].Args), "%s step %s command %d", file, s.Name, k+1)
				}
			}
		})
	}
})

// lines are frame lines without their line numbers.
func lines(fs []journeys.FrameLine) []journeys.FrameLine {
	out := slices.Clone(fs)
	for i := range out {
		out[i].Line = 0
	}
	return out
}
