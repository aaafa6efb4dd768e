package main

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSkewtest(t *testing.T) {
	// Reports append to a CI job's step summary when this is set: specs must not.
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	RegisterFailHandler(Fail)
	RunSpecs(t, "Skewtest Command Suite")
}
