package coreguard

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Module is this module's path. The layer table names packages relative to it; "." is the
// root package, github.com/skewtest/skewtest itself.
const Module = "github.com/skewtest/skewtest"

// Group is a folder of packages that reads as one step of the flow (declare, build, run…),
// or a public package's reason to be public.
type Group struct {
	Name  string
	About string // what the group owns, in a few words (the diagram's caption)
}

// Package is where one package of the module sits.
type Package struct {
	Path  string // relative to the module; "." is the root package
	Group string
	// Layer orders the packages: a package imports only packages of its own layer or of a
	// lower one.
	Layer int
	// Sealed keeps a public package off the module's internals: of this module it imports
	// only its own tree (the packages under the same top folder) and the packages in Allow.
	Sealed bool
	Allow  []string
}

// Layout is the module's architecture: its groups, and every package's group and layer.
type Layout struct {
	Groups   []Group   // the flow's steps in order, then the rest
	Packages []Package // every package of the module, by layer
}

// Group finds a group by name.
func (l Layout) Group(name string) (Group, bool) {
	i := slices.IndexFunc(l.Groups, func(g Group) bool { return g.Name == name })
	if i < 0 {
		return Group{}, false
	}
	return l.Groups[i], true
}

// Package finds a package of the table by its path relative to the module.
func (l Layout) Package(path string) (Package, bool) {
	i := slices.IndexFunc(l.Packages, func(p Package) bool { return p.Path == path })
	if i < 0 {
		return Package{}, false
	}
	return l.Packages[i], true
}

// Architecture is the one table of where every package of the module sits. The layering
// spec holds the import graph to it, docs/architecture.svg is drawn from it (make
// architecture) and docs/architecture.md describes its groups. A new package is placed here.
//
// The layers follow the real imports, which do not always follow the flow: the subject
// (declare) opens builds and checks a skewtest.yaml with the harness's own rules, so it sits
// above the harness; the matrix (run) writes reports and replays fixtures, so those of after
// sit below it.
var Architecture = Layout{
	Groups: []Group{
		{"declare", "what is tested: the subject, pins, contracts, journeys"},
		{"build", "a tree to an artifact, cached; child processes"},
		{"run", "pairings driven, tapped and checked; the matrix"},
		{"nightly", "fuzz campaigns and explore"},
		{"after", "reports, and what a run leaves is used again"},
		{"adopt", "making a product a subject"},
		{"api", "public: running skewtest from Go and go test"},
		{"kits", "public: writing drivers, reading results.json"},
		{"cmd", "the command: flags to the library, errors to exit codes"},
		{"testkit", "spec helpers"},
		{"tools", "programs of make screenshot and make architecture"},
		{"docs", "the docs' own specs"},
	},
	Packages: []Package{
		{Path: "results", Group: "kits", Layer: 0, Sealed: true},
		{Path: "driverkit", Group: "kits", Layer: 0, Sealed: true},
		{Path: "driverkit/node", Group: "kits", Layer: 0, Sealed: true},

		{Path: "internal/declare/contract", Group: "declare", Layer: 1},
		{Path: "internal/declare/journeys", Group: "declare", Layer: 1},
		{Path: "internal/declare/framing", Group: "declare", Layer: 1},
		{Path: "internal/declare/pins", Group: "declare", Layer: 1},
		{Path: "internal/declare/usage", Group: "declare", Layer: 1},

		{Path: "internal/build/proc", Group: "build", Layer: 2},
		{Path: "internal/build/shell", Group: "build", Layer: 2},
		{Path: "internal/build/builds", Group: "build", Layer: 2},
		{Path: "internal/build/builds/container", Group: "build", Layer: 2},
		{Path: "internal/build/version", Group: "build", Layer: 2},

		{Path: "internal/run/harness/transcript", Group: "run", Layer: 3},
		{Path: "internal/run/harness/tap", Group: "run", Layer: 3},
		{Path: "internal/run/harness/driver", Group: "run", Layer: 3},
		{Path: "internal/run/harness/checks", Group: "run", Layer: 3},
		{Path: "internal/run/harness/coverage", Group: "run", Layer: 3},
		{Path: "internal/run/harness/future", Group: "run", Layer: 3},
		{Path: "internal/run/harness", Group: "run", Layer: 4},

		{Path: "internal/declare/subject", Group: "declare", Layer: 5},

		{Path: "internal/after/reports", Group: "after", Layer: 6},
		{Path: "internal/after/decoders", Group: "after", Layer: 6},
		{Path: "internal/after/fixtures", Group: "after", Layer: 6},
		{Path: "internal/after/samples", Group: "after", Layer: 6},

		{Path: "internal/run/matrix", Group: "run", Layer: 7},

		{Path: "internal/nightly/fuzz", Group: "nightly", Layer: 8},
		{Path: "internal/nightly/campaign", Group: "nightly", Layer: 8},
		{Path: "internal/nightly/explore", Group: "nightly", Layer: 8},

		{Path: "internal/after/replay", Group: "after", Layer: 9},
		{Path: "internal/after/recheck", Group: "after", Layer: 9},
		{Path: "internal/after/bisect", Group: "after", Layer: 9},
		{Path: "internal/after/infer", Group: "after", Layer: 9},

		{Path: "internal/adopt/scaffold", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/doctor", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/drivercheck", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/recording", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/compat", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/example", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/example/internal/bundle", Group: "adopt", Layer: 10},
		{Path: "internal/adopt/example/internal/mkarchive", Group: "adopt", Layer: 10},

		{Path: ".", Group: "api", Layer: 11},
		{Path: "skewtesting", Group: "api", Layer: 12, Sealed: true, Allow: []string{".", "results"}},

		{Path: "cmd/skewtest", Group: "cmd", Layer: 13},

		{Path: "internal/testkit/coreguard", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/drivertest", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/proctest", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/testcache", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/testlabels", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/reportshot", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/resultstest", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/shelltest", Group: "testkit", Layer: 14},
		{Path: "internal/testkit/libhistory", Group: "testkit", Layer: 14},
		{Path: "docs", Group: "docs", Layer: 14},

		{Path: "internal/cmd/reportshot", Group: "tools", Layer: 15},
		{Path: "internal/cmd/archdiagram", Group: "tools", Layer: 15},
	},
}

// Graph is the module's import graph: each package (by its path relative to the module,
// "." for the root) and the packages of the module its non-test files import.
type Graph map[string][]string

// LoadGraph lists the module whose root is dir with go list: its packages and what their
// non-test files import of the module (specs may import more).
func LoadGraph(dir string) (Graph, error) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./... in %s: %w: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	g := Graph{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, ok := relative(fields[0])
		if !ok {
			return nil, fmt.Errorf("go list ./... in %s: %s is not a package of %s", dir, fields[0], Module)
		}
		g[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := relative(imp); ok {
				g[pkg] = append(g[pkg], rel)
			}
		}
	}
	return g, nil
}

