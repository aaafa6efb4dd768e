package matrix_test

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/internal/testkit/testcache"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// Verdicts must never flip: a CI gate that fails on timing gets switched off. The same plan
// with the same seed, run again and again while every core is kept busy, must give every
// pairing the same verdict and the same kinds of findings. The plan is the reference
// history's default plan (green) and its known release-skew bugs (red), so both a pass that
// turns red under load and a finding that goes missing under load show. make test runs it
// twice; make soak runs it ten times.
var _ = Describe("a plan run again and again with every core busy", Label(testlabels.E2E, testlabels.Slow), func() {
	DescribeTable("gives every pairing the same verdict and the same kinds of findings each time",
		func(ctx SpecContext, rounds int) {
			src, err := example.FindSource("")
			Expect(err).NotTo(HaveOccurred())
			repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
			w, err := example.Write(src, repo)
			Expect(err).NotTo(HaveOccurred())
			Expect(w.KnownBugs).NotTo(BeEmpty())
			var bugs []matrix.Pair
			for _, b := range w.KnownBugs {
				bugs = append(bugs, matrix.Pair{Host: b.Host, Client: b.Client, Kind: b.Kind, Journey: b.Journey})
			}
			cache := testcache.Dir(GinkgoT().TempDir)

			run := func(pairings []matrix.Pair) verdicts {
				GinkgoHelper()
				r, err := matrix.Run(ctx, matrix.Config{Repo: repo, CacheDir: cache, ReportDir: GinkgoT().TempDir(),
					Seed: 1, Pairings: pairings, Stdout: io.Discard, Stderr: GinkgoWriter})
				Expect(err).NotTo(HaveOccurred())
				Expect(r.Seed).To(Equal(int64(1)))
				return verdictsOf(r)
			}
			// The first round builds what the cache lacks, on a machine left alone.
			green, red := run(nil), run(bugs)
			Expect(green).NotTo(BeEmpty())
			Expect(green.failed()).To(BeZero(), "the default plan is green")
			Expect(red.failed()).To(BeNumerically(">=", len(bugs)), "every known bug is red")

			stop := proctest.Saturate()
			defer stop()
			flips := 0
			for i := 2; i <= rounds; i++ {
				g, r := run(nil), run(bugs)
				GinkgoWriter.Printf("round %d of %d: %d + %d pairings\n", i, rounds, len(g), len(r))
				flips += green.flips(g) + red.flips(r)
				Expect(g).To(Equal(green), "the default plan, round %d of %d, on a saturated machine", i, rounds)
				Expect(r).To(Equal(red), "the known bugs, round %d of %d, on a saturated machine", i, rounds)
			}
			AddReportEntry("flips", fmt.Sprintf("%d in %d rounds", flips, rounds))
		},
		Entry("twice", 2),
		Entry("ten times", Label(testlabels.Soak), 10),
	)
})

// verdicts maps each pairing of a run to its verdict and the kinds of its findings, sorted,
// with the run's own findings (the static tier) under "run".
type verdicts map[string]string

func verdictsOf(r *results.Run) verdicts {
	v := verdicts{"run": kinds(r.Findings)}
	for _, p := range r.Pairings {
		v[p.Label()] = string(p.Status) + " " + kinds(p.Findings)
	}
	return v
}

func kinds(findings []results.Finding) string {
	var ks []string
	for _, f := range findings {
		if !slices.Contains(ks, string(f.Kind)) {
			ks = append(ks, string(f.Kind))
		}
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}

// failed counts the pairings that are not green.
func (v verdicts) failed() int {
	n := 0
	for label, s := range v {
		if label != "run" && !strings.HasPrefix(s, string(results.StatusPass)+" ") {
			n++
		}
	}
	return n
}

// flips counts the entries of other that differ from v, printing each.
func (v verdicts) flips(other verdicts) int {
	n := 0
	for label, s := range v {
		if other[label] != s {
			GinkgoWriter.Printf("FLIP %s: %q, then %q\n", label, s, other[label])
			n++
		}
	}
	return n
}
