package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// lateConfig is the working tree's skewtest.yaml of a library that adopted skewtest after
// v0.2.0: its contract lives in skewtest/, and rows (rows) build the older tags.
func lateConfig(rows string) string {
	return "product: tiny\ncontract: skewtest/contract.json\nbuild:\n  steps: ['cp skewtest/driver.sh \"$SKEWTEST_OUT/driver\"']\n" +
		"drivers:\n  host: [./driver, host]\n  clients: {desktop: [./driver, client]}\n" + rows
}

// overlayRow builds every tag before v0.3.0 with the working tree's skewtest/ folder laid
// over it, the contract included.
const overlayRow = "versions:\n  - range: \"<v0.3.0\"\n    overlay: [skewtest]\n"

// newLateSubject is a library whose tags v0.1.0 and v0.2.0 predate skewtest (no
// skewtest.yaml, no contract) and whose working tree (uncommitted) adopted it with rows.
func newLateSubject(rows string) *tinySubject {
	GinkgoHelper()
	s := &tinySubject{dir: GinkgoT().TempDir()}
	var err error
	s.repo, err = git.PlainInit(s.dir, false)
	Expect(err).NotTo(HaveOccurred())
	s.write("README", "a library\n")
	s.tag("v0.1.0", s.commit("v0.1.0"))
	s.tag("v0.2.0", s.commit("v0.2.0"))
	Expect(os.MkdirAll(filepath.Join(s.dir, "skewtest"), 0o755)).To(Succeed())
	s.write("skewtest/contract.json", rpcContract)
	s.write("skewtest/driver.sh", "#!/bin/sh\nexit 1\n")
	s.write("skewtest.yaml", lateConfig(rows))
	return s
}

var _ = Describe("one view of a build's contract", func() {
	It("reads the contract a versions row's overlay lays over old tags, in contract check and diff, as run does", func(ctx SpecContext) {
		s := newLateSubject(overlayRow)
		code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--strict")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(Equal("v0.1.0 → v0.2.0: compatible\nv0.2.0 → worktree: compatible\n" +
			"checked 1 stable tag pair and 1 pin against the working tree: compatible\n"))

		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.1.0", "worktree")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(Equal("v0.1.0 → worktree: compatible\n"))

		// run reads the same file: its plan's description of v0.1.0.
		subj := openSubject(s.dir)
		h, err := s.repo.ResolveRevision("v0.1.0")
		Expect(err).NotTo(HaveOccurred())
		described, err := subj.Describe(ctx, []builds.Source{builds.AtCommit("v0.1.0", *h)})
		Expect(err).NotTo(HaveOccurred())
		Expect(described[0].Err).NotTo(HaveOccurred())
		Expect(described[0].ContractFrom).To(Equal("the working tree's, laid over it (versions row at skewtest.yaml:9)"))
		cf, err := subj.ContractFile(ctx, builds.AtCommit("v0.1.0", *h))
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal(filepath.Join(s.dir, "skewtest", "contract.json")))
		Expect(cf.From).To(Equal(described[0].ContractFrom))

		// A change of the working tree's contract is a change of the old tags' too: the
		// overlay lays it over them.
		s.write("skewtest/contract.json", withoutPing)
		code, out = cli(ctx, "contract", "check", "--repo", s.dir)
		Expect(code).To(Equal(exitOK), out)
	})

	It("reads a row's contract file for the tags it covers", func(ctx SpecContext) {
		s := newLateSubject("versions:\n  - range: \"<v0.3.0\"\n    overlay: [skewtest/driver.sh]\n    contract: skewtest/old.json\n")
		s.write("skewtest/old.json", rpcContract)
		s.write("skewtest/contract.json", withoutPing)
		code, out := cli(ctx, "contract", "check", "--repo", s.dir)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring("v0.2.0 → worktree: 1 violation\n"))
		Expect(out).To(ContainSubstring(filepath.Join(s.dir, "skewtest", "old.json") + ":"))
		code, _ = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.2.0", "worktree")
		Expect(code).To(Equal(exitFindings))
	})

	It("warns of a pair it cannot check, naming the fix, and --strict makes it an error (exit 2)", func(ctx SpecContext) {
		// The negative control: the same history with no versions row.
		s := newLateSubject("")
		code, out := cli(ctx, "contract", "check", "--repo", s.dir)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("v0.1.0 → v0.2.0: not checked: no contract at v0.2.0: "))
		Expect(out).To(ContainSubstring("add a versions row whose range covers it (see docs/subject.md)"))
		Expect(out).To(ContainSubstring("skewtest: warning: 2 pairs not checked, so their verdict is not known (each says why and the fix); --strict makes this an error\n"))
		Expect(out).To(HaveSuffix("checked 1 stable tag pair and 1 pin against the working tree: compatible (2 pairs not checked)\n"))

		code, out = cli(ctx, "contract", "check", "--repo", s.dir, "--strict")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("skewtest: --strict: 2 pairs not checked: give each build a contract"))

		code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v0.1.0", "worktree")
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("add a versions row whose range covers it"))
	})

	It("names the row to add when a tag has a skewtest.yaml but no contract at its path", func(ctx SpecContext) {
		s := newLateSubject("")
		s.write("skewtest.yaml", lateConfig(""))
		Expect(os.Rename(filepath.Join(s.dir, "skewtest", "contract.json"), filepath.Join(s.dir, "contract.kept"))).To(Succeed())
		s.tag("v0.3.0", s.commit("v0.3.0"))
		Expect(os.Rename(filepath.Join(s.dir, "contract.kept"), filepath.Join(s.dir, "skewtest", "contract.json"))).To(Succeed())
		code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--since", "v0.3.0")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("v0.3.0 → worktree: not checked: no contract: v0.3.0:skewtest/contract.json does not exist: " +
			"add a versions: row to skewtest.yaml whose range covers v0.3.0 and lays a contract over it"))
		Expect(strings.Count(out, "not checked:")).To(Equal(1))
	})
})

var _ = Describe("pins --window reads tags' contracts as every command does", func() {
	It("places old tags by the contract a versions row gives them", func(ctx SpecContext) {
		s := newLateSubject(overlayRow)
		code, out := cli(ctx, "pins", "--repo", s.dir, "--window")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`v0\.1\.0\s.*inside the protocol window`))
		Expect(out).To(MatchRegexp(`v0\.2\.0\s.*inside the protocol window`))

		// A row's own contract, whose window the working tree's no longer overlaps.
		s.write("skewtest.yaml", lateConfig("versions:\n  - range: \"<v0.2.0\"\n    overlay: [skewtest]\n    contract: skewtest/old.json\n"+
			"  - range: \"<v0.3.0\"\n    overlay: [skewtest]\n"))
		s.write("skewtest/old.json", rpcContract)
		s.edit("skewtest/contract.json", func(c string) string {
			return strings.Replace(c, `"protocol": {"version": 1, "minCompatible": 1}`, `"protocol": {"version": 2, "minCompatible": 2}`, 1)
		})
		code, out = cli(ctx, "pins", "--repo", s.dir, "--window")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(MatchRegexp(`v0\.1\.0\s.*outside the protocol window: protocol 1`))
		Expect(out).To(MatchRegexp(`v0\.2\.0\s.*inside the protocol window`))
	})

	It("says a tag's window is unknown, naming the row to add, when no contract is given it (negative control)", func(ctx SpecContext) {
		s := newLateSubject("")
		code, out := cli(ctx, "pins", "--repo", s.dir, "--window")
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("v0.2.0   protocol window unknown: no contract at v0.2.0: "))
		Expect(out).To(ContainSubstring("add a versions row whose range covers it"))
	})
})