// relative is an import path relative to the module, and whether it is one of the module's.
func relative(importPath string) (string, bool) {
	if importPath == Module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(importPath, Module+"/")
	return rel, ok
}

// Name is how messages name a package: its path relative to the module, the root by the
// module's path.
func Name(path string) string {
	if path == "." {
		return Module
	}
	return path
}

// Check holds the graph to the layout and returns what breaks it, one message each, sorted:
// a package missing from the table or a table entry that names no package; a group the
// table does not declare; an import from a lower layer to a higher one; a sealed (public)
// package importing the module's internals; an import cycle.
func Check(g Graph, l Layout) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	placed := map[string]Package{}
	for _, p := range l.Packages {
		if _, dup := placed[p.Path]; dup {
			add("the layer table places %s twice", Name(p.Path))
		}
		placed[p.Path] = p
		if _, ok := l.Group(p.Group); !ok {
			add("the layer table puts %s in group %q, which it does not declare", Name(p.Path), p.Group)
		}
		if _, ok := g[p.Path]; !ok {
			add("the layer table names %s, which is not a package of the module: remove it, or write the package", Name(p.Path))
		}
	}
	for _, pkg := range sortedKeys(g) {
		if _, ok := placed[pkg]; !ok {
			add("%s is not in the layer table (coreguard.Architecture): give it a group and a layer", Name(pkg))
		}
	}

	for _, pkg := range sortedKeys(g) {
		from, ok := placed[pkg]
		if !ok {
			continue
		}
		for _, imp := range sortedUnique(g[pkg]) {
			to, ok := placed[imp]
			if !ok {
				continue
			}
			if to.Layer > from.Layer {
				add("%s imports %s: %s (layer %d) may not import %s (layer %d)", Name(pkg), Name(imp), from.Group, from.Layer, to.Group, to.Layer)
			}
			if from.Sealed && tree(imp) != tree(pkg) && !slices.Contains(from.Allow, imp) {
				add("%s imports %s: %s is public and imports, of this module, %s", Name(pkg), Name(imp), Name(pkg), allowed(from))
			}
		}
	}

	for _, cycle := range cycles(g) {
		names := make([]string, len(cycle))
		for i, p := range cycle {
			names[i] = Name(p)
		}
		add("import cycle: %s", strings.Join(names, " → "))
	}
	slices.Sort(problems)
	return problems
}

// tree is a package's top folder: a sealed package may import its own tree.
func tree(path string) string {
	top, _, _ := strings.Cut(path, "/")
	return top
}

// allowed says what a sealed package may import of the module.
func allowed(p Package) string {
	if len(p.Allow) == 0 {
		return "nothing outside " + tree(p.Path)
	}
	names := make([]string, len(p.Allow))
	for i, a := range p.Allow {
		names[i] = Name(a)
	}
	return "only " + strings.Join(names, " and ")
}

// cycles finds the graph's import cycles: one per strongly connected component of more
// than one package (or a package importing itself), the shortest way round from the
// component's first package in sorted order.
func cycles(g Graph) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var comps [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range sortedUnique(g[v]) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > 1 || slices.Contains(g[v], v) {
			slices.Sort(comp)
			comps = append(comps, comp)
		}
	}
	for _, v := range sortedKeys(g) {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	var out [][]string
	for _, comp := range comps {
		out = append(out, shortestCycle(g, comp))
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// shortestCycle is the shortest way from comp's first package back to itself inside comp,
// found breadth first along sorted imports.
func shortestCycle(g Graph, comp []string) []string {
	start := comp[0]
	parent := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range sortedUnique(g[v]) {
			if !slices.Contains(comp, w) {
				continue
			}
			if w == start {
				path := []string{start}
				for u := v; u != start; u = parent[u] {
					path = append(path, u)
				}
				path = append(path, start)
				slices.Reverse(path[1 : len(path)-1])
				return path
			}
			if _, seen := parent[w]; !seen {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	return append(comp, start) // not reached: comp is strongly connected
}

func sortedKeys(g Graph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedUnique(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
