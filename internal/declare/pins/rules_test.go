package pins_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("pin rules", func() {
	// release commits a skewtest.yaml naming contract and a contract with protocol
	// window (v, min), and tags it.
	release := func(f *fixture, tag, contract string, v, min int) {
		GinkgoHelper()
		f.write("skewtest.yaml", fmt.Sprintf("product: p\ncontract: %s\nsomeday: keys this version of skewtest does not know\n", contract))
		f.write(contract, fmt.Sprintf(`{"version": %q, "protocol": {"version": %d, "minCompatible": %d}}`, tag, v, min))
		f.tag(tag, true)
	}

	Describe("ignore", func() {
		It("passes over matching tags and says which pattern matched", func(ctx SpecContext) {
			f := newFixture()
			for _, t := range []string{"v1.4.180", "v1.4.190", "v1.4.191-rc.1", "v1.4.195"} {
				f.tag(t, false)
			}
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Ignore: []string{"v1.4.19?", "v1.4.19?-*"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"v1.4.180"}))
			Expect(sel.Skipped).To(Equal([]pins.Skipped{
				{Ref: "v1.4.190", Why: `ignored: matches the ignore pattern "v1.4.19?"`},
				{Ref: "v1.4.195", Why: `ignored: matches the ignore pattern "v1.4.19?"`},
				{Ref: "v1.4.191-rc.1", Why: `ignored: matches the ignore pattern "v1.4.19?-*" (and pre-release or build metadata: only vX.Y.Z is stable)`},
			}))
		})

		It("never overrides an explicit ref", func(ctx SpecContext) {
			f := newFixture()
			f.tag("v1.0.0", false)
			f.tag("v1.1.0", false)
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "v1.1.0"), Ignore: []string{"v1.1.*"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"v1.1.0"}))
		})

		It("says so when every stable tag is ignored", func(ctx SpecContext) {
			f := newFixture()
			f.tag("v1.0.0", false)
			_, err := pins.Resolve(ctx, f.dir, pins.Options{Ignore: []string{"v1.*"}})
			Expect(err).To(MatchError(pins.ErrNoStableTag))
			Expect(err).To(MatchError(ContainSubstring("1 stable tags match an ignore pattern")))
		})
	})

	Describe("window", func() {
		var f *fixture
		BeforeEach(func() {
			f = newFixture()
			f.write("contract.json", `{"protocol": {"version": 1, "minCompatible": 1}}`)
			f.tag("v0.9.0", false) // predates skewtest.yaml: its contract is at the working tree's path
			f.remove("contract.json")
			f.tag("v0.9.5", false) // predates skewtest.yaml and has no contract
			release(f, "v1.0.0", "contract.json", 1, 1)
			release(f, "v1.1.0", "old/contract.json", 2, 1)
			release(f, "v2.0.0", "contract.json", 3, 3)
			release(f, "v2.1.0", "contract.json", 4, 3)
			// The working tree: protocol 3, still accepting 2.
			f.write("skewtest.yaml", "product: p\ncontract: contract.json\n")
			f.write("contract.json", `{"protocol": {"version": 3, "minCompatible": 2}}`)
		})

		It("pins every stable tag whose window overlaps the working tree's, reading each tag's own contract", func(ctx SpecContext) {
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Window: true})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"v1.1.0", "v2.0.0", "v2.1.0"}))
			Expect(sel.Pins[0].Reason).To(Equal("inside the protocol window: protocol 2 (minCompatible 1), working tree protocol 3 (minCompatible 2)"))
			why := map[string]string{}
			for _, s := range sel.Skipped {
				why[s.Ref] = s.Why
			}
			Expect(why).To(HaveKeyWithValue("v1.0.0", "outside the protocol window: protocol 1 (minCompatible 1), working tree protocol 3 (minCompatible 2)"))
			Expect(why).To(HaveKeyWithValue("v0.9.0", ContainSubstring("outside the protocol window: protocol 1")))
			Expect(why).To(HaveKeyWithValue("v0.9.5", ContainSubstring("protocol window unknown: read v0.9.5:contract.json")))
		})

		It("combines with the last N, giving both reasons", func(ctx SpecContext) {
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Window: true, Last: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"v1.1.0", "v2.0.0", "v2.1.0"}))
			Expect(sel.Pins[2].Reason).To(Equal("one of the last 2 stable tags; inside the protocol window: protocol 4 (minCompatible 3), working tree protocol 3 (minCompatible 2)"))
		})

		It("places a tag whose contract declares no protocol version by the working tree's default for such a peer", func(ctx SpecContext) {
			f.write("skewtest.yaml", "product: p\ncontract: contract.json\n")
			f.write("contract.json", `{"version": "v2.2.0"}`)
			f.tag("v2.2.0", true) // predates protocol negotiation, as an old agent would
			f.write("contract.json", `{"protocol": {"version": 3, "minCompatible": 2}}`)
			why := func() map[string]string {
				GinkgoHelper()
				sel, err := pins.Resolve(ctx, f.dir, pins.Options{Window: true})
				Expect(err).NotTo(HaveOccurred())
				out := map[string]string{}
				for _, s := range sel.Skipped {
					out[s.Ref] = s.Why
				}
				for _, p := range sel.Pins {
					out[p.Ref] = "pinned: " + p.Reason
				}
				return out
			}
			Expect(why()).To(HaveKeyWithValue("v2.2.0", "protocol window unknown: v2.2.0:contract.json has no protocol.version"))

			f.write("contract.json", `{"protocol": {"version": 3, "minCompatible": 2, "omitted": 2}}`)
			Expect(why()).To(HaveKeyWithValue("v2.2.0", "pinned: inside the protocol window: no protocol version (minCompatible 0), working tree protocol 3 (minCompatible 2; a peer that omits its version speaks 2)"))

			f.write("contract.json", `{"protocol": {"version": 3, "minCompatible": 2, "omitted": 1}}`)
			Expect(why()).To(HaveKeyWithValue("v2.2.0", "outside the protocol window: no protocol version (minCompatible 0), working tree protocol 3 (minCompatible 2; a peer that omits its version speaks 1)"))
		})

		It("needs the working tree's contract", func(ctx SpecContext) {
			f.remove("contract.json")
			_, err := pins.Resolve(ctx, f.dir, pins.Options{Window: true})
			Expect(err).To(MatchError(pins.ErrNoProtocol))
			Expect(err).To(MatchError(ContainSubstring("contract.json")))
		})
	})

	Describe("Override", func() {
		config := pins.Options{Refs: pins.Refs("why", "v1"), Last: 3, Ignore: []string{"a*"}}

		It("keeps the configuration when the command line selects nothing", func() {
			Expect(config.Override(pins.Options{Ignore: []string{"b*"}})).To(Equal(
				pins.Options{Refs: pins.Refs("why", "v1"), Last: 3, Ignore: []string{"a*", "b*"}}))
		})

		DescribeTable("replaces the selection as a whole",
			func(flags, want pins.Options) {
				Expect(config.Override(flags)).To(Equal(want))
			},
			Entry("refs", pins.Options{Refs: pins.Refs("", "v2")}, pins.Options{Refs: pins.Refs("", "v2"), Ignore: []string{"a*"}}),
			Entry("last", pins.Options{Last: 5}, pins.Options{Last: 5, Ignore: []string{"a*"}}),
			Entry("window", pins.Options{Window: true}, pins.Options{Window: true, Ignore: []string{"a*"}}),
		)
	})
})
