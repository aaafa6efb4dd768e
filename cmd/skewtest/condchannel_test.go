package main

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A frame condition is decided from the contracts, on one channel: where the working
// tree's contract has two and nothing names one, the run stops before building (exit 2,
// the journey's file:line and the fix); the channel header decides it.
var _ = Describe("a frame condition's channel", func() {
	twoChannels := func(s *tinySubject) {
		s.edit("contract.json", func(c string) string {
			return strings.Replace(c, "    ]\n  }]", `    ]
  }, {"name": "aux", "paths": ["/aux"], "text": {"json": {"discriminator": "type"}},
      "frames": [{"type": "tick", "name": "tick", "direction": "H>C"}]}]`, 1)
		})
	}

	It("is a load error, with file:line, where the contracts have several channels and the journey names none", func(ctx SpecContext) {
		s := newShellSubject()
		twoChannels(s)
		cache := GinkgoT().TempDir()
		j := journeyFile("cond.txtar", "kind desktop\n-- script --\nstep a\n[frame:ping] client noop\n")
		code, out := cli(ctx, runWith("--journey", j)(s, cache, GinkgoT().TempDir())...)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring("cond.txtar:4: condition [frame:ping]: which channel's frame? The contracts have the channels aux, rpc"))
		Expect(out).To(ContainSubstring("(channel aux or channel rpc)"))
		Expect(cacheEntries(cache)).To(BeEmpty(), "the answer comes before the first build")

		bad := journeyFile("typo.txtar", "kind desktop\nchannel rcp\n-- script --\nstep a\n[frame:ping] client noop\n")
		code, out = cli(ctx, runWith("--journey", bad)(s, GinkgoT().TempDir(), GinkgoT().TempDir())...)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(`typo.txtar:2: channel "rcp" is no channel of the contracts (they have aux, rpc): did you mean channel rpc?`))
	})

	It("control: the channel header decides it, and the condition holds before any connection", func(ctx SpecContext) {
		s := newShellSubject()
		twoChannels(s)
		report := GinkgoT().TempDir()
		j := journeyFile("cond.txtar", "kind desktop\nchannel rpc\n-- script --\nstep a\n[frame:ping] client noop\n[!frame:ping] await client never\n")
		code, out := cli(ctx, runWith("--journey", j)(s, GinkgoT().TempDir(), report)...)
		Expect(code).To(Equal(exitOK), out)
		Expect(out).To(ContainSubstring("passed"))
	})
})
