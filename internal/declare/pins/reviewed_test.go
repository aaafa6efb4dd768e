package pins_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("Reviewed (skewtest.yaml allow:)", func() {
	c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"channels":[{"name":"t","paths":["/a","/b"],
	  "binary":{"header":{"length":16,"fields":[{"name":"type","offset":2,"encoding":"u8"}]}},
	  "capabilities":[{"name":"span"}],
	  "frames":[{"opcode":1,"name":"Output","direction":"H>C"},{"opcode":15,"name":"Span","direction":"H>C","gates":{"/a":"span","/b":"span"}}]}]}`))
	Expect(err).NotTo(HaveOccurred())
	added := func(path string) contract.Violation {
		return contract.Violation{Rule: contract.RuleGateAdded, In: contract.SideNew, Pointer: "/channels/0/frames/1/gates/" + path}
	}
	entry := pins.Reviewed{Rule: contract.RuleGateAdded, Frame: "Span", Path: "/a", Refs: "<v1.4.173", Reason: "lossless there"}

	It("allows the violations of its rule, frame, path and pairs, and no others", func() {
		Expect(entry.Allows("v1.4.172", "v1.4.173", added("~1a"), c, c)).To(BeTrue())
		Expect(entry.Allows("v1.4.150", "worktree", added("~1a"), c, c)).To(BeTrue(), "every pair whose older build is in the range")
		Expect(entry.Allows("v1.4.173", "v1.4.180", added("~1a"), c, c)).To(BeFalse(), "an older build outside the range")
		Expect(entry.Allows("v1.4.172", "v1.4.173", added("~1b"), c, c)).To(BeFalse(), "another path")
		other := added("~1a")
		other.Pointer = "/channels/0/frames/0/gates/~1a"
		Expect(entry.Allows("v1.4.172", "v1.4.173", other, c, c)).To(BeFalse(), "another frame")
		removed := added("~1a")
		removed.Rule = contract.RuleGateRemoved
		Expect(entry.Allows("v1.4.172", "v1.4.173", removed, c, c)).To(BeFalse(), "another rule")
		one := pins.Reviewed{Rule: contract.RuleGateAdded, Refs: "v1.4.172..v1.4.173", Reason: "r"}
		Expect(one.Allows("v1.4.172", "v1.4.173", added("~1b"), c, c)).To(BeTrue())
		Expect(one.Allows("v1.4.171", "v1.4.173", added("~1b"), c, c)).To(BeFalse(), "OLD..NEW is one pair")
		Expect(one.Covers("v1.4.172", "v1.4.173")).To(BeTrue())
		Expect(entry.Covers("v1.4.180", "worktree")).To(BeFalse())
	})

	It("says what is wrong with an entry", func() {
		Expect(entry.Validate("allow[0]")).To(BeEmpty())
		bad := pins.Reviewed{Rule: "gate-added@/x", Path: "a", Refs: "..v2", Pointer: "x"}
		Expect(bad.Validate("allow[1]")).To(ConsistOf(
			ContainSubstring(`allow[1].rule "gate-added@/x" is not a rule`),
			ContainSubstring(`allow[1].path "a" is not a WebSocket path`),
			ContainSubstring(`allow[1].pointer "x" is not a JSON pointer`),
			ContainSubstring(`allow[1].refs "..v2": OLD..NEW needs both refs`),
			ContainSubstring(`allow[1] has no reason`)))
	})
})
