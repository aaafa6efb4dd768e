package coreguard_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCoreguard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Coreguard Suite")
}
