package skewtest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
)

// TestMain lets this test binary be a guardian (skewtest.Main) of the build steps and drivers
// its examples start, as every binary that starts them must.
func TestMain(m *testing.M) {
	skewtest.Main()
	m.Run()
}

func TestSkewtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "skewtest")
}
