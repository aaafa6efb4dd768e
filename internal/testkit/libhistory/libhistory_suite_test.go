package libhistory_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLibhistory(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "libhistory")
}
