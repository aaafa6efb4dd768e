package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/testkit/testcache"
)

// TestMain lets this test binary guard the build steps and drivers its specs start.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

// sharedCache is the build cache of every spec that needs builds but not a cold cache: the
// reference history's tags build once for the suite, across its parallel processes (ginkgo
// --procs), and once for all suites of make test ($SKEWTEST_TEST_CACHE).
var sharedCache string

var _ = SynchronizedBeforeSuite(func() []byte {
	return []byte(testcache.Dir(func() string {
		dir, err := os.MkdirTemp("", "skewtest-specs-cache-")
		Expect(err).NotTo(HaveOccurred())
		return dir
	}))
}, func(dir []byte) { sharedCache = string(dir) })

// history is the reference history written once per test process, for specs that only read
// it: a run writes nothing into the repository it tests.
var history struct {
	once sync.Once
	dir  string
	err  error
}

// sharedHistory returns the path of this process's reference history; specs must not change
// it (referenceHistory writes a copy of their own).
func sharedHistory() string {
	GinkgoHelper()
	history.once.Do(func() {
		var src *example.Source
		if src, history.err = example.FindSource(""); history.err != nil {
			return
		}
		if history.dir, history.err = os.MkdirTemp("", "skewtest-specs-history-"); history.err != nil {
			return
		}
		_, history.err = example.Write(src, filepath.Join(history.dir, "remoteterm"))
	})
	Expect(history.err).NotTo(HaveOccurred())
	return filepath.Join(history.dir, "remoteterm")
}

var _ = SynchronizedAfterSuite(func() {
	if history.dir != "" {
		Expect(os.RemoveAll(history.dir)).To(Succeed())
	}
	Expect(removeMadeBinary()).To(Succeed())
}, func() {
	if os.Getenv(testcache.Env) == "" {
		Expect(os.RemoveAll(sharedCache)).To(Succeed())
	}
})

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
