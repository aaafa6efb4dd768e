package harness_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// caFilesOf are the files an environment hands a driver, by variable.
func caFilesOf(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

var _ = Describe("a run's certificate authority", func() {
	var tmp string
	BeforeEach(func() {
		// Where os.MkdirTemp puts it: a directory of this spec's, to see what is left.
		tmp = GinkgoT().TempDir()
		GinkgoT().Setenv("TMPDIR", tmp)
	})
	leftovers := func() []string {
		GinkgoHelper()
		dirs, err := filepath.Glob(filepath.Join(tmp, "skewtest-tls-*"))
		Expect(err).NotTo(HaveOccurred())
		return dirs
	}

	It("is made on first need, lives while its run does, and is gone once the run closes it", func() {
		run := harness.NewCA()
		DeferCleanup(run.Close)
		Expect(run.Env()).To(BeEmpty(), "nothing is made before a driver needs it")
		Expect(leftovers()).To(BeEmpty())

		Expect(run.Make()).To(Succeed())
		env := run.Env()
		files := caFilesOf(env)
		Expect(files).To(HaveKey(tap.EnvTLSCA))
		Expect(files).To(HaveKey(tap.EnvTLSCert))
		Expect(files).To(HaveKey(tap.EnvTLSKey))
		for _, f := range files {
			Expect(f).To(BeARegularFile())
			Expect(f).To(HavePrefix(tmp + string(filepath.Separator) + "skewtest-tls-"))
		}
		Expect(run.Make()).To(Succeed())
		Expect(run.Env()).To(Equal(env), "made once: every driver of the run gets the same files")

		other := harness.NewCA()
		DeferCleanup(other.Close)
		Expect(other.Make()).To(Succeed())
		otherFiles := caFilesOf(other.Env())
		Expect(otherFiles[tap.EnvTLSCA]).NotTo(Equal(files[tap.EnvTLSCA]), "another run, another directory")
		mine, err := os.ReadFile(files[tap.EnvTLSCA])
		Expect(err).NotTo(HaveOccurred())
		theirs, err := os.ReadFile(otherFiles[tap.EnvTLSCA])
		Expect(err).NotTo(HaveOccurred())
		Expect(theirs).NotTo(Equal(mine), "another run, another authority")
		Expect(leftovers()).To(HaveLen(2))

		Expect(run.Close()).To(Succeed())
		for _, f := range files {
			Expect(f).NotTo(BeAnExistingFile())
		}
		Expect(filepath.Dir(files[tap.EnvTLSKey])).NotTo(BeAnExistingFile())
		Expect(run.Env()).To(BeEmpty(), "a closed run hands no files")
		Expect(run.Close()).To(Succeed(), "closing twice is safe")
		Expect(run.Make()).To(MatchError(ContainSubstring("was closed")), "a closed run's CA is not made again: nothing would remove it")
		for _, f := range otherFiles {
			Expect(f).To(BeARegularFile(), "closing one run leaves another's")
		}

		Expect(other.Close()).To(Succeed())
		Expect(leftovers()).To(BeEmpty())
	})

	It("writes nothing for a run that never needed one", func() {
		run := harness.NewCA()
		Expect(run.Close()).To(Succeed())
		Expect(run.Close()).To(Succeed())
		var none *harness.CA
		Expect(none.Close()).To(Succeed(), "a build made without one has nothing to close")
		Expect(leftovers()).To(BeEmpty())
	})
})
