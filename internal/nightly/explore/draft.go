// Package explore draws journeys that nobody scripted: from the vocabulary the working
// tree's drivers describe in their hello (each action's parameters, their bounds, limits and
// the streams they feed) and from the contract's streams, it writes fuzz generators whose
// events are every described action with random values and with values at the edges (empty,
// one, just below, at and above each declared limit, the largest allowed, text in every
// UTF-8 width with a code point across each limit), and the tap's faults. The fuzz engine
// (package campaign) runs them with the product's own generators mixed in; the oracle is
// the one that needs no golden: the differential comparison with both references, the
// contract's invariants and its streams. It knows no product (docs/explore.md).
package explore

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
)

// Driver is what one of the working tree's drivers announced in its hello.
type Driver struct {
	Role    string // "host" or "client"
	Kind    string // the client's kind; "" for the host
	Actions []string
	// Params describes actions' parameters: explore draws only described actions.
	Params map[string][]driver.Param
}

// Base is where a drawn journey starts and ends: a product's generator's (or else a
// journey's first step's) setup, which opens what the actions act on, with its header.
type Base struct {
	Name string
	// Kinds are the client kinds, as a kind line writes them ("desktop,mobile", "*").
	Kinds string
	// Header holds the kind, timeout and quiet lines.
	Header []string
	// Setup and Finish are script lines, as written; Frames is the frames section.
	Setup, Finish []string
	Frames        string
	// Pack is the base generator's pack line (0: none): its drawn cases are the same kind's
	// actions, as cheap as its own, and share journeys as many at a time.
	Pack int
}

// BaseOfGenerator is a product's generator's header, setup, finish and frames.
func BaseOfGenerator(g *fuzz.Generator) (Base, error) {
	data, err := os.ReadFile(g.File)
	if err != nil {
		return Base{}, fmt.Errorf("generator %s: %w", g.File, err)
	}
	b := Base{Name: g.Name, Kinds: g.Kinds, Header: g.Header, Frames: g.Frames, Pack: g.Pack}
	for _, f := range txtar.Parse(data).Files {
		switch strings.TrimSpace(f.Name) {
		case "setup":
			b.Setup = scriptLines(f.Data)
		case "finish":
			b.Finish = scriptLines(f.Data)
		}
	}
	return b, nil
}

// BaseOfJourney is a journey's header and its first step, as the setup, with its ignore
// lines: a frame the journey leaves out of the sequence (a keepalive on a timer) is left
// out of every case drawn from it too.
func BaseOfJourney(j *journeys.Journey) (Base, error) {
	data, err := os.ReadFile(j.File)
	if err != nil {
		return Base{}, fmt.Errorf("journey %s: %w", j.File, err)
	}
	b := Base{Name: j.Name, Kinds: strings.Join(j.Kinds, ",")}
	for _, fl := range j.Ignore {
		b.Frames += "ignore " + fl.Dir + " " + fl.Name + "\n"
	}
	b.Header = append(b.Header, "kind "+b.Kinds)
	if j.Timeout > 0 {
		b.Header = append(b.Header, "timeout "+j.Timeout.String())
	}
	for _, f := range txtar.Parse(data).Files {
		if strings.TrimSpace(f.Name) != "script" {
			continue
		}
		steps := 0
		for _, l := range scriptLines(f.Data) {
			if strings.HasPrefix(l, "step ") || l == "step" {
				if steps++; steps > 1 {
					break
				}
				continue
			}
			if steps == 1 {
				b.Setup = append(b.Setup, l)
			}
		}
	}
	return b, nil
}

