package campaign_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary guard the build steps and drivers its specs start.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

func TestCampaign(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Campaign Suite")
}
