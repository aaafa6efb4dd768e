package skewtesting_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSkewtesting(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Skewtesting Suite")
}
