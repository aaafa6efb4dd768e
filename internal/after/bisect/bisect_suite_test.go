package bisect

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBisect(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Bisect Suite")
}
