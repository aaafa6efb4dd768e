package coreguard

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"maps"
	"math"
	"path"
	"slices"
	"strings"
)

// The diagram's boxes: where each group of Architecture is drawn. The flow's steps make the
// middle row, left to right; what drives them (adopt, the command, the public API) the row
// above; the public kits every layer uses, and the specs' helpers and tools, the row below.
var places = map[string]struct{ row, x int }{
	"adopt":   {0, 165},
	"cmd":     {0, 455},
	"api":     {0, 745},
	"docs":    {0, 1180},
	"declare": {1, 20},
	"build":   {1, 310},
	"run":     {1, 600},
	"nightly": {1, 890},
	"after":   {1, 1180},
	"kits":    {2, 20},
	"testkit": {2, 900},
	"tools":   {2, 1160},
}

const (
	boxWidth  = 220
	kitsWidth = 850 // under declare, build and run: their imports of it drop straight down
	canvas    = 1420
	lineStep  = 15 // a package's line in a box
	rowGap    = 190
	header    = 30 // the title and the flow's caption
)

// lanes are the gaps of the middle row an arrow from the row above takes down to kits,
// by the group it leaves from.
var lanes = map[string]float64{"adopt": 275, "cmd": 565, "api": 855}

// box is one group drawn.
type box struct {
	g          Group
	flow       int // the group's place in the flow (declare 0 … after 4), -1 outside it
	row        int
	x, y, w, h float64
	folder     string
	lines      []string // its packages, "layer path"
	caption    []string
}

func (b *box) cx() float64 { return b.x + b.w/2 }
func (b *box) cy() float64 { return b.y + b.h/2 }

// edge is the imports from one group's packages into another's.
type edge struct {
	from, to *box
	n        int
}

// flowGroups are the steps of a run, in order.
var flowGroups = []string{"declare", "build", "run", "nightly", "after"}

