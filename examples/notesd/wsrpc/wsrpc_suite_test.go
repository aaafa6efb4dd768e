package wsrpc_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWSRPC(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "wsrpc")
}
