package driverkit_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDriverkit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "driverkit")
}