// Diagram draws the layout as an SVG picture: a box per group with its packages and their
// layers, and an arrow from a group to each group its packages import (the real graph,
// counted by package imports). The same layout and graph draw the same bytes.
func Diagram(g Graph, l Layout) ([]byte, error) {
	boxes := map[string]*box{}
	for _, grp := range l.Groups {
		p, ok := places[grp.Name]
		if !ok {
			return nil, fmt.Errorf("group %s has no place in the diagram: add it to coreguard's places", grp.Name)
		}
		boxes[grp.Name] = &box{g: grp, flow: slices.Index(flowGroups, grp.Name), row: p.row, x: float64(p.x), w: boxWidth,
			caption: wrap(grp.About, 34)}
	}
	if k := boxes["kits"]; k != nil {
		k.w = kitsWidth
	}
	group := map[string]string{}
	byGroup := map[string][]Package{}
	for _, p := range l.Packages {
		group[p.Path] = p.Group
		byGroup[p.Group] = append(byGroup[p.Group], p)
	}
	for name, b := range boxes {
		pkgs := byGroup[name]
		slices.SortFunc(pkgs, func(a, b Package) int { return cmp.Or(cmp.Compare(a.Layer, b.Layer), strings.Compare(a.Path, b.Path)) })
		b.folder = folder(pkgs)
		for _, p := range pkgs {
			b.lines = append(b.lines, fmt.Sprintf("%d %s", p.Layer, shortName(p.Path, b.folder)))
		}
	}
	if k := boxes["kits"]; k != nil && len(k.lines) > 0 { // kits is wide: its packages on one line
		k.lines = []string{strings.Join(k.lines, "   ")}
	}

	// Rows: each as tall as its tallest box; the row below starts a gap lower.
	y := float64(header + 40)
	for row := range 3 {
		tallest := 0.0
		for _, b := range boxes {
			if b.row == row {
				b.h = float64(42 + lineStep*len(b.caption) + 6 + lineStep*len(b.lines))
				tallest = max(tallest, b.h)
			}
		}
		for _, b := range boxes {
			if b.row == row {
				b.y = y
				if row == 1 {
					b.h = tallest
				}
			}
		}
		y += tallest + rowGap
	}
	height := y - rowGap + 70

	// Edges between groups, counted by package imports.
	counts := map[[2]string]int{}
	for _, pkg := range sortedKeys(g) {
		for _, imp := range sortedUnique(g[pkg]) {
			a, b := group[pkg], group[imp]
			if a != "" && b != "" && a != b && boxes[a] != nil && boxes[b] != nil {
				counts[[2]string{a, b}]++
			}
		}
	}
	var edges []*edge
	for _, k := range slices.SortedFunc(maps.Keys(counts), func(a, b [2]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
	}) {
		edges = append(edges, &edge{from: boxes[k[0]], to: boxes[k[1]], n: counts[k]})
	}

	var svg bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&svg, format, args...) }
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="Helvetica, Arial, sans-serif">`+"\n", canvas, height, canvas, height)
	w(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	w(`<text x="20" y="28" font-size="18" font-weight="bold">skewtest: from the repository to the report</text>` + "\n")
	w(`<text x="20" y="50" font-size="13" fill="#444">The middle row is the flow of a run, left to right: %s. An arrow A → B: packages of A import packages of B (how many imports).</text>`+"\n",
		html.EscapeString(strings.Join(flowGroups, " → ")))

	ports := assignPorts(edges)
	for _, e := range edges {
		drawEdge(w, e, ports)
	}
	for _, name := range groupNames(l) {
		drawBox(w, boxes[name])
	}
	w(`<text x="20" y="%.0f" font-size="12" fill="#444">The number before a package is its layer (internal/testkit/coreguard.Architecture): a package imports only its own layer or lower. Orange: an import against the flow.</text>`+"\n", height-38)
	w(`<text x="20" y="%.0f" font-size="12" fill="#444">Generated by make architecture from the table and go list; a docs spec fails when it is stale.</text>`+"\n", height-20)
	w("</svg>\n")
	return svg.Bytes(), nil
}

// against reports whether an edge points against the flow: a step importing a later one.
func (e *edge) against() bool { return e.from.flow >= 0 && e.to.flow >= 0 && e.from.flow < e.to.flow }

// arc reports whether an edge is drawn as an arc along the middle row: both ends in it.
func (e *edge) arc() bool { return e.from.row == 1 && e.to.row == 1 }

// lane is the x of the middle row's gap an edge from the row above to kits takes, or 0.
func (e *edge) lane() float64 {
	if e.from.row == 0 && e.to.g.Name == "kits" {
		return lanes[e.from.g.Name]
	}
	return 0
}

type point struct{ x, y float64 }

// port is where an edge leaves or enters a box.
type portKey struct {
	e    *edge
	from bool
}

// assignPorts spreads the ends of the edges on each side of each box, ordered by where the
// other end is, so that arrows do not share a point.
func assignPorts(edges []*edge) map[portKey]point {
	type end struct {
		k     portKey
		other float64
	}
	sides := map[string][]end{} // "group/side"
	out := map[portKey]point{}
	for _, e := range edges {
		for _, from := range []bool{true, false} {
			b, o := e.from, e.to
			if !from {
				b, o = e.to, e.from
			}
			k := portKey{e, from}
			if lx := e.lane(); lx != 0 {
				if from {
					out[k] = point{lx, b.y + b.h}
				} else {
					out[k] = point{lx, b.y}
				}
				continue
			}
			var side string
			switch {
			case e.arc() && e.against():
				side = "top"
			case e.arc():
				side = "bottom"
			case b.row == o.row && o.x < b.x:
				side = "left"
			case b.row == o.row:
				side = "right"
			case o.row < b.row:
				side = "top"
			default:
				side = "bottom"
			}
			other := o.cx()
			if side == "left" || side == "right" {
				other = o.cy()
			}
			sides[b.g.Name+"/"+side] = append(sides[b.g.Name+"/"+side], end{k, other})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(sides)) {
		ends := sides[key]
		slices.SortStableFunc(ends, func(a, b end) int { return cmp.Compare(a.other, b.other) })
		_, side, _ := strings.Cut(key, "/")
		b := ends[0].k.e.to
		if ends[0].k.from {
			b = ends[0].k.e.from
		}
		for i, en := range ends {
			f := float64(i+1) / float64(len(ends)+1)
			switch side {
			case "top":
				out[en.k] = point{b.x + b.w*(0.1+0.8*f), b.y}
			case "bottom":
				out[en.k] = point{b.x + b.w*(0.1+0.8*f), b.y + b.h}
			case "left":
				out[en.k] = point{b.x, b.y + b.h*(0.2+0.6*f)}
			case "right":
				out[en.k] = point{b.x + b.w, b.y + b.h*(0.2+0.6*f)}
			}
		}
	}
	return out
}

func drawEdge(w func(string, ...any), e *edge, ports map[portKey]point) {
	p0, p2 := ports[portKey{e, true}], ports[portKey{e, false}]
	color := "#8a8a8a"
	if e.against() {
		color = "#d9822b"
	}
	width := 1.2 + math.Min(float64(e.n), 16)/6
	var label, tip, dir point
	switch {
	case e.arc():
		span := math.Abs(float64(e.to.flow - e.from.flow))
		lift := 30 + 48*span // below the row, the arcs of longer spans go deeper
		if e.against() {
			lift = -(40 + 28*span)
		}
		c := point{(p0.x + p2.x) / 2, (p0.y+p2.y)/2 + lift}
		w(`<path d="M%.1f %.1f Q%.1f %.1f %.1f %.1f" fill="none" stroke="%s" stroke-width="%.1f"/>`+"\n", p0.x, p0.y, c.x, c.y, p2.x, p2.y, color, width)
		label = point{0.25*p0.x + 0.5*c.x + 0.25*p2.x, 0.25*p0.y + 0.5*c.y + 0.25*p2.y}
		tip, dir = p2, point{p2.x - c.x, p2.y - c.y}
	case e.lane() != 0:
		w(`<path d="M%.1f %.1f L%.1f %.1f" fill="none" stroke="%s" stroke-width="%.1f"/>`+"\n", p0.x, p0.y, p2.x, p2.y, color, width)
		label = point{p0.x, p0.y + 40}
		tip, dir = p2, point{0, 1}
	default:
		w(`<path d="M%.1f %.1f L%.1f %.1f" fill="none" stroke="%s" stroke-width="%.1f"/>`+"\n", p0.x, p0.y, p2.x, p2.y, color, width)
		label = point{(p0.x + p2.x) / 2, (p0.y + p2.y) / 2}
		tip, dir = p2, point{p2.x - p0.x, p2.y - p0.y}
	}
	n := math.Hypot(dir.x, dir.y)
	ux, uy := dir.x/n, dir.y/n
	const head, half = 10.0, 4.5
	w(`<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s"/>`+"\n", tip.x, tip.y,
		tip.x-head*ux-half*uy, tip.y-head*uy+half*ux, tip.x-head*ux+half*uy, tip.y-head*uy-half*ux, color)
	w(`<text x="%.1f" y="%.1f" font-size="11" fill="%s" text-anchor="middle" stroke="#ffffff" stroke-width="3" paint-order="stroke">%d</text>`+"\n", label.x, label.y+4, color, e.n)
}

