package journeys_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJourneys(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Journeys Suite")
}
