package reports_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("Claim", func() {
	write := func(p, s string) {
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(s), 0o644)).To(Succeed())
	}
	read := func(p string) string {
		data, err := os.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		return string(data)
	}

	It("gives a directory to one run at a time, naming the owner to the other", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "report")
		release, err := reports.Claim(dir, "pid 1, started then: skewtest run A")
		Expect(err).NotTo(HaveOccurred())
		_, err = reports.Claim(dir, "pid 2: skewtest run B")
		Expect(err).To(MatchError(reports.ErrDirInUse))
		Expect(err).To(MatchError(ContainSubstring("is in use by another skewtest run (pid 1, started then: skewtest run A)")))
		var de *reports.DirError
		Expect(err).To(BeAssignableToTypeOf(de))
		release()
		release, err = reports.Claim(dir, "pid 2: skewtest run B")
		Expect(err).NotTo(HaveOccurred(), "control: free once released")
		release()
	})

	It("leaves its lock in the directory once released: the mark the working tree's build leaves out", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "report")
		release, err := reports.Claim(dir, "pid 1: skewtest run")
		Expect(err).NotTo(HaveOccurred())
		release()
		Expect(reports.LockFile).To(Equal(builds.ReportDirMarker))
		Expect(filepath.Join(dir, builds.ReportDirMarker)).To(BeAnExistingFile())
	})

	It("moves the previous run's reports into previous/, replacing an older one, and leaves other files", func() {
		dir := GinkgoT().TempDir()
		write(filepath.Join(dir, "pairings", "001-a", "host.log"), "old")
		write(filepath.Join(dir, reports.ResultsFile), "{}")
		write(filepath.Join(dir, reports.SummaryFile), "old summary")
		write(filepath.Join(dir, "previous", "pairings", "007-older", "host.log"), "older")
		write(filepath.Join(dir, "notes.txt"), "mine")
		release, err := reports.Claim(dir, "me")
		Expect(err).NotTo(HaveOccurred())
		defer release()
		Expect(filepath.Join(dir, "pairings")).NotTo(BeADirectory())
		Expect(filepath.Join(dir, reports.ResultsFile)).NotTo(BeAnExistingFile())
		Expect(read(filepath.Join(dir, "previous", "pairings", "001-a", "host.log"))).To(Equal("old"))
		Expect(read(filepath.Join(dir, "previous", reports.SummaryFile))).To(Equal("old summary"))
		Expect(filepath.Join(dir, "previous", "pairings", "007-older")).NotTo(BeADirectory(), "the older previous/ is replaced")
		Expect(read(filepath.Join(dir, "notes.txt"))).To(Equal("mine"))
	})

	It("leaves a directory without reports, and its previous/, as they are (the control)", func() {
		dir := GinkgoT().TempDir()
		write(filepath.Join(dir, "previous", "results.json"), "{}")
		release, err := reports.Claim(dir, "me")
		Expect(err).NotTo(HaveOccurred())
		defer release()
		Expect(read(filepath.Join(dir, "previous", "results.json"))).To(Equal("{}"))
	})

	It("refuses a file, and a path under a file, keeping the file", func() {
		f := filepath.Join(GinkgoT().TempDir(), "afile")
		write(f, "mine")
		_, err := reports.Claim(f, "me")
		Expect(err).To(MatchError(ContainSubstring("is a file, not a directory")))
		_, err = reports.Claim(filepath.Join(f, "sub"), "me")
		Expect(err).To(MatchError(ContainSubstring("cannot be created: not a directory")))
		Expect(read(f)).To(Equal("mine"))
	})
})
