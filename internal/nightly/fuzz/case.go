package fuzz

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/journeys"
)

// Case is one generated journey: the generator's setup, a sequence of drawn events, and
// its finish, each with the values drawn for its generator calls.
type Case struct {
	Gen *Generator
	// Seed is the campaign's seed and Index the case's number in it (1-based): together
	// they name the case and draw it again.
	Seed  int64
	Index int
	// Name is the case's journey name (unique in a campaign).
	Name   string
	Setup  *Instance
	Events []*Instance
	Finish *Instance
	// Schedule is how its traffic is timed (Options.Schedules draws it; zero otherwise).
	Schedule Schedule
}

// Instance is a section with its drawn values, one per generator call in order.
type Instance struct {
	Section *Section
	Values  []*Value
	// Step names the event's step when set (Pack sets it); else e<position>-<event>.
	Step string
	// Lag, when Lagged, is the tap's delay per direction from this event on: in a pack of
	// cases whose schedules delay differently (Pack), each case's events carry its own.
	Lag    [2]Lag
	Lagged bool
}

// Pack makes one case of several cases of one generator: the setup once, every case's
// events in order (steps c<k>-e<i>-<event>, k counting from 1 in cases), and the finish
// once, so many cases share one pairing's driver processes and connection. A packed case
// that passes means each of its cases passes (each event is self-contained: it ends at its
// own barrier); one that fails says nothing about which case, so its cases are run alone.
//
// Cases whose schedules settle alike but delay differently share a pack too: the pack's
// schedule is their settle line, and each case's delays apply from its first event to the
// next case's (tap delay lines at the start of its first step), the shared setup running
// undelayed. Its cases run alone are timed as drawn.
func Pack(name string, cases []*Case) *Case {
	first := cases[0]
	p := &Case{Gen: first.Gen, Seed: first.Seed, Index: first.Index, Name: name, Setup: first.Setup, Finish: first.Finish,
		Schedule: first.Schedule}
	mixed := slices.ContainsFunc(cases, func(c *Case) bool { return c.Schedule.Lag != first.Schedule.Lag && len(c.Events) > 0 })
	if mixed {
		p.Schedule.Lag = [2]Lag{}
	}
	for k, c := range cases {
		for i, e := range c.Events {
			ee := *e
			ee.Step = fmt.Sprintf("c%d-e%d-%s", k+1, i+1, e.Section.Name)
			if mixed {
				ee.Lag, ee.Lagged = c.Schedule.Lag, true
			}
			p.Events = append(p.Events, &ee)
		}
	}
	return p
}

// PackSchedule is what cases must share to share a pack: their schedule's settle line
// (Pack gives each case its own delays from its first event), or the whole schedule for a
// case without events (a journey run whole), whose delays have no event to start at.
func PackSchedule(c *Case) Schedule {
	if len(c.Events) == 0 {
		return c.Schedule
	}
	return Schedule{Settle: c.Schedule.Settle}
}

// Options shape the cases a campaign draws.
type Options struct {
	// Exclude names events no case draws (--exclude): names, or patterns of path.Match
	// ("held-*").
	Exclude []string
	// Schedules draws each case's Schedule (DrawSchedule): timing becomes one more
	// dimension of the case.
	Schedules bool
}

// Draw makes case index (1-based) of a campaign with seed from gens: which generator, how
// many events, which events and every value follow from (seed, index) alone, so the same
// seed gives the same case list.
func Draw(gens []*Generator, seed int64, index int, opts Options) (*Case, error) {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(index)))
	g := gens[r.IntN(len(gens))]
	var pool []*Section
	total := 0
	for _, e := range g.Events {
		if !Excluded(opts.Exclude, e.Name) {
			pool = append(pool, e)
			total += e.Weight
		}
	}
	if len(pool) == 0 && g.MaxEvents > 0 {
		return nil, fmt.Errorf("%s: every event is excluded (%s)", g.File, strings.Join(opts.Exclude, ","))
	}
	c := &Case{Gen: g, Seed: seed, Index: index, Name: fmt.Sprintf("fuzz-%s-%d", g.Name, index)}
	c.Setup = instance(g.Setup, r)
	n := g.MinEvents + r.IntN(g.MaxEvents-g.MinEvents+1)
	for range n {
		x := r.IntN(total)
		for _, e := range pool {
			if x < e.Weight {
				c.Events = append(c.Events, instance(e, r))
				break
			}
			x -= e.Weight
		}
	}
	c.Finish = instance(g.Finish, r)
	if opts.Schedules {
		c.Schedule = DrawSchedule(seed, index)
	}
	return c, nil
}

