package coreguard_test

import (
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/coreguard"
)

// placedGraph is a graph of every package the table places, none importing anything: the
// negative controls add to it only what they mean to break.
func placedGraph() coreguard.Graph {
	g := coreguard.Graph{}
	for _, p := range coreguard.Architecture.Packages {
		g[p.Path] = nil
	}
	return g
}

var _ = Describe("the module's layers", func() {
	It("hold: every package placed, no import upwards or into the internals from a sealed public package, no cycle", func(ctx SpecContext) {
		g, err := coreguard.LoadGraph("../../..")
		Expect(err).NotTo(HaveOccurred())
		Expect(coreguard.Check(g, coreguard.Architecture)).To(BeEmpty(),
			"place a new package in coreguard.Architecture; move an import that points up, or the package, and say why")
	}, SpecTimeout(5*60e9))

	It("report an upward import, a cycle, a public package importing internals, an unplaced and a vanished package", func() {
		g := placedGraph()
		g["internal/build/builds"] = []string{"internal/declare/pins", "internal/run/harness/tap"}
		g["internal/run/harness/tap"] = []string{"internal/run/harness/driver"}
		g["internal/run/harness/driver"] = []string{"internal/build/proc", "internal/run/harness/tap"}
		g["skewtesting"] = []string{".", "results", "internal/run/matrix"}
		g["driverkit"] = []string{"results"}
		g["driverkit/node"] = []string{"driverkit"}
		g["internal/run/harness/newcheck"] = []string{"results"}
		delete(g, "internal/after/samples")
		Expect(coreguard.Check(g, coreguard.Architecture)).To(Equal([]string{
			"driverkit imports results: driverkit is public and imports, of this module, nothing outside driverkit",
			"import cycle: internal/run/harness/driver → internal/run/harness/tap → internal/run/harness/driver",
			"internal/build/builds imports internal/run/harness/tap: build (layer 2) may not import run (layer 3)",
			"internal/run/harness/newcheck is not in the layer table (coreguard.Architecture): give it a group and a layer",
			"skewtesting imports internal/run/matrix: skewtesting is public and imports, of this module, only github.com/skewtest/skewtest and results",
			"the layer table names internal/after/samples, which is not a package of the module: remove it, or write the package",
		}))
	})

	It("report a cycle across layers as a cycle besides the upward import, and a self-import", func() {
		g := placedGraph()
		g["internal/declare/contract"] = []string{"internal/declare/journeys"}
		g["internal/declare/journeys"] = []string{"internal/run/harness/checks"}
		g["internal/run/harness/checks"] = []string{"internal/declare/contract"}
		g["results"] = []string{"results"}
		Expect(coreguard.Check(g, coreguard.Architecture)).To(Equal([]string{
			"import cycle: internal/declare/contract → internal/declare/journeys → internal/run/harness/checks → internal/declare/contract",
			"import cycle: results → results",
			"internal/declare/journeys imports internal/run/harness/checks: declare (layer 1) may not import run (layer 3)",
		}))
	})

	It("report a table that places a package twice or in a group it does not declare", func() {
		l := coreguard.Layout{
			Groups: []coreguard.Group{{Name: "run"}},
			Packages: []coreguard.Package{
				{Path: "internal/run/matrix", Group: "run", Layer: 1},
				{Path: "internal/run/matrix", Group: "run", Layer: 1},
				{Path: "internal/elsewhere", Group: "misc", Layer: 1},
			},
		}
		g := coreguard.Graph{"internal/run/matrix": nil, "internal/elsewhere": nil}
		Expect(coreguard.Check(g, l)).To(Equal([]string{
			`the layer table places internal/run/matrix twice`,
			`the layer table puts internal/elsewhere in group "misc", which it does not declare`,
		}))
	})

	It("name the root package by the module's path, and let the root import internal packages", func() {
		g := placedGraph()
		g["."] = []string{"internal/run/matrix", "internal/nightly/campaign", "results"}
		g["driverkit/node"] = []string{"driverkit", "."}
		Expect(coreguard.Check(g, coreguard.Architecture)).To(Equal([]string{
			"driverkit/node imports github.com/skewtest/skewtest: driverkit/node is public and imports, of this module, nothing outside driverkit",
			"driverkit/node imports github.com/skewtest/skewtest: kits (layer 0) may not import api (layer 11)",
		}))
	})

	It("list the groups in flow order, each with packages, and place every package in a declared group", func() {
		var names []string
		for _, g := range coreguard.Architecture.Groups {
			names = append(names, g.Name)
			Expect(slices.ContainsFunc(coreguard.Architecture.Packages, func(p coreguard.Package) bool { return p.Group == g.Name })).
				To(BeTrue(), "group %s has no package", g.Name)
		}
		Expect(names[:5]).To(Equal([]string{"declare", "build", "run", "nightly", "after"}))
	})
})
