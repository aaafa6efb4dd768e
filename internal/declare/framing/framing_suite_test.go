package framing_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFraming(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Framing Suite")
}
