package coreguard_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/coreguard"
)

var _ = Describe("the core", func() {
	It("names no concept of the reference subject in code or strings", func() {
		hits, err := coreguard.Scan("../../..", coreguard.CoreDirs, coreguard.ReferenceWords)
		Expect(err).NotTo(HaveOccurred())
		Expect(hits).To(BeEmpty(), "declare product knowledge in the subject's contract, skewtest.yaml or journeys instead")
	})

	It("is caught when a reference-subject word is added, and left alone in comments and tests", func() {
		dir := GinkgoT().TempDir()
		write := func(name, body string) {
			Expect(os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)).To(Succeed())
		}
		write("internal/run/harness/bad.go", "package harness\n\n// OutputSpan in a comment is fine.\nconst what = \"rendered-output\"\n\nfunc screenOf() {}\nvar terminal = 1\n")
		write("internal/run/harness/bad_test.go", "package harness\n\nconst x = \"remoteterm\"\n")
		write("internal/run/harness/testdata/x.go", "package x\n\nconst y = \"subscribed\"\n")
		write("internal/declare/journeys/ok.go", "package journeys\n\nconst screenshot = \"screenshots are not screens\"\n")
		hits, err := coreguard.Scan(dir, coreguard.CoreDirs, coreguard.ReferenceWords)
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for _, h := range hits {
			got = append(got, h.String())
		}
		Expect(got).To(ConsistOf(
			`internal/run/harness/bad.go:4: "rendered-output" in "rendered-output"`,
			`internal/run/harness/bad.go:7: "terminal" in terminal`,
		))
	})
})