func instance(s *Section, r *rand.Rand) *Instance {
	if s == nil {
		return nil
	}
	in := &Instance{Section: s}
	for _, l := range s.Lines {
		for _, w := range l.Words {
			for _, p := range w.Parts {
				if p.Call != nil {
					in.Values = append(in.Values, &Value{Call: p.Call, Seed: r.Uint64(), N: p.Call.gen.draw(p.Call, r)})
				}
			}
		}
	}
	return in
}

// EventNames lists the case's events in order.
func (c *Case) EventNames() []string {
	var out []string
	for _, e := range c.Events {
		out = append(out, e.Section.Name)
	}
	return out
}

// Differential says the case draws an event marked differential: what it shows counts
// only where neither build shows it with itself.
func (c *Case) Differential() bool {
	for _, e := range c.Events {
		if e.Section.Differential {
			return true
		}
	}
	return false
}

// differentialEvents lists the case's events marked differential, in order.
func (c *Case) differentialEvents() []string {
	var out []string
	for _, e := range c.Events {
		if e.Section.Differential {
			out = append(out, e.Section.Name)
		}
	}
	return out
}

// differentialMark opens the comment line of a case's journey that names its differential
// events: the journey carries the marking wherever it goes (the corpus, a shrunk case), so
// a campaign replaying it judges it as the case was judged.
const differentialMark = "# differential: "

// MarkedDifferential says a case's journey text (Text) draws a differential event: its
// header, before the script, has the line Text writes for one.
func MarkedDifferential(text []byte) bool {
	for _, l := range strings.Split(string(text), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "-- ") {
			return false // the header ends at the first section
		}
		if strings.HasPrefix(l, differentialMark) && strings.TrimSpace(l[len(differentialMark):]) != "" {
			return true
		}
	}
	return false
}

// Clone copies the case deeply enough that a shrinker may change its events and values.
func (c *Case) Clone() *Case {
	d := *c
	cp := func(in *Instance) *Instance {
		if in == nil {
			return nil
		}
		o := &Instance{Section: in.Section, Step: in.Step, Lag: in.Lag, Lagged: in.Lagged}
		for _, v := range in.Values {
			vv := *v
			o.Values = append(o.Values, &vv)
		}
		return o
	}
	d.Setup, d.Finish = cp(c.Setup), cp(c.Finish)
	d.Events = nil
	for _, e := range c.Events {
		d.Events = append(d.Events, cp(e))
	}
	return &d
}

// Text writes the case as a journey file.
func (c *Case) Text() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: case %d of seed %d, generator %s (%s)\n", c.Name, c.Index, c.Seed, c.Gen.Name, c.Gen.File)
	fmt.Fprintf(&b, "# events: %s\n", strings.Join(c.EventNames(), " "))
	if d := c.differentialEvents(); len(d) > 0 {
		fmt.Fprintf(&b, "%s%s\n", differentialMark, strings.Join(d, " "))
	}
	for _, h := range c.Gen.Header {
		b.WriteString(h + "\n")
	}
	for _, h := range c.Schedule.header() {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n-- script --\n")
	bind := map[string][]byte{}
	fresh := 0
	// The schedule's tap lines open the first step, before anything crosses; a packed
	// case's own delays (Instance.Lag) open its first event's step.
	timed := false
	lag := c.Schedule.Lag
	var pending []string
	stepLine := func(name string) {
		fmt.Fprintf(&b, "step %s\n", name)
		if !timed {
			timed = true
			for _, l := range c.Schedule.tapLines() {
				b.WriteString(l + "\n")
			}
		}
		for _, l := range pending {
			b.WriteString(l + "\n")
		}
		pending = nil
	}
	write := func(in *Instance, step string) {
		if in == nil {
			return
		}
		if len(in.Section.Lines) == 0 || in.Section.Lines[0].Step == "" {
			stepLine(step)
		}
		next := 1 // an event's bare step lines: its steps step.2, step.3, …
		vals := in.Values
		local := map[string][]byte{}
		for k, v := range bind {
			local[k] = v
		}
		for _, l := range in.Section.Lines {
			if l.Step == NextStep {
				next++
				stepLine(fmt.Sprintf("%s.%d", step, next))
				continue
			}
			if l.Step != "" {
				stepLine(l.Step)
				continue
			}
			var words []string
			for _, w := range l.Words {
				words = append(words, renderWord(w, &vals, local, &fresh))
			}
			b.WriteString(strings.Join(words, " ") + "\n")
		}
		if in.Section == c.Gen.Setup {
			bind = local
		}
	}
	write(c.Setup, "setup")
	for i, e := range c.Events {
		step := e.Step
		if step == "" {
			step = fmt.Sprintf("e%d-%s", i+1, e.Section.Name)
		}
		if e.Lagged && e.Lag != lag {
			pending = lagLines(lag, e.Lag)
			lag = e.Lag
		}
		write(e, step)
	}
	write(c.Finish, "finish")
	if c.Gen.Frames != "" {
		b.WriteString("-- frames --\n" + c.Gen.Frames)
	}
	return []byte(b.String())
}

