package main

import (
	"errors"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("fuzz flags", func() {
	It("runs PR mode by default: a fixed case count and a fixed seed", func() {
		o, err := parseFuzz([]string{"--repo", "/r", "--cache-dir", "/c"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Cases).To(Equal(DefaultFuzzCases))
		Expect(o.Seed).To(Equal(int64(DefaultFuzzSeed)))
		Expect(o.Pack).To(BeZero(), "each generator's own pack line, else DefaultFuzzPack")
	})

	It("keeps a given seed, and draws a fresh one for a nightly budget", func() {
		o, err := parseFuzz([]string{"--repo", "/r", "--cache-dir", "/c", "--seed", "9", "--cases", "3"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Seed).To(Equal(int64(9)))
		o, err = parseFuzz([]string{"--repo", "/r", "--cache-dir", "/c", "--budget", "2m"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Budget).To(Equal(2 * time.Minute))
		Expect(o.Cases).To(BeZero())
		Expect(o.Seed).NotTo(BeZero())
	})

	It("reads generators, exclusions and kinds as lists", func() {
		o, err := parseFuzz([]string{"--repo", "/r", "--cache-dir", "/c", "--generator", "a, b", "--exclude", "zero-run", "--kind", "desktop",
			"--host", "v1", "--client", "worktree", "--corpus", "/k"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Generators).To(Equal([]string{"a", "b"}))
		Expect(o.Exclude).To(Equal([]string{"zero-run"}))
		Expect(o.Kinds).To(Equal([]string{"desktop"}))
		Expect(o.Host).To(Equal("v1"))
		Expect(o.Corpus).To(Equal("/k"))
	})

	DescribeTable("refuses what does not go together, as a usage error",
		func(want string, args ...string) {
			_, err := parseFuzz(append([]string{"--repo", "/r", "--cache-dir", "/c"}, args...), io.Discard)
			var ue *usageError
			Expect(errors.As(err, &ue)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("cases and budget", "--cases and --budget do not go together", "--cases", "3", "--budget", "1m"),
		Entry("a host without a client", "--host and --client go together", "--host", "v1"),
		Entry("a pair and pin rules", "do not go together", "--host", "v1", "--client", "v2", "--last", "2"),
		Entry("no pack", "--pack -1", "--pack", "-1"),
		Entry("negative cases", "-cases: -1 is too small: give how many cases to run, 1 or more", "--cases", "-1"),
		Entry("R3, N22: no cases (was accepted, and built)", "-cases: 0 is too small: give how many cases to run, 1 or more", "--cases", "0"),
	)
})
