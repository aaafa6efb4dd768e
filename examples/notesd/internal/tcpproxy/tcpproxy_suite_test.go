package tcpproxy_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTCPProxy(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "tcpproxy")
}
