package driverproto_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDriverproto(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "driverproto")
}