func drawBox(w func(string, ...any), b *box) {
	fill, stroke := "#f4f4f4", "#9a9a9a"
	switch {
	case b.flow >= 0:
		fill, stroke = "#eaf2fb", "#4a78a8"
	case b.g.Name == "api" || b.g.Name == "kits":
		fill, stroke = "#eaf7ec", "#3d8a4f"
	case b.g.Name == "adopt" || b.g.Name == "cmd":
		fill, stroke = "#fbf5e8", "#b08a3e"
	}
	w(`<g>` + "\n")
	w(`<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" rx="6" fill="%s" stroke="%s" stroke-width="1.5"/>`+"\n", b.x, b.y, b.w, b.h, fill, stroke)
	w(`<text x="%.0f" y="%.0f" font-size="15" font-weight="bold">%s</text>`+"\n", b.x+10, b.y+20, html.EscapeString(b.g.Name))
	if b.folder != "" {
		w(`<text x="%.0f" y="%.0f" font-size="11" fill="#555" text-anchor="end" font-family="Menlo, Consolas, monospace">%s/</text>`+"\n", b.x+b.w-10, b.y+20, html.EscapeString(b.folder))
	}
	y := b.y + 38
	for _, c := range b.caption {
		w(`<text x="%.0f" y="%.0f" font-size="11" fill="#444" font-style="italic">%s</text>`+"\n", b.x+10, y, html.EscapeString(c))
		y += lineStep
	}
	y += 6
	for _, ln := range b.lines {
		w(`<text x="%.0f" y="%.0f" font-size="11" font-family="Menlo, Consolas, monospace">%s</text>`+"\n", b.x+10, y, packageLine(ln))
		y += lineStep
	}
	w(`</g>` + "\n")
}

// packageLine sets each "layer path" of a line with its layer in grey.
func packageLine(ln string) string {
	var parts []string
	for _, item := range strings.Split(ln, "   ") {
		layer, name, _ := strings.Cut(item, " ")
		parts = append(parts, fmt.Sprintf(`<tspan fill="#999">%s</tspan> %s`, layer, html.EscapeString(name)))
	}
	return strings.Join(parts, "    ")
}

// folder is the folder all of a group's packages are in (their directories' common
// prefix), "" when they share none.
func folder(pkgs []Package) string {
	var common []string
	for i, p := range pkgs {
		dir := strings.Split(path.Dir(p.Path), "/")
		if dir[0] == "." {
			return ""
		}
		if i == 0 {
			common = dir
			continue
		}
		n := 0
		for n < len(common) && n < len(dir) && common[n] == dir[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}

// shortName is a package's path inside its group's folder; the root by the module's name.
func shortName(p, folder string) string {
	if p == "." {
		return "skewtest (the root)"
	}
	if folder != "" {
		return strings.TrimPrefix(p, folder+"/")
	}
	return p
}

// wrap cuts text into lines of at most n characters, at spaces.
func wrap(text string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > n {
			lines = append(lines, line)
			line = word
			continue
		}
		line = strings.TrimSpace(line + " " + word)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// groupNames are the layout's groups in its order.
func groupNames(l Layout) []string {
	names := make([]string, len(l.Groups))
	for i, g := range l.Groups {
		names[i] = g.Name
	}
	return names
}
