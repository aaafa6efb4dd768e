package explore_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestExplore(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "explore")
}
