// Package skew_test is notesd's skew test: its release history run by skewtest's library
// from `go test` (skewtesting), as a Go product runs its matrix in its own test suite.
package skew_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSkew(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "notesd skew")
}
