package main

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest doctor", func() {
	doctor := func(ctx SpecContext, repo string) (int, string) {
		return cli(ctx, "doctor", "--repo", repo, "--cache-dir", filepath.Join(GinkgoT().TempDir(), "cache"))
	}

	It("says there is no skewtest.yaml, points at init, and skips what needs it", func(ctx SpecContext) {
		s := newShellSubject()
		Expect(os.Remove(filepath.Join(s.dir, "skewtest.yaml"))).To(Succeed())
		code, out := doctor(ctx, s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("FAIL skewtest.yaml: none at the repository's root\n       fix: write one: skewtest init writes a commented skeleton"))
		Expect(out).To(ContainSubstring("skip contract: no usable skewtest.yaml"))
		Expect(out).To(ContainSubstring("skip reference pairing: no usable skewtest.yaml"))
	})

	It("names the line of a broken contract", func(ctx SpecContext) {
		s := newShellSubject()
		s.write("contract.json", "{\n  \"contractVersion\": 2,\n  \"channels\": [oops]\n}\n")
		code, out := doctor(ctx, s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(MatchRegexp(`FAIL contract: \S*contract\.json: line 3: JSON syntax`))
		Expect(out).To(ContainSubstring("skip build: the contract is not right yet"))
	})

	It("fails a host driver whose ready names a port nothing listens on, and one that answers an unknown action ok, saying how to look closer", func(ctx SpecContext) {
		s := newShellSubject()
		code, out := doctor(ctx, s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("ok   build: the working tree"))
		Expect(out).To(ContainSubstring("FAIL host driver: FAIL ready: url ws://127.0.0.1:9: nothing listens there"))
		Expect(out).To(MatchRegexp(`FAIL desktop client driver: FAIL unknown action: answered ok`))
		Expect(out).To(ContainSubstring("fix: skewtest driver check --role host -- ./driver host shows each check"))
		Expect(out).To(ContainSubstring("skip reference pairing: the drivers are not right yet"))
		Expect(out).To(ContainSubstring("ok   old tags: 2 stable tags: 2 with their own skewtest.yaml, 0 through a versions: row"))
	})

	It("names the old tags no run can build: no skewtest.yaml of their own and no versions: row", func(ctx SpecContext) {
		s := &tinySubject{dir: filepath.Join(GinkgoT().TempDir(), "late")}
		var err error
		s.repo, err = git.PlainInit(s.dir, false)
		Expect(err).NotTo(HaveOccurred())
		s.write("README", "a product that predates skewtest\n")
		s.tag("v0.9.0", s.commit("v0.9.0"))
		Expect(os.MkdirAll(filepath.Join(s.dir, "journeys"), 0o755)).To(Succeed())
		s.write("skewtest.yaml", shellYAML)
		s.write("driver.sh", shellDriver)
		s.write("journeys/one.txtar", shellJourney)
		s.write("contract.json", rpcContract)
		s.tag("v1.0.0", s.commit("v1.0.0"))
		code, out := doctor(ctx, s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("FAIL old tags: 2 stable tags: 1 with their own skewtest.yaml, 0 through a versions: row; 1 with neither, which no run can build: v0.9.0"))

		s.write("skewtest.yaml", shellYAML+"versions:\n  - range: \"<v1.0.0\"\n    overlay: [driver.sh, contract.json]\n")
		_, out = doctor(ctx, s.dir)
		Expect(out).To(ContainSubstring("ok   old tags: 2 stable tags: 1 with their own skewtest.yaml, 1 through a versions: row"))
	})
})

var _ = Describe("skewtest doctor on the reference history", Label(testlabels.E2E), func() {
	It("finds every step right", func(ctx SpecContext) {
		repo := referenceHistory()
		code, out := cli(ctx, "doctor", "--repo", repo, "--cache-dir", sharedCache)
		Expect(code).To(Equal(exitOK), out)
		for _, step := range []string{"skewtest.yaml", "contract", "journeys", "build", "host driver", "desktop client driver",
			"mobile client driver", "session client driver", "reference pairing", "old tags"} {
			Expect(out).To(ContainSubstring("ok   "+step+": "), step)
		}
		Expect(out).To(ContainSubstring("doctor: the subject is ready"))
		Expect(out).To(MatchRegexp(`ok   reference pairing: 1 pairing of \S+ passed \(the first journey only; doctor --all runs all 3\)`))

		code, out = cli(ctx, "doctor", "--repo", repo, "--cache-dir", sharedCache, "--all")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`ok   reference pairing: \d+ pairings of \S+, \S+, \S+ passed\n`))
	})
})
