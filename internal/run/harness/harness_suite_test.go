package harness_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary be the guardian every driver is started through.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

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
