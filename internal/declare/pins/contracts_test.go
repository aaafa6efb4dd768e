package pins_test

import (
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("Contracts", func() {
	It("reads each build's contract where its own skewtest.yaml says, without a checkout", func(ctx SpecContext) {
		f := newFixture()
		f.write("wire.json", `{"old": true}`)
		f.tag("v1.0.0", false) // predates skewtest.yaml: read at the working tree's path
		f.write("skewtest.yaml", "contract: proto/contract.json\n")
		f.write("proto/contract.json", `{"v": 1}`)
		f.write("proto/wire.binpb", "descriptors")
		f.tag("v1.1.0", true)
		f.write("skewtest.yaml", "contract: wire.json\n")
		f.write("wire.json", `{"worktree": true}`)

		cs, err := pins.OpenContracts(f.dir)
		Expect(err).NotTo(HaveOccurred())
		cf, err := cs.Ref(ctx, "v1.0.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal("v1.0.0:wire.json"))
		Expect(string(cf.Data)).To(Equal(`{"old": true}`))

		cf, err = cs.Ref(ctx, "v1.1.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal("v1.1.0:proto/contract.json"))
		b, err := fs.ReadFile(cf.Files, "wire.binpb")
		Expect(err).NotTo(HaveOccurred(), "the files beside it, from the same commit")
		Expect(string(b)).To(Equal("descriptors"))
		_, err = fs.ReadFile(cf.Files, "missing.binpb")
		Expect(err).To(MatchError(fs.ErrNotExist))

		cf, err = cs.Ref(ctx, pins.WorktreeLabel)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(cf.Data)).To(Equal(`{"worktree": true}`), "uncommitted changes included")

		cf, err = cs.AtPath("v1.1.0", "wire.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal("v1.1.0:wire.json"))
	})

	It("says what is missing", func(ctx SpecContext) {
		f := newFixture()
		f.write("skewtest.yaml", "contract: c.json\n")
		f.tag("v1.0.0", false)
		cs, err := pins.OpenContracts(f.dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.Ref(ctx, "v1.0.0")
		Expect(err).To(MatchError(pins.ErrNoContract))
		Expect(err).To(MatchError(ContainSubstring("v1.0.0:c.json does not exist")))
		_, err = cs.Ref(ctx, "v2.0.0")
		Expect(err).To(MatchError(pins.ErrUnknownRef))
		_, err = cs.Worktree()
		Expect(err).To(MatchError(pins.ErrNoContract))
	})
})

var _ = Describe("A versions row's contract", func() {
	It("is the contract of every tag the row covers: a working-tree path or REF:PATH, descriptor sets beside it, the first covering row deciding", func(ctx SpecContext) {
		f := newFixture()
		f.write("README", "before skewtest\n")
		f.tag("v1.0.0", false)
		f.tag("v1.1.0", false)
		f.tag("v1.2.0", false)
		f.write("skewtest.yaml", "contract: wire.json\n")
		f.write("wire.json", `{"v": 2}`)
		f.write("proto/old.json", `{"era": "one"}`)
		f.write("proto/old.binpb", "old descriptors")
		f.tag("v2.0.0", false)
		f.write("skewtest.yaml", `contract: wire.json
versions:
  - range: "v1.0.0"
    contract: proto/old.json
  - range: "<v1.2.0"
    contract: v2.0.0:proto/old.json
  - range: "<v2.0.0"
    overlay: [wire.json]
`)
		cs, err := pins.OpenContracts(f.dir)
		Expect(err).NotTo(HaveOccurred())

		cf, err := cs.Ref(ctx, "v1.0.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(HaveSuffix("proto/old.json"))
		Expect(string(cf.Data)).To(Equal(`{"era": "one"}`))
		Expect(cf.From).To(Equal(`skewtest.yaml:3 (versions row "v1.0.0"): proto/old.json`))
		b, err := fs.ReadFile(cf.Files, "old.binpb")
		Expect(err).NotTo(HaveOccurred(), "descriptor sets are read beside it")
		Expect(string(b)).To(Equal("old descriptors"))

		cf, err = cs.Ref(ctx, "v1.1.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal("v2.0.0:proto/old.json"))
		Expect(cf.From).To(HavePrefix(`skewtest.yaml:5 (versions row "<v1.2.0")`))
		b, err = fs.ReadFile(cf.Files, "old.binpb")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("old descriptors"), "from the same ref")

		// The first row that covers v1.2.0 names no contract: its own is read, at the
		// working tree's path (it has no skewtest.yaml), and it has none.
		_, err = cs.Ref(ctx, "v1.2.0")
		Expect(err).To(MatchError(ContainSubstring("v1.2.0:wire.json does not exist")))

		cf, err = cs.Ref(ctx, "v2.0.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(cf.Name).To(Equal("v2.0.0:wire.json"))
		Expect(cf.From).To(BeEmpty(), "no row covers it: its own")
	})

	It("is a commit's between two tags it covers, through the nearest stable tag below it (a bisect candidate)", func(ctx SpecContext) {
		f := newFixture()
		f.write("README", "before skewtest\n")
		f.tag("v1.0.0", false)
		f.write("README", "a fix\n")
		between := f.commit("a fix after v1.0.0")
		f.tag("v1.1.0", false)
		f.write("skewtest.yaml", "contract: wire.json\nversions:\n  - range: \"<v1.1.0\"\n    contract: old.json\n")
		f.write("wire.json", `{"v": 2}`)
		f.write("old.json", `{"era": "one"}`)
		cs, err := pins.OpenContracts(f.dir)
		Expect(err).NotTo(HaveOccurred())

		cf, err := cs.Ref(ctx, between.String())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(cf.Data)).To(Equal(`{"era": "one"}`), "the row covering v1.0.0, the nearest tag below")
		// Negative control: the commit of v1.1.0, which the row does not cover, reads its own
		// (it has none at the working tree's path).
		_, err = cs.Ref(ctx, "v1.1.0")
		Expect(err).To(MatchError(ContainSubstring("v1.1.0:wire.json does not exist")))
	})

	It("that is not there is an error naming the row", func(ctx SpecContext) {
		f := newFixture()
		f.write("README", "x\n")
		f.tag("v1.0.0", false)
		f.write("skewtest.yaml", "contract: wire.json\nversions:\n  - range: \"<v2.0.0\"\n    contract: contracts/v1.json\n")
		cs, err := pins.OpenContracts(f.dir)
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.Ref(ctx, "v1.0.0")
		Expect(err).To(MatchError(pins.ErrNoContract))
		Expect(err).To(MatchError(ContainSubstring(`skewtest.yaml:3 (versions row "<v2.0.0") names contracts/v1.json for v1.0.0`)))
	})
})

var _ = Describe("Support.ContractAllowed", func() {
	stable := []string{"v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0"}
	policy := pins.Support{
		Clients: pins.SupportRule{Last: 1},
		Cuts:    []pins.Cut{{Role: "client", Range: "<v1.2.0", Reason: "protocol 2"}},
	}
	cut := contract.Violation{Rule: contract.RuleProtocolCut}
	dropped := contract.Violation{Rule: contract.RuleCommandVersionDropped}
	removed := contract.Violation{Rule: contract.RuleFrameRemoved}

	DescribeTable("allows declared cuts, and dropped command versions of releases no longer required",
		func(s pins.Support, older string, allowsCut, allowsDrop bool) {
			allowed := s.ContractAllowed(older, stable)
			Expect(allowed(cut)).To(Equal(allowsCut))
			Expect(allowed(dropped)).To(Equal(allowsDrop))
			Expect(allowed(removed)).To(BeFalse(), "no other rule")
		},
		Entry("a release a declared cut covers", policy, "v1.1.0", true, true),
		Entry("a release past the cut, no longer required", policy, "v1.2.0", false, true),
		Entry("a required release", policy, "v1.3.0", false, false),
		Entry("no policy", pins.Support{}, "v1.1.0", false, false),
	)
})