// scriptLines are a section's lines without comments and blank lines.
func scriptLines(data []byte) []string {
	var out []string
	for _, l := range journeys.Lines(data) {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// action is one described action of a role and the kinds whose drivers describe it.
type action struct {
	role, name string
	params     []driver.Param
	kinds      []string // the base's client kinds describing it; nil for the host's
}

// Text is the generator file explore writes for a base: its header, setup, finish and
// frames, and events drawn from the described vocabulary of the drivers of its kinds (and
// the host's), each ending on a stream marker where a described parameter feeds one of
// streams; with quiet (the shortest quiet period the contract declares, 0 for none), an
// event that leaves the connections quiet for half of it or most of it, and a differential
// one that leaves them quiet past it (one and a half times it, or twice). It is nil when
// the drivers describe nothing the base can use.
func Text(b Base, drivers []Driver, streams []contract.StreamSpec, quiet time.Duration) []byte {
	kinds := baseKinds(b, drivers)
	ids := setupIDs(b.Setup)
	acts := described(drivers, kinds, ids)
	if len(acts) == 0 {
		return nil
	}
	sync := syncLines(acts, streams, kinds, ids)
	var w bytes.Buffer
	fmt.Fprintf(&w, "# explore-%s: drawn from the drivers' described vocabulary, with the setup of %s\n", b.Name, b.Name)
	for _, h := range b.Header {
		fmt.Fprintln(&w, h)
	}
	fmt.Fprintln(&w, "events 1..6")
	if b.Pack > 0 {
		fmt.Fprintf(&w, "pack %d\n", b.Pack)
	}
	section := func(name string, lines []string) {
		fmt.Fprintf(&w, "\n-- %s --\n", name)
		for _, l := range lines {
			fmt.Fprintln(&w, l)
		}
	}
	section("setup", b.Setup)
	for _, a := range acts {
		section("event "+a.event()+" weight=2", append(a.lines(ids, false), sync...))
		if a.hasEdges() {
			section("event "+a.event()+"-edge weight=2", append(a.lines(ids, true), sync...))
		}
	}
	if len(sync) > 0 {
		// What an action that feeds no stream leaves behind (a new snapshot, size or state)
		// meets the next output at its edges: the first bytes after it are the smallest (0,
		// 1 byte) or the largest a feeding action takes, not the markers' (a resume point
		// one byte off shows only on a one-byte output right after the snapshot).
		for _, a := range acts {
			if _, _, ok := feeds(a, streams); ok {
				continue
			}
			for _, f := range feeding(acts, streams) {
				lines := append(a.lines(ids, false), f.lines(ids, true)...)
				section("event "+a.event()+"-then-"+f.name+" weight=1", append(lines, sync...))
				// The same, with the feeding action in a step of its own once the action's
				// has ended (its replies in, and what the references owe): its output
				// comes after everything the action caused (a snapshot the action asked
				// for), not while that is still on its way.
				lines = append(append(a.lines(ids, false), "step"), f.lines(ids, true)...)
				section("event "+a.event()+"-settled-then-"+f.name+" weight=1", append(lines, sync...))
			}
		}
		// Faults: the tap stops reading one direction while the sender writes, then lets
		// it through; it cuts one direction's messages into frames; it makes one late.
		for _, f := range feeding(acts, streams) {
			for _, dir := range contract.Directions {
				lines := append([]string{"tap hold " + dir}, f.lines(ids, true)...)
				lines = append(lines, "tap release "+dir)
				section("event held-"+strings.ReplaceAll(dir, ">", "")+"-"+f.name+" weight=1", append(lines, sync...))
			}
		}
		// Fragmentation: one direction's messages in continuation frames, written a few
		// bytes at a time, while an action that feeds a stream and its markers cross.
		for _, f := range feeding(acts, streams) {
			for _, dir := range contract.Directions {
				lines := append([]string{"tap fragment " + dir + " {one 1 7 1000} writes={one 0 1 5}"}, f.lines(ids, false)...)
				lines = append(append(lines, sync...), "tap fragment "+dir+" 0")
				section("event fragmented-"+strings.ReplaceAll(dir, ">", "")+"-"+f.name+" weight=1", lines)
			}
		}
		// Latency: one direction late, with jitter, while an action and its markers cross.
		for _, f := range feeding(acts, streams) {
			for _, dir := range contract.Directions {
				lines := append([]string{"tap delay " + dir + " {one 2ms 20ms 100ms} jitter={one 0s 10ms 50ms}"}, f.lines(ids, false)...)
				lines = append(append(lines, sync...), "tap delay "+dir+" 0s")
				section("event delayed-"+strings.ReplaceAll(dir, ">", "")+"-"+f.name+" weight=1", lines)
			}
		}
	}
	if quiet > 0 {
		// Quiet connections, within what the contract lets no peer close as idle.
		half, most := (quiet / 2).Round(time.Millisecond), (quiet * 9 / 10).Round(time.Millisecond)
		section("event idle weight=1", append([]string{"idle for={one " + half.String() + " " + most.String() + "}"}, sync...))
		// Quiet connections past it: a peer may close them now, so a case that draws this
		// is judged against the references alone (differential): it finds a peer that
		// closes a connection a peer of another release keeps quiet, never one that closes
		// it with its own release too.
		past, twice := (quiet * 3 / 2).Round(time.Millisecond), 2*quiet
		section("event idle-past-quiet weight=1 differential", append([]string{"idle for={one " + past.String() + " " + twice.String() + "}"}, sync...))
	}
	if len(b.Finish) > 0 {
		section("finish", b.Finish)
	}
	if b.Frames != "" {
		fmt.Fprintf(&w, "\n-- frames --\n%s", b.Frames)
	}
	return w.Bytes()
}

// baseKinds are the client kinds a base drives, by its drivers when it drives every kind.
func baseKinds(b Base, drivers []Driver) []string {
	var kinds []string
	for _, k := range strings.Split(b.Kinds, ",") {
		if k = strings.TrimSpace(k); k != journeys.AnyKind && k != "" {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) > 0 {
		return kinds
	}
	for _, d := range drivers {
		if d.Role == "client" {
			kinds = append(kinds, d.Kind)
		}
	}
	return kinds
}

// described lists the host's described actions and the clients' of kinds, sorted.
func described(drivers []Driver, kinds []string, ids map[string]string) []*action {
	var out []*action
	byName := map[string]*action{}
	for _, d := range drivers {
		if d.Role == "client" && !slices.Contains(kinds, d.Kind) {
			continue
		}
		for name, ps := range d.Params {
			if !slices.Contains(d.Actions, name) || !opened(ps, ids) {
				continue
			}
			key := d.Role + " " + name
			a := byName[key]
			if a == nil {
				a = &action{role: d.Role, name: name, params: ps}
				byName[key] = a
				out = append(out, a)
			}
			if d.Role == "client" {
				a.kinds = append(a.kinds, d.Kind)
			}
		}
	}
	slices.SortFunc(out, func(x, y *action) int { return strings.Compare(x.role+" "+x.name, y.role+" "+y.name) })
	for _, a := range out {
		slices.Sort(a.kinds)
		if len(a.kinds) == len(kinds) {
			a.kinds = nil // every kind: no condition
		}
	}
	return out
}

// opened says the setup names every id parameter's key: what the action acts on is open.
func opened(ps []driver.Param, ids map[string]string) bool {
	for _, p := range ps {
		if _, ok := ids[p.Name]; p.Type == "id" && !ok {
			return false
		}
	}
	return true
}

// setupIDs are the values the setup gave each key (terminal=t1), for id parameters.
func setupIDs(setup []string) map[string]string {
	ids := map[string]string{}
	for _, l := range setup {
		for _, w := range strings.Fields(l) {
			if k, v, ok := strings.Cut(w, "="); ok && k != "" && !strings.ContainsAny(v, `"{[`) {
				if _, seen := ids[k]; !seen {
					ids[k] = v
				}
			}
		}
	}
	return ids
}

// event names the action's events: ROLE-ACTION.
func (a *action) event() string { return a.role + "-" + a.name }

// lines are the action's script lines (one per kind when only some kinds describe it),
// with random values or, edge set, values at the edges.
func (a *action) lines(ids map[string]string, edge bool) []string {
	words := []string{a.role, a.name}
	for _, p := range a.params {
		words = append(words, p.Name+"="+value(p, ids, edge))
	}
	line := strings.Join(words, " ")
	if a.kinds == nil {
		return []string{line}
	}
	var out []string
	for _, k := range a.kinds {
		out = append(out, "[kind:"+k+"] "+line)
	}
	return out
}

// hasEdges says the action has a bounded or limited parameter, whose edges are worth an
// event of their own.
func (a *action) hasEdges() bool {
	for _, p := range a.params {
		if (p.Type == "text" || p.Type == "int") && (p.Max != 0 || p.Min != 0 || len(p.Limits) > 0) {
			return true
		}
	}
	return false
}

// Sizes explore draws when a parameter does not bound them.
const (
	randomText = 4096    // the longest random text (edges go further)
	largeText  = 1 << 20 // the largest edge of a text without a max
	anyInt     = 65535   // the largest int of one without bounds
)

// value is a parameter's value as a generator writes it.
func value(p driver.Param, ids map[string]string, edge bool) string {
	switch p.Type {
	case "text":
		lo, hi := p.Min, p.Max
		if edge {
			if hi == 0 {
				hi = largeText
				if n := slices.Max(append([]int{0}, p.Limits...)); 3*n > hi {
					hi = 3 * n
				}
			}
			w := []string{"{edge " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi)}
			for _, l := range p.Limits {
				w = append(w, strconv.Itoa(l))
			}
			return strings.Join(w, " ") + "}"
		}
		if hi == 0 || hi > randomText {
			hi = max(lo, randomText)
		}
		valid := ""
		if p.UTF8 {
			valid = " valid"
		}
		return "{utf8 " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi) + valid + "}"
	case "int":
		lo, hi := p.Min, p.Max
		if lo == 0 && hi == 0 {
			hi = anyInt
		}
		if !edge {
			return "{int " + strconv.Itoa(lo) + ".." + strconv.Itoa(hi) + "}"
		}
		var vs []string
		for _, n := range append([]int{lo, lo + 1, hi - 1, hi}, limitsAround(p.Limits)...) {
			if s := strconv.Itoa(n); n >= lo && n <= hi && !slices.Contains(vs, s) {
				vs = append(vs, s)
			}
		}
		return "{one " + strings.Join(vs, " ") + "}"
	case "bool":
		return "{one true false}"
	case "enum":
		return "{one " + strings.Join(p.Values, " ") + "}"
	case "id":
		if v, ok := ids[p.Name]; ok {
			return v
		}
	}
	return p.Example
}

func limitsAround(limits []int) []int {
	var out []int
	for _, l := range limits {
		out = append(out, l-1, l, l+1)
	}
	return out
}

// feeding lists the actions with a text parameter that feeds a stream: the ones a marker
// can follow.
func feeding(acts []*action, streams []contract.StreamSpec) []*action {
	var out []*action
	for _, a := range acts {
		if _, _, ok := feeds(a, streams); ok {
			out = append(out, a)
		}
	}
	return out
}

// feeds is the stream a's text parameter feeds, and the parameter.
func feeds(a *action, streams []contract.StreamSpec) (*contract.StreamSpec, driver.Param, bool) {
	for _, p := range a.params {
		if p.Type != "text" || p.Feeds == "" {
			continue
		}
		for i := range streams {
			if streams[i].Name == p.Feeds && streams[i].Delivered.Role != "" {
				return &streams[i], p, true
			}
		}
	}
	return nil, driver.Param{}, false
}

// syncLines end every event: on each stream that a described action feeds and every
// kind's pairing checks, a fresh marker sent and awaited where the stream is delivered, so
// what the event sent either way has arrived (or is known lost) before the next one. None
// when no described action feeds such a stream.
func syncLines(acts []*action, streams []contract.StreamSpec, kinds []string, ids map[string]string) []string {
	var out []string
	done := map[string]bool{}
	for _, a := range acts {
		s, fp, ok := feeds(a, streams)
		if !ok || a.kinds != nil || done[s.Name] {
			continue
		}
		every := true
		for _, k := range kinds {
			every = every && s.AppliesTo(k)
		}
		if !every {
			continue
		}
		done[s.Name] = true
		mark := "mk" + strconv.Itoa(len(done))
		words := []string{a.role, a.name}
		for _, p := range a.params {
			switch {
			case p.Name == fp.Name:
				words = append(words, p.Name+"={fresh explore- as="+mark+"}")
			case p.Optional:
			default:
				words = append(words, p.Name+"="+steady(p, ids))
			}
		}
		out = append(out, strings.Join(words, " "), "await "+s.Delivered.Role+" "+s.Name+" text={tail "+mark+" 64}")
	}
	return out
}

// steady is a parameter's plainest value, for a marker's other parameters.
func steady(p driver.Param, ids map[string]string) string {
	switch p.Type {
	case "int":
		return strconv.Itoa(p.Min)
	case "bool":
		return "false"
	case "enum":
		return p.Values[0]
	case "text":
		return `""`
	}
	return value(p, ids, false)
}
