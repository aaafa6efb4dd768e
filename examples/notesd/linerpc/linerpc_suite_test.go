package linerpc_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLineRPC(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "linerpc")
}
