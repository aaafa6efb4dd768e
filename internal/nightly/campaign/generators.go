package campaign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/nightly/fuzz"
	"github.com/skewtest/skewtest/internal/run/harness"
)

func pickGenerators(gens []*fuzz.Generator, names []string) ([]*fuzz.Generator, error) {
	if len(names) == 0 {
		return gens, nil
	}
	var out []*fuzz.Generator
	var have []string
	for _, g := range gens {
		have = append(have, g.Name)
	}
	for _, n := range names {
		i := slices.Index(have, n)
		if i < 0 {
			return nil, usage.Optionf("Generators", "%s: no such generator (the subject has %s)", n, strings.Join(have, ", "))
		}
		out = append(out, gens[i])
	}
	return out, nil
}

// keepNamed keeps the generators names names (all of them when names is empty), and
// refuses nothing: a name may be one a draw makes later (pickDrawn checks every name then).
func keepNamed(gens []*fuzz.Generator, names []string) []*fuzz.Generator {
	if len(names) == 0 {
		return gens
	}
	var out []*fuzz.Generator
	for _, g := range gens {
		if slices.Contains(names, g.Name) {
			out = append(out, g)
		}
	}
	return out
}

// DrawnPrefix begins the name of a generator a draw makes from a base (explore-NAME from
// the generator or journey NAME), and WholePrefix that of one whose cases are journey
// NAME whole (journey-NAME).
const (
	DrawnPrefix = "explore-"
	WholePrefix = "journey-"
)

// pickDrawn keeps the generators names names after a draw (all when names is empty): a
// name picks the generator of that name and those drawn from it (explore-NAME,
// journey-NAME). A name that picks nothing is refused, naming what there is.
func pickDrawn(gens []*fuzz.Generator, names []string) ([]*fuzz.Generator, error) {
	if len(names) == 0 {
		return gens, nil
	}
	var out []*fuzz.Generator
	picked := map[string]bool{}
	for _, g := range gens {
		for _, n := range names {
			if g.Name == n || g.Name == DrawnPrefix+n || g.Name == WholePrefix+n {
				out, picked[n] = append(out, g), true
				break
			}
		}
	}
	for _, n := range names {
		if !picked[n] {
			var have []string
			for _, g := range gens {
				have = append(have, g.Name)
			}
			return nil, usage.Optionf("Generators", "%s: no such generator (this campaign has %s)", n, strings.Join(have, ", "))
		}
	}
	return out, nil
}

// generatorsFor keeps the generators that drive one of kinds (all of them when kinds is
// empty): Kinds desktop leaves out a generator of session cases.
func generatorsFor(gens []*fuzz.Generator, kinds []string) ([]*fuzz.Generator, error) {
	if len(kinds) == 0 {
		return gens, nil
	}
	var out []*fuzz.Generator
	for _, g := range gens {
		for _, k := range strings.Split(g.Kinds, ",") {
			if k = strings.TrimSpace(k); k == journeys.AnyKind || slices.Contains(kinds, k) {
				out = append(out, g)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, usage.Optionf("Kinds", "%s: no generator drives it (%s)", strings.Join(kinds, ","), kindsOfGens(gens))
	}
	return out, nil
}

// checkExclude refuses an Exclude entry that leaves out no event of gens: a name mistyped
// would otherwise exclude nothing, silently.
func checkExclude(gens []*fuzz.Generator, exclude []string) error {
	var events []string
	for _, g := range gens {
		for _, e := range g.Events {
			if !slices.Contains(events, e.Name) {
				events = append(events, e.Name)
			}
		}
	}
	for _, x := range exclude {
		if !slices.ContainsFunc(events, func(e string) bool { return fuzz.Excluded([]string{x}, e) }) {
			hint := ""
			if n := usage.Nearest(x, events); n != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", n)
			}
			slices.Sort(events)
			return usage.Optionf("Exclude", "%s: no event of the campaign's generators is named so%s; they draw %s", x, hint, strings.Join(events, ", "))
		}
	}
	return nil
}

// checkGenerator draws cases of g until each of its events has appeared once (or a few
// dozen tries) and validates them, so a generator that writes a bad journey is a
// configuration error before anything is built.
func checkGenerator(g *fuzz.Generator, seed int64, exclude []string) error {
	for i := 1; i <= 32; i++ {
		c, err := fuzz.Draw([]*fuzz.Generator{g}, seed, -i, fuzz.Options{Exclude: exclude})
		if err != nil {
			return usage.Errorf("%w", err)
		}
		j, err := c.Journey(g.File + " (case drawn)")
		if err == nil {
			err = harness.Validate(j)
		}
		if err != nil {
			return usage.Errorf("generator %s writes a journey the vocabulary refuses: %v\n%s", g.File, err, numbered(c.Text()))
		}
	}
	return nil
}

func numbered(text []byte) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		if len(l) > 160 {
			l = l[:160] + "…"
		}
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

func kindsOfGens(gens []*fuzz.Generator) string {
	var out []string
	for _, g := range gens {
		out = append(out, g.Name+" drives "+g.Kinds)
	}
	return strings.Join(out, "; ")
}
