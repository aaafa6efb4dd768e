package docs_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/reportshot"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("the README's picture of report.html", func() {
	It("was taken of the page the reports package renders now", func() {
		run, err := results.Load(filepath.Join(root, reportshot.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		page, err := reportshot.Page(run)
		Expect(err).NotTo(HaveOccurred())
		want, err := reportshot.ReadDigest(filepath.Join(root, reportshot.DigestFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(reportshot.Digest(page, reportshot.Open(run))).To(Equal(want), reportshot.Stale)
	})

	It("is a real run's, with passing, failing and refused pairings, and a picture of a reasonable size", func() {
		run, err := results.Load(filepath.Join(root, reportshot.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		counts := run.Counts()
		Expect(counts[results.StatusPass]).To(BeNumerically(">", 0))
		Expect(counts[results.StatusFail]).To(BeNumerically(">", 0))
		Expect(reportshot.Open(run)).NotTo(BeEmpty(), "the picture opens a failing pairing")
		info, err := os.Stat(filepath.Join(root, reportshot.PictureFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Size()).To(BeNumerically("<", 400<<10))
	})
})
