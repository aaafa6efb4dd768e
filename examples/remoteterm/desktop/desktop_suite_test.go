package desktop_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gleak"
)

func TestDesktop(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "desktop")
}

var _ = BeforeEach(func() {
	g := gleak.Goroutines()
	DeferCleanup(func() {
		Eventually(gleak.Goroutines).ShouldNot(gleak.HaveLeaked(g))
	})
})
