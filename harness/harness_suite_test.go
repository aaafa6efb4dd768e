package harness_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestHarness(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Harness Suite")
}

// fakeDriver is the path of the fake subject's driver, built once per suite.
var fakeDriver string

var _ = BeforeSuite(func() {
	fakeDriver = filepath.Join(GinkgoT().TempDir(), "fakedriver")
	out, err := exec.Command("go", "build", "-o", fakeDriver, "./testdata/fakedriver").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
})
