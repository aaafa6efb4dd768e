package main

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSkewtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Skewtest Command Suite")
}
