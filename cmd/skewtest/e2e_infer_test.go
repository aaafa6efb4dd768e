package main

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest contract infer on the example subjects' traffic", Label(testlabels.E2E, testlabels.Slow), func() {
	DescribeTable("drafts a contract that reads every frame of a run, and lists where the subject's own contract and the traffic disagree",
		func(ctx SpecContext, name string, disagree string) {
			src, err := example.FindSource(name)
			Expect(err).NotTo(HaveOccurred())
			repo := filepath.Join(GinkgoT().TempDir(), name)
			_, err = example.Write(src, repo)
			Expect(err).NotTo(HaveOccurred())
			report, dir := GinkgoT().TempDir(), GinkgoT().TempDir()
			code, out := cli(ctx, "run", "--repo", repo, "--cache-dir", sharedCache, "--report-dir", report, "--seed", "3")
			Expect(code).To(BeNumerically("<=", exitFindings), out)

			draftFile := filepath.Join(dir, "draft.json")
			code, out = cli(ctx, "contract", "infer", "-o", draftFile, report)
			Expect(code).To(Equal(exitOK), out)
			Expect(out).To(ContainSubstring("the draft reads every frame of the"))

			// Every recorded frame, decoded with the draft as each pairing's receiver reads it.
			c, err := contract.Load(draftFile)
			Expect(err).NotTo(HaveOccurred())
			recs, err := infer.Load(report)
			Expect(err).NotTo(HaveOccurred())
			Expect(recs).NotTo(BeEmpty())
			total := 0
			for _, r := range recs {
				frames := slices.Clone(r.T.Frames)
				for i := range frames {
					frames[i].Read, frames[i].Decoded = nil, nil
				}
				_, unread := samples.Decode(c, frames, r.T.Kind)
				Expect(unread).To(BeEmpty(), r.Path)
				total += len(frames)
			}
			Expect(total).To(BeNumerically(">", 100))

			// The draft agrees with the traffic it came from; the subject's contract does not
			// quite: it declares what the run never showed.
			code, out = cli(ctx, "contract", "infer", "--against", draftFile, report)
			Expect(code).To(Equal(exitOK), out)
			code, out = cli(ctx, "contract", "infer", "--against", filepath.Join(repo, "skewtest-contract.json"), report)
			Expect(code).To(Equal(exitFindings), out)
			Expect(out).To(ContainSubstring(disagree))
			Expect(out).NotTo(ContainSubstring("traffic the contract cannot read"), "the working tree's contract reads its own pairings")

			// One draft per build, from the frames it sent.
			code, out = cli(ctx, "contract", "infer", "--out", filepath.Join(dir, "builds"), report)
			Expect(code).To(Equal(exitOK), out)
			drafts, err := filepath.Glob(filepath.Join(dir, "builds", "*.json"))
			Expect(err).NotTo(HaveOccurred())
			Expect(drafts).To(ContainElement(filepath.Join(dir, "builds", "worktree.json")))
			Expect(len(drafts)).To(BeNumerically(">=", 2))
			for _, d := range drafts {
				_, err := os.Stat(d[:len(d)-len(".json")] + ".txt")
				Expect(err).NotTo(HaveOccurred())
			}
		},
		Entry("remoteterm: a binary header and JSON by discriminator", "remoteterm", "fields the contract declares that the traffic never carried"),
		Entry("notesd: JSON-RPC 2.0 in batches", "notesd", "frames the contract declares that the traffic never showed"),
	)
})
