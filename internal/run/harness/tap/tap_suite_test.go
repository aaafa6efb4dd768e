package tap_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"
)

func TestTap(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tap Suite")
}

// Every spec must leave no goroutine behind. This is registered first, so
// it runs after every other cleanup.
var _ = BeforeEach(func() {
	ignore := goleak.IgnoreCurrent()
	DeferCleanup(func() {
		Expect(goleak.Find(ignore)).To(Succeed())
	})
})
