package drivercheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary be a guardian (proc.Main), as every binary that starts
// drivers must.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

func TestDrivercheck(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Drivercheck Suite")
}

// minimal is driverkit's complete example driver, built once.
var minimal string

var _ = BeforeSuite(func() {
	minimal = filepath.Join(GinkgoT().TempDir(), "minimal")
	out, err := exec.Command("go", "build", "-o", minimal, "../../../driverkit/testdata/minimal").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
})
