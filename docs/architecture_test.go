package docs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/coreguard"
)

var _ = Describe("docs/architecture.md", func() {
	It("shows the picture make architecture draws now, from the layer table and the imports", func(ctx SpecContext) {
		g, err := coreguard.LoadGraph(root)
		Expect(err).NotTo(HaveOccurred())
		want, err := coreguard.Diagram(g, coreguard.Architecture)
		Expect(err).NotTo(HaveOccurred())
		have, err := os.ReadFile(filepath.Join(root, "docs", "architecture.svg"))
		Expect(err).NotTo(HaveOccurred())
		Expect(bytes.Equal(have, want)).To(BeTrue(), "docs/architecture.svg is stale: run make architecture")
	}, SpecTimeout(5*60e9))

	It("would be stale after one import more, and is drawn the same twice", func() {
		g := coreguard.Graph{}
		for _, p := range coreguard.Architecture.Packages {
			g[p.Path] = []string{"results"}
		}
		once, err := coreguard.Diagram(g, coreguard.Architecture)
		Expect(err).NotTo(HaveOccurred())
		again, err := coreguard.Diagram(g, coreguard.Architecture)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(once))
		g["internal/declare/pins"] = append(g["internal/declare/pins"], "internal/nightly/fuzz")
		more, err := coreguard.Diagram(g, coreguard.Architecture)
		Expect(err).NotTo(HaveOccurred())
		Expect(bytes.Equal(more, once)).To(BeFalse())
	})

	It("refuses to draw a group it has no place for", func() {
		l := coreguard.Layout{Groups: append(coreguard.Architecture.Groups, coreguard.Group{Name: "misc"}), Packages: coreguard.Architecture.Packages}
		_, err := coreguard.Diagram(coreguard.Graph{}, l)
		Expect(err).To(MatchError(ContainSubstring("group misc has no place in the diagram")))
	})

	It("has a section for every group, and a layer table that is coreguard.Architecture", func() {
		page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(disagreements(string(page), coreguard.Architecture)).To(BeEmpty())
	})

	It("finds a group without a section, a package on the wrong layer, one missing and one gone", func() {
		l := coreguard.Layout{
			Groups: []coreguard.Group{{Name: "declare"}, {Name: "run"}},
			Packages: []coreguard.Package{
				{Path: "internal/declare/pins", Group: "declare", Layer: 1},
				{Path: "internal/run/harness", Group: "run", Layer: 4},
				{Path: "internal/run/matrix", Group: "run", Layer: 7},
				{Path: ".", Group: "run", Layer: 8},
			},
		}
		page := "# A\n\n### declare: what is tested\n\n| layer | group | packages |\n|---|---|---|\n" +
			"| 1 | declare | `internal/declare/pins` |\n| 3 | run | `internal/run/harness`, `internal/run/gone` |\n" +
			"| 8 | run | `github.com/skewtest/skewtest` |\n\n### runner\n"
		Expect(disagreements(page, l)).To(Equal([]string{
			"no section (a heading starting with the group's name) for group run",
			"internal/run/harness: layer 3, run on the page; layer 4, run in coreguard.Architecture",
			"internal/run/matrix: not in the page's layer table",
			"internal/run/gone: in the page's layer table, not in coreguard.Architecture",
		}))
	})
})

var (
	layerRow = regexp.MustCompile("^\\|\\s*(\\d+)\\s*\\|\\s*([a-z]+)\\s*\\|(.*)\\|\\s*$")
	codeName = regexp.MustCompile("`([^`]+)`")
)

// disagreements compares the architecture page with the layout: a heading per group
// (starting with its name), and the layer table's rows (| layer | group | `pkg`, … |)
// placing every package where the layout does, and no other.
func disagreements(page string, l coreguard.Layout) []string {
	var out []string
	headings := map[string]bool{}
	onPage := map[string]string{}
	var order []string
	for _, line := range strings.Split(page, "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			first, _, _ := strings.Cut(m[1], ":")
			headings[strings.Fields(first + " x")[0]] = true
		}
		if m := layerRow.FindStringSubmatch(line); m != nil {
			layer, _ := strconv.Atoi(m[1])
			for _, c := range codeName.FindAllStringSubmatch(m[3], -1) {
				onPage[c[1]] = fmt.Sprintf("layer %d, %s", layer, m[2])
				order = append(order, c[1])
			}
		}
	}
	for _, g := range l.Groups {
		if !headings[g.Name] {
			out = append(out, "no section (a heading starting with the group's name) for group "+g.Name)
		}
	}
	inTable := map[string]bool{}
	for _, p := range l.Packages {
		name := coreguard.Name(p.Path)
		inTable[name] = true
		want := fmt.Sprintf("layer %d, %s", p.Layer, p.Group)
		switch have, ok := onPage[name]; {
		case !ok:
			out = append(out, name+": not in the page's layer table")
		case have != want:
			out = append(out, fmt.Sprintf("%s: %s on the page; %s in coreguard.Architecture", name, have, want))
		}
	}
	for _, name := range order {
		if !inTable[name] {
			out = append(out, name+": in the page's layer table, not in coreguard.Architecture")
		}
	}
	return out
}
