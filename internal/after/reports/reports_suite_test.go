package reports_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
)

func TestReports(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reports Suite")
}

// Specs run inside CI jobs too: keep their reports out of the job's own summary.
var _ = BeforeEach(func() { GinkgoT().Setenv(reports.StepSummaryEnv, "") })