// renderWord writes one word: a word holding a text generator becomes a Go-quoted string
// expression (its literal parts quoted too); other generators are written as bare words.
func renderWord(w Word, vals *[]*Value, bind map[string][]byte, fresh *int) string {
	// A word is text when it holds a text generator or a quoted string: then every part,
	// bare generated words included, is one string expression.
	text := false
	for _, p := range w.Parts {
		if (p.Call != nil && p.Call.gen.text) || (p.Call == nil && isStringExpr(p.Lit)) {
			text = true
		}
	}
	var out strings.Builder
	var all []piece
	for _, p := range w.Parts {
		if p.Call == nil {
			if text {
				lit := strings.TrimSuffix(strings.TrimPrefix(p.Lit, "+"), "+")
				pc := piece{s: lit, n: 1}
				if strings.HasPrefix(lit, `"`) {
					if s, err := evalLit(lit); err == nil {
						pc = piece{s: s, n: 1, expr: lit}
					}
				}
				all = append(all, pc)
			} else {
				out.WriteString(p.Lit)
			}
			continue
		}
		v := (*vals)[0]
		*vals = (*vals)[1:]
		ps, word := v.render(bind, fresh)
		var got []byte
		switch {
		case p.Call.gen.text:
			all = append(all, ps...)
			got = join(ps)
		case text:
			all = append(all, piece{s: word, n: 1})
			got = []byte(word)
		default:
			out.WriteString(word)
			got = []byte(word)
		}
		if p.Call.As != "" {
			bind[p.Call.As] = got
		}
	}
	s := out.String()
	if text {
		s = quote(all)
	}
	if w.Key != "" {
		return w.Key + "=" + s
	}
	return s
}

// isStringExpr reports whether literal text is (part of) a journey string expression:
// a quoted string, or + joining one to a generator. JSON text ({"k":…}) is not.
func isStringExpr(lit string) bool {
	return strings.HasPrefix(lit, `"`) || strings.HasPrefix(lit, "+") || strings.HasSuffix(lit, "+")
}

// evalLit reads a literal written as a journey string expression.
func evalLit(s string) (string, error) {
	j, err := journeys.Parse("lit", []byte("kind *\n-- script --\nstep s\nx v="+s+"\n"))
	if err != nil {
		return "", err
	}
	return j.Steps[0].Commands[0].Args[0].Value, nil
}

// Journey parses the case's text as a journey named after the case; file names it in
// errors and repro lines.
func (c *Case) Journey(file string) (*journeys.Journey, error) {
	j, err := journeys.Parse(file, c.Text())
	if err != nil {
		return nil, err
	}
	j.Name = c.Name
	return j, nil
}

// EventOfStep is the event a case's step belongs to: Text names an event's step
// e<i>-<event>, and Pack c<k>-e<i>-<event>, and the steps an event goes on in (bare step
// lines) the same with .<n> (an event name holds no dot). Any other step (the setup, the
// finish, a step a section names itself) belongs to none: "".
func EventOfStep(step string) string {
	s := step
	if base, n, ok := strings.Cut(s, "."); ok && digits(n) {
		s = base
	}
	if rest, ok := strings.CutPrefix(s, "c"); ok {
		if n, after, ok := strings.Cut(rest, "-"); ok && digits(n) {
			s = after
		}
	}
	rest, ok := strings.CutPrefix(s, "e")
	if !ok {
		return ""
	}
	n, event, ok := strings.Cut(rest, "-")
	if !ok || !digits(n) {
		return ""
	}
	return event
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Excluded says whether event is one of exclude: a name, or a pattern of path.Match.
func Excluded(exclude []string, event string) bool {
	for _, x := range exclude {
		if ok, _ := path.Match(x, event); ok || x == event {
			return true
		}
	}
	return false
}
