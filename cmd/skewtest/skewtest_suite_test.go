package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/example"
	"github.com/skewtest/skewtest/proc"
	"github.com/skewtest/skewtest/subject"
)

// TestMain lets this test binary guard the build steps and drivers its specs start.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

func TestSkewtest(t *testing.T) {
	// Reports append to a CI job's step summary when this is set: specs must not.
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	RegisterFailHandler(Fail)
	RunSpecs(t, "Skewtest Command Suite")
}

// referenceHistory writes the reference subject's history (skewtest example) into a new
// temporary directory and returns the repository's path.
func referenceHistory() string {
	GinkgoHelper()
	src, err := example.FindSource("")
	Expect(err).NotTo(HaveOccurred())
	repo := filepath.Join(GinkgoT().TempDir(), "remoteterm")
	_, err = example.Write(src, repo)
	Expect(err).NotTo(HaveOccurred())
	return repo
}

// openSubject opens the subject in dir (anew each call: specs change its files between
// calls).
func openSubject(dir string) *subject.Subject {
	GinkgoHelper()
	s, err := subject.Open(dir)
	Expect(err).NotTo(HaveOccurred())
	return s
}
