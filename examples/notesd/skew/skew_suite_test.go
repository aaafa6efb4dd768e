// Package skew_test is notesd's skew test: its release history run by skewtest's library
// from `go test` (skewtesting), as a Go product runs its matrix in its own test suite.
package skew_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest"
)

// TestMain lets this test binary guard the builds and drivers its specs start
// (skewtest.Main): none outlives its pairing even if the test binary is killed.
func TestMain(m *testing.M) {
	skewtest.Main()
	m.Run()
}

// cache is the build cache the suite's specs share, as skewtest's own command suite shares
// one: every spec writes the same history, so a build one spec made serves the next that
// builds the same tree, and the Go build cache under it serves every build (a fresh one
// compiles the standard library and the product's dependencies again, minutes on a busy
// machine).
var cache string

var _ = BeforeSuite(func() { cache = GinkgoT().TempDir() })

func TestSkew(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "notesd skew")
}
