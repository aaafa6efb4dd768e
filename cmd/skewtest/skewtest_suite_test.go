package main

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/proc"
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
